//! `score --metrics hcat`: options and construction of the hcat metric family (seed 003, section 3).

use crate::model_set::ModelSet;
use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use ragjudge_core::Metric;
use ragjudge_hcat::{HcatMetric, NliSource, Premise};

/// Where NLI groundedness (seed 003, section 3.2.2) comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HcatNli {
    /// The judge (`--judge`): log-odds of its two labels after an entailment prompt (slow).
    Judge,
    /// The NLI cross-encoder of `--nli DIR`: entailment logit minus the strongest other logit.
    CrossEncoder,
    /// No NLI groundedness: its columns stay empty.
    Off,
}

/// The premise each answer sentence is tested against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum HcatPremise {
    /// The whole context, passages joined by blank lines (the paper's choice).
    #[default]
    Joined,
    /// Each passage on its own, keeping the most entailing one.
    BestPassage,
}

/// Options of the hcat metrics.
#[derive(Debug, Clone, Default, Args)]
pub struct HcatArgs {
    /// HCAT NLI groundedness source [default: cross-encoder when --nli is given, else off].
    #[arg(long = "hcat-nli", value_enum, value_name = "SOURCE")]
    pub hcat_nli: Option<HcatNli>,
    /// HCAT NLI premise of each answer sentence.
    #[arg(long = "hcat-nli-premise", value_enum, default_value = "joined", value_name = "PREMISE")]
    pub hcat_nli_premise: HcatPremise,
    /// HCAT judge labels for "entailed" and "not entailed", each a single token of the judge model.
    #[arg(long = "hcat-judge-labels", value_delimiter = ',', default_value = "Yes,No", value_name = "YES,NO")]
    pub hcat_judge_labels: Vec<String>,
}

/// Builds the hcat metrics.
pub fn build(args: &HcatArgs, models: &ModelSet) -> Result<Vec<Box<dyn Metric>>> {
    let premise = match args.hcat_nli_premise {
        HcatPremise::Joined => Premise::Joined,
        HcatPremise::BestPassage => Premise::BestPassage,
    };
    let source =
        args.hcat_nli.unwrap_or(if models.args().nli.is_some() { HcatNli::CrossEncoder } else { HcatNli::Off });
    let nli = match source {
        HcatNli::Off => None,
        HcatNli::CrossEncoder => {
            let Some(model) = models.cross_encoder()? else {
                bail!("--hcat-nli cross-encoder needs an NLI model: pass --nli DIR");
            };
            Some(NliSource::cross_encoder(model)?)
        }
        HcatNli::Judge => {
            let labels: [String; 2] = match args.hcat_judge_labels.as_slice() {
                [yes, no] if !yes.is_empty() && !no.is_empty() && yes != no => [yes.clone(), no.clone()],
                other => bail!("--hcat-judge-labels needs two different labels, got {other:?}"),
            };
            Some(NliSource::judge(models.judge()?, labels))
        }
    };
    let mut metric = HcatMetric::new(models.embedder()?);
    if let Some(nli) = nli {
        metric = metric.with_nli(nli, premise);
    }
    Ok(vec![Box::new(metric)])
}
