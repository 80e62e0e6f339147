//! What `calibrate` prints after a fit: the report as JSON or as text.

use ragjudge_report::Provenance;
use ragjudge_stats::calibration::metrics::{CalibrationQuality, ReliabilityBin};
use ragjudge_stats::calibration::pipeline::SetReport;
use ragjudge_stats::calibration::{Calibrator, FitReport, FittedCalibration};
use ragjudge_stats::conformal::ConformalScore;
use serde::Serialize;

/// The fit report, in the field order of `--json`.
#[derive(Serialize)]
pub(super) struct Report<'a> {
    method: &'static str,
    score_columns: &'a [String],
    label_column: &'a str,
    binarize: Option<f64>,
    labels: &'a [f64],
    rows: usize,
    joined: usize,
    fit: usize,
    calibration: usize,
    test: usize,
    seed: u64,
    alpha: f64,
    calibrator: &'a Calibrator,
    /// Brier score and ECE on the test split (the calibration split when there is no test split).
    quality: Option<CalibrationQuality>,
    quality_on: &'static str,
    /// Reliability diagram of the same split as `quality`.
    reliability: &'a [ReliabilityBin],
    sets: &'a [SetReport],
    provenance: Provenance,
}

impl<'a> Report<'a> {
    /// The report of `fitted` over `rows` rows of the score file, split with `seed`.
    pub(super) fn new(fitted: &'a FittedCalibration, r: &'a FitReport, rows: usize, seed: u64) -> Self {
        Report {
            method: fitted.calibrator.method().name(),
            score_columns: &fitted.score_columns,
            label_column: &fitted.label_column,
            binarize: fitted.binarize,
            labels: &fitted.labels,
            rows,
            joined: r.rows,
            fit: r.fit,
            calibration: r.calibration,
            test: r.test,
            seed,
            alpha: fitted.alpha,
            calibrator: &fitted.calibrator,
            quality: r.quality,
            quality_on: r.quality_on,
            reliability: &r.reliability,
            sets: &r.sets,
            provenance: Provenance::of_this_process(),
        }
    }
}

/// Prints the report as text.
pub(super) fn print(r: &Report<'_>) {
    let labels: Vec<String> = r.labels.iter().map(|l| l.to_string()).collect();
    println!(
        "{} calibration of {} -> {}{} (levels {})",
        r.method,
        r.score_columns.join(","),
        r.label_column,
        r.binarize.map_or(String::new(), |t| format!(" >= {t}")),
        labels.join(", ")
    );
    println!(
        "rows: {} joined of {}; split (seed {}): fit {}, calibration {}, test {}",
        r.joined, r.rows, r.seed, r.fit, r.calibration, r.test
    );
    println!("parameters: {}", serde_json::to_string(r.calibrator).unwrap_or_default());
    if let Some(q) = &r.quality {
        println!("{} split: Brier {:.4}, ECE {:.4} ({} equal-width bins)", r.quality_on, q.brier, q.ece, q.ece_bins);
    }
    for s in r.sets {
        let q = s.q_hat.map_or("inf (all labels)".into(), |q| format!("{q:.4}"));
        println!("{} sets, alpha {}: q_hat {q}", score_name(s.score), r.alpha);
        if let Some(c) = &s.test {
            let sizes: Vec<String> = c.size_counts.iter().enumerate().map(|(k, n)| format!("{k}:{n}")).collect();
            println!(
                "  test coverage {:.4} (target >= {:.2}), mean set size {:.3}, sizes {}",
                c.coverage,
                1.0 - r.alpha,
                c.mean_size,
                sizes.join(" ")
            );
        }
        if let Some(b) = &s.binary_sets {
            println!("  sets {{0}}: {}, {{1}}: {}, {{0,1}}: {}, empty: {}", b.zero, b.one, b.both, b.empty);
        }
    }
}

/// `LAC` or `APS`.
fn score_name(score: ConformalScore) -> &'static str {
    match score {
        ConformalScore::Lac => "LAC",
        ConformalScore::Aps => "APS",
    }
}

/// The column of an applied calibrator's sets: `set_lac` or `set_aps`.
pub(super) fn set_column(score: ConformalScore) -> String {
    format!("set_{}", score_name(score).to_ascii_lowercase())
}
