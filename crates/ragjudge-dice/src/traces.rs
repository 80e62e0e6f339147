//! Reasoning traces (DICE §3.1): one JSONL line per judged order of a pair, with
//! everything needed to audit the verdict later.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::Path;

use ragjudge_models::ProbSource;
use serde::{Deserialize, Serialize};

use crate::judgement::{Category, Order, PairJudgement, Probs};

/// The trace of one order of one pairwise judgement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceRecord {
    /// Question id.
    pub question_id: String,
    /// System of the pair's first record (A in original terms).
    pub system_a: String,
    /// System of the pair's second record (B in original terms).
    pub system_b: String,
    /// `"ab"` or `"ba"`: which record was shown first.
    pub order: Order,
    /// Prompt version, e.g. `dice-en-v2`.
    pub prompt_version: String,
    /// Prompt language, `"en"` or `"zh"`.
    pub lang: String,
    /// Judge identity.
    pub judge: String,
    /// Whether no reference answer was available.
    pub reference_free: bool,
    /// Stage I text (empty without reasoning).
    pub reasoning: String,
    /// Category of system A's answer (original orientation), if parsable.
    pub category_a: Option<Category>,
    /// Category of system B's answer (original orientation), if parsable.
    pub category_b: Option<Category>,
    /// Category text of A as written, when a `Category` line was found.
    pub category_a_raw: Option<String>,
    /// Category text of B as written, when a `Category` line was found.
    pub category_b_raw: Option<String>,
    /// Label probabilities `[A, B, C]` as presented to the judge (before mapping back).
    pub label_probs: Vec<f64>,
    /// Label logits (or log-probabilities) as returned by the backend.
    pub label_logits: Vec<f64>,
    /// Probabilities of this order in original A/B/tie terms.
    pub probs: Probs,
    /// Mass of the labels in the full next-token distribution, when known.
    pub label_mass: Option<f64>,
    /// How the probabilities were obtained.
    pub source: ProbSource,
    /// Whether a label prior was divided out.
    pub bias_applied: bool,
    /// The prior `[A, B, C]` divided out, in presentation terms.
    pub prior: Option<[f64; 3]>,
    /// `probs` after the prior correction.
    pub corrected: Option<Probs>,
    /// The pair's probabilities averaged over its orders.
    pub pair_probs: Probs,
    /// Whether the pair's orders agree on the argmax.
    pub order_consistent: bool,
}

impl TraceRecord {
    /// One trace per judged order of `pair`.
    pub fn from_pair(pair: &PairJudgement) -> Vec<TraceRecord> {
        pair.orders
            .iter()
            .map(|o| TraceRecord {
                question_id: pair.question_id.clone(),
                system_a: pair.system_a.clone(),
                system_b: pair.system_b.clone(),
                order: o.order,
                prompt_version: pair.prompt_version.clone(),
                lang: pair.lang.clone(),
                judge: pair.judge.clone(),
                reference_free: pair.reference_free,
                reasoning: o.reasoning.clone(),
                category_a: o.category_a,
                category_b: o.category_b,
                category_a_raw: o.category_a_raw.clone(),
                category_b_raw: o.category_b_raw.clone(),
                label_probs: o.label_probs.probs.clone(),
                label_logits: o.label_probs.logits.clone(),
                probs: o.probs,
                label_mass: o.label_mass,
                source: o.source,
                bias_applied: pair.prior.is_some(),
                prior: pair.prior.as_ref().map(|p| p.probs),
                corrected: o.corrected,
                pair_probs: pair.probs,
                order_consistent: pair.order_consistent,
            })
            .collect()
    }

    /// The record as one JSON line (no trailing newline).
    #[allow(clippy::expect_used, reason = "string keys and numbers: serde_json cannot fail on a trace")]
    pub fn to_json_line(&self) -> String {
        serde_json::to_string(self).expect("traces always serialise")
    }
}

/// Appends traces to a JSONL file, flushing after every line so that an interrupted run keeps
/// what it judged.
pub struct TraceWriter {
    out: BufWriter<File>,
}

impl TraceWriter {
    /// Opens `path` for appending, creating it if needed.
    pub fn append(path: impl AsRef<Path>) -> io::Result<Self> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(Self { out: BufWriter::new(file) })
    }

    /// Writes one trace line and flushes.
    pub fn write(&mut self, trace: &TraceRecord) -> io::Result<()> {
        writeln!(self.out, "{}", trace.to_json_line())?;
        self.out.flush()
    }

    /// Writes the traces of every order of `pair`.
    pub fn write_pair(&mut self, pair: &PairJudgement) -> io::Result<()> {
        for t in TraceRecord::from_pair(pair) {
            self.write(&t)?;
        }
        Ok(())
    }
}
