//! Turns metric family names from the command line into metric objects.

use crate::args::ScoreArgs;
use crate::families;
use crate::model_set::ModelSet;
use anyhow::{bail, Result};
use ragjudge_core::Metric;
use ragjudge_lexical::answer_overlap::LexicalMetric;
use ragjudge_lexical::ciu::{CiuMetric, CiuOptions};
use ragjudge_lexical::retrieval::{RetrievalMetric, RetrievalOptions, ShortList};

/// Metric families `score --metrics` knows.
pub const KNOWN: &[&str] = &["lexical", "ciu", "retrieval", "hcat", "safety", "trec"];

/// Builds the metrics named in `args.metrics`, in the order given, each once.
pub fn build(args: &ScoreArgs) -> Result<Vec<Box<dyn Metric>>> {
    let mut names: Vec<&str> = Vec::new();
    for name in args.metrics.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    if names.is_empty() {
        bail!("--metrics is empty (known: {})", KNOWN.join(", "));
    }
    let models = ModelSet::new(&args.models, args.threads);
    let mut metrics = Vec::new();
    for name in names {
        match name {
            "hcat" => metrics.extend(families::hcat::build(&args.hcat, &models)?),
            "safety" => metrics.extend(families::safety::build(&args.safety, &models)?),
            "trec" => metrics.extend(families::trec::build(&args.trec, &models)?),
            _ => metrics.push(build_one(name, args)?),
        }
    }
    Ok(metrics)
}

fn build_one(name: &str, args: &ScoreArgs) -> Result<Box<dyn Metric>> {
    Ok(match name {
        "lexical" => Box::new(LexicalMetric::new(args.rouge_stemmer)),
        "ciu" => {
            if !(args.ciu_c_char.is_finite() && args.ciu_c_char >= 0.0) {
                bail!("--ciu-c-char must be a finite number >= 0, got {}", args.ciu_c_char);
            }
            let opts = CiuOptions {
                c_char: args.ciu_c_char,
                position_discount: !args.ciu_no_position,
                frequency_discount: !args.ciu_no_frequency,
                effort: !args.ciu_no_effort,
                ..CiuOptions::default()
            };
            Box::new(CiuMetric { opts })
        }
        "retrieval" => {
            if args.ks.is_empty() || args.ks.contains(&0) {
                bail!("--k needs positive cut-offs, e.g. --k 1,3,5");
            }
            let short_list = if args.skip_short_lists { ShortList::Undefined } else { ShortList::PadNonRelevant };
            let opts =
                RetrievalOptions { threshold: args.relevance_threshold, short_list, ..RetrievalOptions::default() };
            Box::new(RetrievalMetric { ks: args.ks.clone(), opts })
        }
        other => bail!("unknown metric `{other}` (known: {})", KNOWN.join(", ")),
    })
}
