//! The CIU paper's evaluation protocol for metric fusion (sections 4.2, 5.2 and Tables 1-2): for
//! each of `seeds` random splits, `test_size` rows are held out and every method is scored by the
//! Spearman correlation of its predictions with the human labels on them; the mean over splits is
//! reported with a 95% t-interval over splits. Methods: each input metric alone (Table 1, no
//! training), a random baseline, an SVR on the features chosen by each of the 17 selection
//! strategies of Table 2 (hyper-parameters by grid search with k-fold CV on the training rows), a
//! least-squares fit on all inputs, and MoE-Concat and MoE-CIU (section 3.3). Each strategy's
//! selections are counted per metric, as Table 2's "selection ratio" row.
//!
//! Differences from the paper, by choice: inputs are standardised with the training rows' means
//! and deviations before selection and SVR (the paper does not say; SVR is not scale-invariant),
//! and the splits are drawn by a seeded ChaCha shuffle (the paper's seeds are not published).

use crate::dataset::Dataset;
use crate::linear::{Linear, Scaler};
use crate::moe::{MoeKind, MoeModel, MoeParams};
use crate::select::{select_many, table2_strategies, Strategy};
use crate::svr::{grid_search, SvrGrid};
use crate::FusionError;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};
use std::collections::HashMap;

/// What the study runs.
#[derive(Debug, Clone)]
pub struct StudyConfig {
    /// Random splits (the paper: 15).
    pub seeds: usize,
    /// Held-out rows per split (the paper: 50).
    pub test_size: usize,
    /// The SVR grid.
    pub grid: SvrGrid,
    /// Cross-validation folds of the grid search.
    pub folds: usize,
    /// Run the 17 feature-selection strategies (the slow part).
    pub strategies: bool,
    /// MoE training parameters (the kind is set per row).
    pub moe: MoeParams,
}

/// Mean Spearman over splits with its 95% t-interval.
#[derive(Debug, Clone, Serialize)]
pub struct SeedSummary {
    /// Mean over splits.
    pub mean: f64,
    /// Lower bound.
    pub ci_low: f64,
    /// Upper bound.
    pub ci_high: f64,
    /// Splits where Spearman was undefined (constant predictions), counted as 0.
    pub undefined: usize,
    /// Per split.
    pub per_seed: Vec<f64>,
}

/// One row of the study table.
#[derive(Debug, Clone, Serialize)]
pub struct StudyRow {
    /// `metric`, `baseline`, `strategy` or `fusion`.
    pub group: &'static str,
    /// The row's name (a metric, a strategy label, `MoE-CIU`...).
    pub name: String,
    /// Per label column, in [`StudyReport::labels`] order.
    pub spearman: Vec<SeedSummary>,
    /// Strategies only: per label, per input, the share of splits that selected the input.
    pub selected: Option<Vec<Vec<f64>>>,
}

/// The study's result.
#[derive(Debug, Clone, Serialize)]
pub struct StudyReport {
    /// Input columns.
    pub inputs: Vec<String>,
    /// Label columns.
    pub labels: Vec<String>,
    /// Splits.
    pub seeds: usize,
    /// Held-out rows per split.
    pub test_size: usize,
    /// Training rows per split.
    pub train_size: usize,
    /// Rows, in table order.
    pub rows: Vec<StudyRow>,
}

/// Per split, per method: the Spearman on the held-out rows (and, for strategies, the selection).
struct SplitResult {
    values: Vec<(String, &'static str, f64, bool)>,
    selections: Vec<(String, Vec<usize>)>,
}

/// Runs the study on one data set per label column (same rows and inputs in each).
pub fn run(data: &[Dataset], config: &StudyConfig) -> Result<StudyReport, FusionError> {
    let first = data.first().ok_or_else(|| FusionError::Data("no label column".into()))?;
    let n = first.y.len();
    if config.seeds == 0 {
        return Err(FusionError::Params("--seeds must be at least 1".into()));
    }
    let min_train = (config.folds * 2).max(10);
    if config.test_size < 3 || n < config.test_size + min_train {
        return Err(FusionError::Data(format!(
            "{n} joined rows cannot hold out {} per split and keep {min_train} to train on (lower --test-size)",
            config.test_size
        )));
    }
    for d in data {
        if d.keys != first.keys || d.inputs != first.inputs {
            return Err(FusionError::Data(format!("label `{}` joins other rows than `{}`", d.label, first.label)));
        }
    }
    let mut per_label = Vec::new();
    for d in data {
        let results: Vec<SplitResult> = (0..config.seeds)
            .into_par_iter()
            .map(|seed| split_run(d, config, seed as u64))
            .collect::<Result<_, _>>()?;
        per_label.push(results);
    }
    Ok(assemble(data, config, &per_label))
}

fn split_run(d: &Dataset, config: &StudyConfig, seed: u64) -> Result<SplitResult, FusionError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut idx: Vec<usize> = (0..d.y.len()).collect();
    idx.shuffle(&mut rng);
    let (test_idx, train_idx) = idx.split_at(config.test_size);
    let (train, test) = (d.subset(train_idx), d.subset(test_idx));
    let mut out = SplitResult { values: Vec::new(), selections: Vec::new() };
    let mut push = |name: &str, group: &'static str, pred: &[f64]| {
        let (v, ok) = spearman(pred, &test.y);
        out.values.push((name.to_string(), group, v, ok));
    };
    for (j, name) in d.inputs.iter().enumerate() {
        push(name, "metric", &test.column(j));
    }
    let random: Vec<f64> = (0..test.y.len()).map(|_| rng.gen::<f64>()).collect();
    push("Random", "baseline", &random);

    let scaler = Scaler::fit(&train.x)?;
    let (xs_train, xs_test) = (scaler.transform_all(&train.x), scaler.transform_all(&test.x));
    let linear = Linear::fit(&xs_train, &train.y)?;
    push("Linear (all)", "fusion", &xs_test.iter().map(|r| linear.predict(r)).collect::<Vec<_>>());
    let strategies = if config.strategies { table2_strategies(d.inputs.len()) } else { vec![Strategy::All] };
    let selections = select_many(&strategies, &xs_train, &train.y, seed)?;
    // Strategies often agree on a subset: its grid search runs once.
    let mut by_cols: HashMap<Vec<usize>, Vec<f64>> = HashMap::new();
    for (strategy, cols) in strategies.iter().zip(selections) {
        if !by_cols.contains_key(&cols) {
            let pick = |rows: &[Vec<f64>]| -> Vec<Vec<f64>> {
                rows.iter().map(|r| cols.iter().map(|&c| r[c]).collect()).collect()
            };
            let (svr, _, _) = grid_search(&pick(&xs_train), &train.y, &config.grid, config.folds)?;
            by_cols.insert(cols.clone(), svr.predict_many(&pick(&xs_test)));
        }
        let label = strategy.label();
        push(&label, "strategy", &by_cols[&cols]);
        out.selections.push((label, cols));
    }
    for (kind, name) in [(MoeKind::Concat, "MoE-Concat"), (MoeKind::Gated, "MoE-CIU")] {
        let params = MoeParams { kind, seed, ..config.moe.clone() };
        let model = MoeModel::fit(&train.x, &train.y, &params)?;
        push(name, "fusion", &model.predict_many(&test.x));
    }
    Ok(out)
}

/// Spearman's rho, and whether it was defined (0 when a side is constant).
fn spearman(pred: &[f64], y: &[f64]) -> (f64, bool) {
    match ragjudge_stats::correlation::spearman(pred, y).ok().and_then(|c| c.coefficient) {
        Some(v) if v.is_finite() => (v, true),
        _ => (0.0, false),
    }
}

fn assemble(data: &[Dataset], config: &StudyConfig, per_label: &[Vec<SplitResult>]) -> StudyReport {
    let first = &per_label[0][0];
    let m = data[0].inputs.len();
    let rows = first
        .values
        .iter()
        .enumerate()
        .map(|(k, (name, group, _, _))| {
            let spearman = per_label
                .iter()
                .map(|splits| {
                    let vals: Vec<(f64, bool)> = splits.iter().map(|s| (s.values[k].2, s.values[k].3)).collect();
                    summarize(&vals)
                })
                .collect();
            let selected = (*group == "strategy" && config.strategies).then(|| {
                per_label
                    .iter()
                    .map(|splits| {
                        let mut share = vec![0.0; m];
                        for s in splits {
                            if let Some((_, cols)) = s.selections.iter().find(|(l, _)| l == name) {
                                for &c in cols {
                                    share[c] += 1.0 / splits.len() as f64;
                                }
                            }
                        }
                        share
                    })
                    .collect()
            });
            StudyRow { group, name: name.clone(), spearman, selected }
        })
        .collect();
    StudyReport {
        inputs: data[0].inputs.clone(),
        labels: data.iter().map(|d| d.label.clone()).collect(),
        seeds: config.seeds,
        test_size: config.test_size,
        train_size: data[0].y.len() - config.test_size,
        rows,
    }
}

fn summarize(vals: &[(f64, bool)]) -> SeedSummary {
    let per_seed: Vec<f64> = vals.iter().map(|v| v.0).collect();
    let n = per_seed.len() as f64;
    let mean = per_seed.iter().sum::<f64>() / n;
    let half = if per_seed.len() > 1 {
        let sd = (per_seed.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        let t = StudentsT::new(0.0, 1.0, n - 1.0).map(|d| d.inverse_cdf(0.975)).unwrap_or(f64::NAN);
        t * sd / n.sqrt()
    } else {
        0.0
    };
    SeedSummary {
        mean,
        ci_low: mean - half,
        ci_high: mean + half,
        undefined: vals.iter().filter(|v| !v.1).count(),
        per_seed,
    }
}

impl StudyReport {
    /// The best single metric per label (name, mean).
    pub fn best_single(&self) -> Vec<(String, f64)> {
        (0..self.labels.len())
            .map(|l| {
                self.rows
                    .iter()
                    .filter(|r| r.group == "metric")
                    .map(|r| (r.name.clone(), r.spearman[l].mean))
                    .fold((String::new(), f64::NEG_INFINITY), |a, b| if b.1 > a.1 { b } else { a })
            })
            .collect()
    }

    /// The table as CSV: one row per method, mean and CI per label, selection share per input (first label).
    pub fn to_csv(&self) -> String {
        let mut header = vec!["group".to_string(), "method".to_string()];
        for l in &self.labels {
            header.extend(["mean", "ci_low", "ci_high", "undefined"].map(|c| format!("{l}_{c}")));
        }
        header.extend(self.inputs.iter().map(|i| format!("selected_{i}")));
        let mut out = csv::Writer::from_writer(Vec::new());
        let mut rows = vec![header];
        for r in &self.rows {
            let mut cells = vec![r.group.to_string(), r.name.clone()];
            for s in &r.spearman {
                cells.extend([format!("{:.6}", s.mean), format!("{:.6}", s.ci_low), format!("{:.6}", s.ci_high)]);
                cells.push(s.undefined.to_string());
            }
            for j in 0..self.inputs.len() {
                cells.push(r.selected.as_ref().map(|sel| format!("{:.4}", sel[0][j])).unwrap_or_default());
            }
            rows.push(cells);
        }
        for row in rows {
            // Writing to memory cannot fail.
            out.write_record(&row).ok();
        }
        String::from_utf8(out.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    /// The table as Markdown, shaped like the paper's Tables 1 and 2.
    pub fn to_markdown(&self) -> String {
        let mut out = format!(
            "Spearman correlation with the human labels on {} held-out rows, mean over {} random splits \
             [95% t-interval over splits]; {} training rows per split.\n\n| method |",
            self.test_size, self.seeds, self.train_size
        );
        for l in &self.labels {
            out += &format!(" {l} |");
        }
        for i in &self.inputs {
            out += &format!(" {i} |");
        }
        out += "\n|---|";
        out += &"---|".repeat(self.labels.len() + self.inputs.len());
        out.push('\n');
        let mut ratio = vec![0usize; self.inputs.len()];
        let mut strategies = 0;
        for r in &self.rows {
            out += &format!("| {} |", r.name);
            for s in &r.spearman {
                let undefined = if s.undefined > 0 { format!(" ({} undefined)", s.undefined) } else { String::new() };
                out += &format!(" {:.3} [{:.3}, {:.3}]{undefined} |", s.mean, s.ci_low, s.ci_high);
            }
            match &r.selected {
                Some(sel) => {
                    let counted = r.name != Strategy::All.label();
                    strategies += usize::from(counted);
                    for (j, share) in sel[0].iter().enumerate() {
                        if counted && *share > 0.5 {
                            ratio[j] += 1;
                        }
                        out += &format!(
                            " {} |",
                            if *share == 0.0 { "-".to_string() } else { format!("{:.0}%", share * 100.0) }
                        );
                    }
                }
                None => out += &" |".repeat(self.inputs.len()),
            }
            out.push('\n');
        }
        if strategies > 0 {
            out += "| Selection ratio (strategies other than All keeping the metric in most splits) |";
            out += &" |".repeat(self.labels.len());
            for r in &ratio {
                out += &format!(" {r} ({:.1}%) |", 100.0 * *r as f64 / strategies as f64);
            }
            out.push('\n');
            out += &format!(
                "\nSelection columns: the share of splits in which the strategy kept the metric, for `{}`.\n",
                self.labels[0]
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::JoinCounts;

    #[test]
    fn the_interval_over_splits_is_students_t() {
        // mean 0.2, sd 0.1 (n - 1 = 2), t(0.975, 2) = 4.302653 (scipy.stats.t.ppf):
        // half width 4.302653 * 0.1 / sqrt(3) = 0.248414.
        let s = summarize(&[(0.1, true), (0.2, true), (0.3, false)]);
        assert!((s.mean - 0.2).abs() < 1e-12);
        assert!((s.ci_high - 0.2 - 0.248414).abs() < 1e-6, "{s:?}");
        assert!((0.2 - s.ci_low - 0.248414).abs() < 1e-6, "{s:?}");
        assert_eq!(s.undefined, 1);
    }

    #[test]
    fn a_metric_equal_to_the_label_correlates_perfectly_on_every_split() {
        // Column 0 is the label itself, column 1 noise from a fixed stream.
        let n = 80;
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let y: Vec<f64> = (0..n).map(|i| (i % 17) as f64 + rng.gen::<f64>()).collect();
        let x: Vec<Vec<f64>> = y.iter().map(|&v| vec![v, rng.gen::<f64>()]).collect();
        let data = Dataset {
            inputs: vec!["exact".into(), "noise".into()],
            label: "rating".into(),
            keys: (0..n).map(|i| vec![i.to_string()]).collect(),
            x,
            y,
            counts: JoinCounts::default(),
        };
        let grid = SvrGrid { c: vec![1.0], epsilon: vec![0.1], ..SvrGrid::default() };
        let config = StudyConfig {
            seeds: 3,
            test_size: 20,
            grid,
            folds: 3,
            strategies: true,
            moe: MoeParams { epochs: 5, ..MoeParams::default() },
        };
        let r = run(&[data], &config).unwrap();
        let names: Vec<&str> = r.rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(&names[..4], ["exact", "noise", "Random", "Linear (all)"]);
        assert_eq!(&names[names.len() - 2..], ["MoE-Concat", "MoE-CIU"]);
        let exact = &r.rows[0].spearman[0];
        for v in [exact.mean, exact.ci_low, exact.ci_high] {
            assert!((v - 1.0).abs() < 1e-12, "{exact:?}");
        }
        assert_eq!(exact.per_seed.len(), 3);
        let all = r.rows.iter().find(|r| r.name == "All").unwrap();
        assert_eq!(all.selected.as_ref().unwrap()[0], vec![1.0, 1.0]);
        assert_eq!(r.train_size, 60);
        let md = r.to_markdown();
        assert!(md.contains("| exact | 1.000 [1.000, 1.000] |"), "{md}");
        assert!(r.to_csv().starts_with(
            "group,method,rating_mean,rating_ci_low,rating_ci_high,rating_undefined,selected_exact,selected_noise\n"
        ));
        assert_eq!(r.best_single()[0].0, "exact");
    }
}
