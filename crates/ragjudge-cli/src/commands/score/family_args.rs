//! The options of the model-backed metric families hcat and safety of `score`, as flags.

use clap::{Args, ValueEnum};
use ragjudge_eval::families::{HcatNli, HcatSettings, SafetySettings};
use ragjudge_hcat::Premise;

/// Where NLI groundedness (HCAT §3.2.2) comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HcatNliArg {
    /// The judge (`--judge`): log-odds of its two labels after an entailment prompt (slow).
    Judge,
    /// The NLI cross-encoder of `--nli DIR`: entailment logit minus the strongest other logit.
    CrossEncoder,
    /// No NLI groundedness: its columns stay empty.
    Off,
}

/// The premise each answer sentence is tested against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum HcatPremiseArg {
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
    pub hcat_nli: Option<HcatNliArg>,
    /// HCAT NLI premise of each answer sentence.
    #[arg(long = "hcat-nli-premise", value_enum, default_value = "joined", value_name = "PREMISE")]
    pub hcat_nli_premise: HcatPremiseArg,
    /// HCAT judge labels for "entailed" and "not entailed", each a single token of the judge model.
    #[arg(long = "hcat-judge-labels", value_delimiter = ',', default_value = "Yes,No", value_name = "YES,NO")]
    pub hcat_judge_labels: Vec<String>,
}

impl HcatArgs {
    /// The engine's hcat settings.
    pub fn settings(&self) -> HcatSettings {
        HcatSettings {
            nli: self.hcat_nli.map(|n| match n {
                HcatNliArg::Judge => HcatNli::Judge,
                HcatNliArg::CrossEncoder => HcatNli::CrossEncoder,
                HcatNliArg::Off => HcatNli::Off,
            }),
            premise: match self.hcat_nli_premise {
                HcatPremiseArg::Joined => Premise::Joined,
                HcatPremiseArg::BestPassage => Premise::BestPassage,
            },
            judge_labels: self.hcat_judge_labels.clone(),
        }
    }
}

/// Options of the safety metrics.
#[derive(Debug, Clone, Args)]
pub struct SafetyArgs {
    /// Safety: also judge the answer's toxicity with the judge model (`--judge`).
    #[arg(long)]
    pub safety_toxicity: bool,
    /// Safety: also count PII in the query (`safety_pii_query_count`).
    #[arg(long)]
    pub safety_scan_query: bool,
    /// Safety: also count PII in the contexts, pattern detectors only (`safety_pii_context_count`).
    #[arg(long)]
    pub safety_scan_contexts: bool,
    /// Least mean token probability of a PII entity from the NER model.
    #[arg(long, default_value_t = 0.5)]
    pub pii_threshold: f32,
    /// Region of phone numbers written without `+country` (two-letter code, or `none`).
    #[arg(long, default_value = "US")]
    pub pii_phone_region: String,
    /// Longest text window given to the NER model at once, in bytes.
    #[arg(long, default_value_t = 1000)]
    pub pii_chunk_bytes: usize,
}

impl SafetyArgs {
    /// The engine's safety settings.
    pub fn settings(&self) -> SafetySettings {
        SafetySettings {
            toxicity: self.safety_toxicity,
            scan_query: self.safety_scan_query,
            scan_contexts: self.safety_scan_contexts,
            pii_threshold: self.pii_threshold,
            phone_region: self.pii_phone_region.clone(),
            chunk_bytes: self.pii_chunk_bytes,
        }
    }
}
