//! `ragjudge serve`: the scoring server (`ragjudge_serve`) on an address, until SIGTERM or ctrl-c.

mod args;
mod trace_args;

pub use args::ServeArgs;

use anyhow::{Context, Result};
use ragjudge_dice::protocol::ProtocolSettings;
use ragjudge_eval::families::{CiuSettings, LexicalSettings, MetricSettings, RetrievalSettings};
use ragjudge_eval::models::{backends, default_embedder, EncoderSettings, ModelSettings};
use ragjudge_serve::{App, JudgeService, Scorer};
use std::sync::Arc;

/// Runs `ragjudge serve`.
pub fn run(args: &ServeArgs) -> Result<()> {
    let limits = args.limits()?;
    let traces = args.traces.settings()?;
    let settings = MetricSettings {
        lexical: LexicalSettings {
            rouge_stemmer: args.rouge_stemmer,
            lang: args.lang.into(),
            zh_rouge: args.zh_rouge.into(),
        },
        ciu: CiuSettings::default(),
        retrieval: RetrievalSettings { ks: args.ks.clone(), ..RetrievalSettings::default() },
        ..MetricSettings::default()
    };
    let models = ModelSettings {
        embedder: args.embedder.clone().unwrap_or_else(|| default_embedder(args.lang.into()).into()),
        encoder: EncoderSettings { threads: args.threads, ..EncoderSettings::default() },
        judge: args.judge_settings(),
        ..ModelSettings::default()
    };
    let scorer = Scorer::from_names(&args.metrics, settings, models, args.threads)?;
    // Every model loads now, once, rather than on the first request.
    for reason in scorer.warm_up()? {
        eprintln!("warning: warm-up record: {reason}");
    }
    let judge = match &args.judge {
        Some(_) => {
            let p = &args.judging;
            p.check_dice_switches()?;
            let judge = Arc::from(backends::judge(&args.judge_settings())?);
            let settings = ragjudge_serve::JudgeSettings {
                reasoning: !p.no_reasoning,
                swap: !p.no_swap,
                tau: args.tau,
                protocol: p.protocol,
                protocol_settings: ProtocolSettings {
                    premise_sentences: p.premise_sentences,
                    ..ProtocolSettings::default()
                },
            };
            Some(JudgeService::new(judge, &settings)?)
        }
        None => None,
    };
    #[cfg(feature = "jemalloc")]
    ragjudge_serve::set_heap_probe(jemalloc_allocated);
    let app = App::with_traces(scorer, judge, limits, traces)?;
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the runtime")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(&args.addr)
            .await
            .with_context(|| format!("cannot listen on {}", args.addr))?;
        let addr = listener.local_addr()?;
        println!("ragjudge serve listening on http://{addr}");
        ragjudge_serve::serve(listener, app.clone(), ragjudge_serve::shutdown_signal()).await?;
        eprintln!("ragjudge serve: shut down");
        anyhow::Ok(())
    })?;
    // A job still running past the shutdown grace is abandoned, not waited for.
    runtime.shutdown_background();
    // Traces received are scored and written before the process exits.
    app.finish_traces();
    Ok(())
}

/// jemalloc's `stats.allocated` (refreshed by advancing its epoch).
#[cfg(feature = "jemalloc")]
fn jemalloc_allocated() -> Option<u64> {
    tikv_jemalloc_ctl::epoch::advance().ok()?;
    tikv_jemalloc_ctl::stats::allocated::read().ok().map(|b| b as u64)
}
