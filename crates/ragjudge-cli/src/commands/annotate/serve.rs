//! `ragjudge annotate serve`: the annotation page on a local address, until ctrl-c or SIGTERM.

use super::TaskArgs;
use anyhow::{Context, Result};
use clap::Args;
use ragjudge_artifacts::Provenance;
use ragjudge_human::job::session_tasks;
use ragjudge_human::store::LabelStore;
use ragjudge_serve::annotate::{annotate_router, Annotate};
use ragjudge_serve::Limits;
use std::path::PathBuf;
use std::sync::Arc;

/// `ragjudge annotate serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The runs.
    #[command(flatten)]
    pub tasks: TaskArgs,
    /// The label file: created with the first label, continued when it exists.
    #[arg(long, value_name = "FILE")]
    pub labels: PathBuf,
    /// A plan (`annotate plan -o`): only its tasks, in its order [default: every task].
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,
    /// Folder the page's Export button writes the label files to.
    #[arg(long, value_name = "DIR")]
    pub export: Option<PathBuf>,
    /// The annotator id the page proposes.
    #[arg(long)]
    pub annotator: Option<String>,
    /// Address to listen on (port 0: any free port, printed).
    #[arg(long, default_value = "127.0.0.1:8765")]
    pub addr: String,
}

/// Runs `ragjudge annotate serve`.
pub fn run(args: &ServeArgs) -> Result<()> {
    let inputs = args.tasks.inputs();
    let tasks = session_tasks(&inputs, args.plan.as_deref())?;
    let view = tasks.view();
    let store = LabelStore::open(&args.labels, view, inputs.scale, Provenance::of_this_process())?;
    let labelled = store.labels().labels.len();
    let total = tasks.len();
    let mut app = Annotate::new(tasks, inputs.scale, store, args.export.clone(), args.annotator.clone());
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the runtime")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(&args.addr)
            .await
            .with_context(|| format!("cannot listen on {}", args.addr))?;
        let addr = listener.local_addr()?;
        if !addr.ip().is_loopback() {
            eprintln!("warning: listening on {addr}, which other machines can reach; the page has no login");
            app = app.allow_any_host();
        }
        println!(
            "ragjudge annotate: {total} {} tasks, {labelled} labels so far in {}; open http://{addr}/",
            view.as_str(),
            args.labels.display()
        );
        let router = annotate_router(Arc::new(app));
        ragjudge_serve::serve_router(listener, router, &Limits::default(), ragjudge_serve::shutdown_signal()).await?;
        eprintln!("ragjudge annotate: stopped; the labels are in {}", args.labels.display());
        anyhow::Ok(())
    })?;
    runtime.shutdown_background();
    Ok(())
}
