//! The fit report of a calibration (artifact kind `calibration-report`): the split, Brier score,
//! ECE and reliability diagram, and per non-conformity score the conformal threshold, coverage
//! and set sizes on the test part (HCAT §5). `calibrate --json` prints it, `calibrate --report`
//! writes it, `ragjudge report` draws it.

use super::metrics::{CalibrationQuality, ReliabilityBin};
use super::pipeline::{FitReport, SetReport};
use super::saved::FittedCalibration;
use super::{Calibrator, Method};
use ragjudge_artifacts::Artifact;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt::Write as _;

/// What a calibration fit measured, with the fitted parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CalibrationReport {
    /// Stage 1 method.
    pub method: Method,
    /// Score columns.
    pub score_columns: Vec<String>,
    /// Label column.
    pub label_column: String,
    /// Binarisation threshold of the labels, if any.
    pub binarize: Option<f64>,
    /// Label value of each level.
    pub labels: Vec<f64>,
    /// Rows of the score file (before the join with the labels).
    #[serde(default)]
    pub rows: usize,
    /// Rows joined with a label and every score.
    pub joined: usize,
    /// Fitting rows.
    pub fit: usize,
    /// Conformal calibration rows.
    pub calibration: usize,
    /// Test rows.
    pub test: usize,
    /// Seed of the split.
    pub seed: u64,
    /// Conformal error rate.
    pub alpha: f64,
    /// Method and fitted parameters.
    pub calibrator: Calibrator,
    /// Brier score and ECE on the test split (the calibration split when there is no test split).
    pub quality: Option<CalibrationQuality>,
    /// `test` or `calibration`: where `quality` was measured.
    pub quality_on: String,
    /// Reliability diagram of the same split as `quality`.
    #[serde(default)]
    pub reliability: Vec<ReliabilityBin>,
    /// Per non-conformity score: threshold, coverage and set sizes.
    pub sets: Vec<SetReport>,
}

impl Artifact for CalibrationReport {
    const KIND: &'static str = "calibration-report";
    const SCHEMA_VERSION: u32 = 1;

    /// Before artifacts were versioned: the fitted calibrator beside its conformal sets.
    fn is_legacy(value: &Value) -> bool {
        value.get("calibrator").is_some() && value.get("sets").is_some()
    }
}

impl CalibrationReport {
    /// The report of `fitted`, measured as `r`, over `rows` rows of the score file split with `seed`.
    pub fn new(fitted: &FittedCalibration, r: FitReport, rows: usize, seed: u64) -> Self {
        CalibrationReport {
            method: fitted.calibrator.method(),
            score_columns: fitted.score_columns.clone(),
            label_column: fitted.label_column.clone(),
            binarize: fitted.binarize,
            labels: fitted.labels.clone(),
            rows,
            joined: r.rows,
            fit: r.fit,
            calibration: r.calibration,
            test: r.test,
            seed,
            alpha: fitted.alpha,
            calibrator: fitted.calibrator.clone(),
            quality: r.quality,
            quality_on: r.quality_on.to_string(),
            reliability: r.reliability,
            sets: r.sets,
        }
    }

    /// The report as lines of text.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let labels: Vec<String> = self.labels.iter().map(|l| l.to_string()).collect();
        let _ = writeln!(
            out,
            "{} calibration of {} -> {}{} (levels {})",
            self.method.name(),
            self.score_columns.join(","),
            self.label_column,
            self.binarize.map_or(String::new(), |t| format!(" >= {t}")),
            labels.join(", ")
        );
        let _ = writeln!(
            out,
            "rows: {} joined of {}; split (seed {}): fit {}, calibration {}, test {}",
            self.joined, self.rows, self.seed, self.fit, self.calibration, self.test
        );
        let _ = writeln!(out, "parameters: {}", serde_json::to_string(&self.calibrator).unwrap_or_default());
        if let Some(q) = &self.quality {
            let _ = writeln!(
                out,
                "{} split: Brier {:.4}, ECE {:.4} ({} equal-width bins)",
                self.quality_on, q.brier, q.ece, q.ece_bins
            );
        }
        for s in &self.sets {
            let q = s.q_hat.map_or("inf (all labels)".into(), |q| format!("{q:.4}"));
            let _ = writeln!(out, "{} sets, alpha {}: q_hat {q}", s.score.name(), self.alpha);
            if let Some(c) = &s.test {
                let sizes: Vec<String> = c.size_counts.iter().enumerate().map(|(k, n)| format!("{k}:{n}")).collect();
                let _ = writeln!(
                    out,
                    "  test coverage {:.4} (target >= {:.2}), mean set size {:.3}, sizes {}",
                    c.coverage,
                    1.0 - self.alpha,
                    c.mean_size,
                    sizes.join(" ")
                );
            }
            if let Some(b) = &s.binary_sets {
                let _ = writeln!(
                    out,
                    "  sets {{0}}: {}, {{1}}: {}, {{0,1}}: {}, empty: {}",
                    b.zero, b.one, b.both, b.empty
                );
            }
        }
        out
    }
}
