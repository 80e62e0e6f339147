//! `ragjudge perturb`: input variations of questions for robustness testing (HCAT §6.1), through
//! `ragjudge_analysis::perturb::job`. Each variant names its original (`meta.variant_of`), its kind
//! (`meta.perturbation`) and its rate (`meta.severity`); the same seed gives the same variants.
//! With `--input` (records with contexts) the kinds `shuffle` and `distractor` vary the retrieved
//! passages instead (`ragjudge_analysis::adversarial`); the answer and its citations are kept.

mod args;

use crate::args::Precision;
use anyhow::Result;
use ragjudge_analysis::perturb::job::{perturb_file, PerturbFiles};
use std::sync::Arc;

pub use args::PerturbArgs;

/// Runs `ragjudge perturb`: the library's [`perturb_file`] job, its summary printed.
pub fn run(args: &PerturbArgs) -> Result<()> {
    let settings = args.settings();
    let source = args.questions.clone().or_else(|| args.input.clone()).unwrap_or_default();
    let files = PerturbFiles {
        source,
        records: args.input.is_some(),
        collection: args.collection.clone(),
        output: args.output.clone(),
        shard: args.shard.get()?,
    };
    let judge: Option<Arc<dyn ragjudge_models::Judge>> =
        if settings.needs_judge() { Some(Arc::from(crate::backends::judge(&args.judge)?)) } else { None };
    let embedder = match args.embedder.as_str() {
        model if settings.needs_embedder() && model != "none" => {
            Some(crate::backends::embedder(model, 32, args.judge.threads, Precision::F32)?)
        }
        _ => None,
    };
    let summary = perturb_file(&files, &settings, judge.as_ref(), embedder.as_deref())?;
    print!("{}", summary.render(&settings, &args.output.display().to_string()));
    Ok(())
}
