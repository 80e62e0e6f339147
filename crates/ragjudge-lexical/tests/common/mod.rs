//! Shared by the parity tests: the fixture reader and the largest-difference tracker.

#![allow(dead_code)]

use ragjudge_lexical::bleu::BleuScore;
use serde_json::Value;

/// The tolerance of every parity test: the references compute in f64 as this crate does.
pub const TOL: f64 = 1e-9;

/// The fixture `tests/fixtures/NAME`, parsed.
pub fn fixture(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).expect("fixture readable");
    serde_json::from_str(&text).expect("fixture is JSON")
}

pub fn pairs(doc: &Value) -> Vec<(String, Vec<String>, &Value)> {
    doc["pairs"]
        .as_array()
        .expect("pairs array")
        .iter()
        .map(|p| {
            let hyp = p["hypothesis"].as_str().expect("hypothesis").to_owned();
            let refs = p["references"]
                .as_array()
                .expect("references")
                .iter()
                .map(|r| r.as_str().expect("reference string").to_owned())
                .collect();
            (hyp, refs, p)
        })
        .collect()
}

pub fn f(v: &Value) -> f64 {
    v.as_f64().expect("number")
}

/// Tracks the largest absolute difference and where it happened.
#[derive(Default)]
pub struct MaxDiff {
    max: f64,
    at: String,
    count: usize,
}

impl MaxDiff {
    pub fn check(&mut self, got: f64, want: f64, what: impl FnOnce() -> String) {
        let d = (got - want).abs();
        self.count += 1;
        if d > self.max || d.is_nan() {
            self.max = if d.is_nan() { f64::INFINITY } else { d };
            self.at = format!("{} (got {got}, want {want})", what());
        }
    }

    pub fn assert(&self, metric: &str) {
        println!("{metric}: {} values, max abs diff {:e}", self.count, self.max);
        assert!(self.count > 0, "{metric}: nothing compared");
        assert!(self.max <= TOL, "{metric}: max abs difference {:e} > {TOL:e} at {}", self.max, self.at);
    }
}

pub fn check_bleu(md: &mut MaxDiff, got: &BleuScore, want: &Value, ctx: &str) {
    md.check(got.score, f(&want["score"]), || format!("{ctx} score"));
    md.check(got.bp, f(&want["bp"]), || format!("{ctx} bp"));
    for n in 0..4 {
        md.check(got.precisions[n], f(&want["precisions"][n]), || format!("{ctx} precision[{n}]"));
        md.check(got.counts[n] as f64, f(&want["counts"][n]), || format!("{ctx} counts[{n}]"));
        md.check(got.totals[n] as f64, f(&want["totals"][n]), || format!("{ctx} totals[{n}]"));
    }
    md.check(got.sys_len as f64, f(&want["sys_len"]), || format!("{ctx} sys_len"));
    md.check(got.ref_len as f64, f(&want["ref_len"]), || format!("{ctx} ref_len"));
}
