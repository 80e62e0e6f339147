//! Fusion across data sets: leave one group out. Every model is fitted on the other groups and
//! scored by its Spearman correlation with the labels of the held-out group, beside each input
//! alone and the best single input chosen on the training groups, with the shift check of the
//! held-out rows against the training rows ([`crate::shift`]). The CIU paper's protocol (§5.2,
//! [`crate::study`]) draws test rows from the same set as the training rows; this one asks
//! whether a fused score learned on some data sets still ranks another as well as a metric does.
//!
//! Methods per split: each input; the best single input by training Spearman; least squares, its
//! monotone form ([`crate::nnls`]), SVR (grid search), MoE-Concat and MoE-CIU, each also shrunk
//! toward the best single input with the weight by inner cross-validation ([`crate::shrink`]).
//! Inputs constant on the training groups carry nothing to learn from and are left out of every
//! fit; least squares also leaves out inputs that are linear combinations of earlier ones. A
//! Spearman that is undefined on the held-out group (a constant prediction) is reported empty and
//! counts as 0 in the means.

use crate::dataset::Dataset;
use crate::linear::dependent_column;
use crate::model::{Model, ModelChoice, OnShift};
use crate::moe::{MoeKind, MoeParams};
use crate::shift::{ShiftReference, ShiftReport, ShiftSettings, SHIFT_BINS};
use crate::shrink::{best_single, Shrink, ShrinkSetting};
use crate::svr::SvrGrid;
use crate::FusionError;
use ragjudge_core::table::{has_column, read_table};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

/// How a transfer study runs.
#[derive(Debug, Clone)]
pub struct TransferConfig {
    /// Folds of the SVR grid search and of the inner cross-validation of the shrinkage.
    pub folds: usize,
    /// The SVR grid.
    pub grid: SvrGrid,
    /// MoE training parameters (the kind is set per method).
    pub moe: MoeParams,
    /// Seed of the MoE fits and of the inner folds.
    pub seed: u64,
    /// When the shift check warns.
    pub shift: ShiftSettings,
    /// What a shrunk model scores when the shift check of its inputs warns on the held-out group.
    pub on_shift: OnShift,
}

/// Bootstrap resamples of the held-out rows for the interval of a method's difference to the
/// best single input.
pub const LOSS_RESAMPLES: usize = 2000;

/// The level of that interval.
pub const LOSS_LEVEL: f64 = 0.95;

/// A method's Spearman on one held-out group.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MethodScore {
    /// `input`, `best-single`, `fusion` or `shrunk`.
    pub group: &'static str,
    /// The method's name.
    pub method: String,
    /// Spearman with the held-out labels; none when undefined (constant prediction).
    pub spearman: Option<f64>,
    /// The [`LOSS_LEVEL`] paired bootstrap interval of (this method - the best single input) in
    /// Spearman over the held-out rows (undefined counted as 0); none when every resample is
    /// undefined.
    pub vs_best_single: Option<(f64, f64)>,
    /// Shrunk methods: the input they fell back to because the shift check of the model's inputs
    /// warned ([`OnShift::Fallback`]).
    pub fell_back_to: Option<String>,
}

/// One held-out group.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TransferSplit {
    /// The held-out group.
    pub held_out: String,
    /// Training rows (the other groups).
    pub train_rows: usize,
    /// Held-out rows.
    pub test_rows: usize,
    /// The best single input on the training groups.
    pub best_single: String,
    /// The inputs the models were fitted on (those not constant on the training groups).
    pub fitted_inputs: Vec<String>,
    /// The held-out rows against the training rows.
    pub shift: ShiftReport,
    /// Per method, in table order.
    pub scores: Vec<MethodScore>,
}

/// A method over all splits, against the best single input chosen on the training groups.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MethodSummary {
    /// The method.
    pub method: String,
    /// `input`, `best-single`, `fusion` or `shrunk`.
    pub group: &'static str,
    /// Mean Spearman over the held-out groups (undefined counted as 0).
    pub mean: f64,
    /// Mean of (method - best single input) over the held-out groups.
    pub mean_vs_best_single: f64,
    /// Held-out groups where the method is more than [`LOSS_MARGIN`] below the best single input.
    pub lost: Vec<String>,
    /// Of those, the ones where the shift check warned.
    pub lost_with_warning: Vec<String>,
    /// Held-out groups lost beyond noise: more than [`LOSS_MARGIN`] below the best single input
    /// and the whole interval of the difference below 0.
    pub lost_beyond_noise: Vec<String>,
    /// Of those, the ones where the shift check warned.
    pub lost_beyond_noise_with_warning: Vec<String>,
}

/// How far below the best single input a method must fall on a split to count as a loss.
pub const LOSS_MARGIN: f64 = 0.02;

/// The study's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TransferReport {
    /// What defines the groups (a column, or the score files).
    pub groups_from: String,
    /// The input columns.
    pub inputs: Vec<String>,
    /// The label column.
    pub label: String,
    /// Per held-out group, in the order groups first appear.
    pub splits: Vec<TransferSplit>,
    /// Per method, in table order.
    pub summary: Vec<MethodSummary>,
}

/// The fused methods: (name, model).
fn fused_methods(config: &TransferConfig) -> Vec<(&'static str, ModelChoice)> {
    let moe = |kind| ModelChoice::Moe(MoeParams { kind, seed: config.seed, ..config.moe.clone() });
    vec![
        ("Linear", ModelChoice::Linear { monotone: false }),
        ("Linear monotone", ModelChoice::Linear { monotone: true }),
        ("SVR", ModelChoice::Svr { grid: config.grid.clone(), folds: config.folds }),
        ("MoE-Concat", moe(MoeKind::Concat)),
        ("MoE-CIU", moe(MoeKind::Gated)),
    ]
}

/// Runs leave-one-group-out on `data`, row i in group `groups[i]`; at least two groups.
pub fn run(
    data: &Dataset,
    groups: &[String],
    groups_from: &str,
    config: &TransferConfig,
) -> Result<TransferReport, FusionError> {
    if groups.len() != data.y.len() {
        return Err(FusionError::Data(format!("{} groups for {} rows", groups.len(), data.y.len())));
    }
    config.shift.validate()?;
    let mut names: Vec<&String> = Vec::new();
    for g in groups {
        if !names.contains(&g) {
            names.push(g);
        }
    }
    if names.len() < 2 {
        return Err(FusionError::Data(format!(
            "{groups_from}: {} group(s); leaving one group out needs at least two",
            names.len()
        )));
    }
    let splits = names
        .par_iter()
        .map(|held| {
            let test: Vec<usize> = (0..groups.len()).filter(|&i| &groups[i] == *held).collect();
            let train: Vec<usize> = (0..groups.len()).filter(|&i| &groups[i] != *held).collect();
            split(data, held, &train, &test, config)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let summary = summarize(&splits);
    Ok(TransferReport {
        groups_from: groups_from.to_string(),
        inputs: data.inputs.clone(),
        label: data.label.clone(),
        splits,
        summary,
    })
}

fn split(
    data: &Dataset,
    held: &str,
    train: &[usize],
    test: &[usize],
    config: &TransferConfig,
) -> Result<TransferSplit, FusionError> {
    let (tr, te) = (data.subset(train), data.subset(test));
    let fail = |e: FusionError| FusionError::Data(format!("held-out group `{held}`: {e}"));
    if tr.y.iter().all(|&v| v == tr.y[0]) {
        return Err(fail(FusionError::Data("every training label is the same".into())));
    }
    let shift = ShiftReference::fit(&tr.x, SHIFT_BINS).map_err(fail)?.check(&data.inputs, &te.x, &config.shift);
    let mut scores = Vec::new();
    let mut predictions = Vec::new();
    let mut push = |group, method: String, pred: Vec<f64>, fell_back_to: Option<String>| {
        let spearman = spearman_of(&pred, &te.y);
        scores.push(MethodScore { group, method, spearman, vs_best_single: None, fell_back_to });
        predictions.push(pred);
    };
    for (j, name) in data.inputs.iter().enumerate() {
        push("input", name.clone(), te.column(j), None);
    }
    let (best, _) = best_single(&tr.x, &tr.y).map_err(fail)?;
    push("best-single", "Best single input (training)".into(), te.column(best), None);
    let varying: Vec<usize> = (0..data.inputs.len()).filter(|&j| tr.x.iter().any(|r| r[j] != tr.x[0][j])).collect();
    if varying.is_empty() {
        return Err(fail(FusionError::Data("every input is constant on the training groups".into())));
    }
    for (name, choice) in fused_methods(config) {
        let mut cols = varying.clone();
        if matches!(choice, ModelChoice::Linear { monotone: false }) {
            while let Some(k) = dependent_column(&columns(&tr, &cols).x) {
                cols.remove(k);
            }
        }
        let (tr_c, te_c) = (columns(&tr, &cols), columns(&te, &cols));
        let model = Model::fit(&tr_c, &choice).map_err(fail)?;
        let fused: Vec<f64> = te_c.x.iter().map(|r| model.predict(r)).collect();
        let on_train: Vec<f64> = tr_c.x.iter().map(|r| model.predict(r)).collect();
        let shrink =
            Shrink::fit(&tr_c, &choice, &on_train, ShrinkSetting::Auto, config.folds, config.seed).map_err(fail)?;
        // As `fuse apply` would: the shift check of the model's own inputs decides the fallback.
        let moved =
            ShiftReference::fit(&tr_c.x, SHIFT_BINS).map_err(fail)?.check(&tr_c.inputs, &te_c.x, &config.shift).warned;
        let fallback = moved && config.on_shift == OnShift::Fallback;
        let shrunk: Vec<f64> = te_c
            .x
            .iter()
            .zip(&fused)
            .map(|(r, f)| if fallback { shrink.fallback(r) } else { shrink.predict(*f, r) })
            .collect();
        push("fusion", name.to_string(), fused, None);
        push("shrunk", format!("{name} + shrink"), shrunk, fallback.then(|| tr_c.inputs[shrink.input].clone()));
    }
    let best_at = data.inputs.len();
    for (k, m) in scores.iter_mut().enumerate() {
        m.vs_best_single = difference_interval(&predictions[k], &predictions[best_at], &te.y, config.seed);
    }
    // Table order: inputs, best single, then each fusion followed by its shrunk form is kept
    // as pushed.
    Ok(TransferSplit {
        held_out: held.to_string(),
        train_rows: tr.y.len(),
        test_rows: te.y.len(),
        best_single: data.inputs[best].clone(),
        fitted_inputs: varying.iter().map(|&j| data.inputs[j].clone()).collect(),
        shift,
        scores,
    })
}

/// Spearman of `pred` with `y`; none when undefined (a constant side).
fn spearman_of(pred: &[f64], y: &[f64]) -> Option<f64> {
    ragjudge_stats::correlation::spearman(pred, y).ok().and_then(|c| c.coefficient).filter(|v| v.is_finite())
}

/// The paired percentile bootstrap interval (rows resampled together, [`LOSS_RESAMPLES`] at
/// [`LOSS_LEVEL`], seeded) of `spearman(a, y) - spearman(b, y)`, undefined counted as 0 as in the
/// means.
fn difference_interval(a: &[f64], b: &[f64], y: &[f64], seed: u64) -> Option<(f64, f64)> {
    let index: Vec<f64> = (0..y.len()).map(|i| i as f64).collect();
    let pick = |v: &[f64], rows: &[f64]| rows.iter().map(|&i| v[i as usize]).collect::<Vec<f64>>();
    let diff = |rows: &[f64]| {
        let ys = pick(y, rows);
        spearman_of(&pick(a, rows), &ys).unwrap_or(0.0) - spearman_of(&pick(b, rows), &ys).unwrap_or(0.0)
    };
    ragjudge_stats::bootstrap::bootstrap_ci(&index, diff, LOSS_RESAMPLES, LOSS_LEVEL, seed)
        .ok()
        .map(|c| (c.low, c.high))
}

/// The group of every row of `data` (joined on `keys`): the cell of `column` in the score file
/// when it has that column, else in the label file; a row whose key has no group cell is an
/// error naming the file and the key.
pub fn groups_from_column(
    data: &Dataset,
    scores: &Path,
    labels: &Path,
    column: &str,
    keys: &[String],
) -> Result<Vec<String>, FusionError> {
    let file = if has_column(scores, column)? { scores } else { labels };
    let mut wanted: Vec<&str> = keys.iter().map(String::as_str).collect();
    wanted.push(column);
    let table = read_table(file, &wanted).map_err(|e| FusionError::Data(e.to_string()))?;
    let mut by_key: HashMap<Vec<String>, String> = HashMap::new();
    for i in 0..table.rows.len() {
        if let Some(g) = table.rows[i].1[keys.len()].as_deref().map(str::trim).filter(|g| !g.is_empty()) {
            by_key.insert(table.key(i, keys.len()), g.to_string());
        }
    }
    data.keys
        .iter()
        .map(|k| {
            by_key.get(k).cloned().ok_or_else(|| {
                FusionError::Data(format!("{}: field `{column}`: no group for the joined row {k:?}", table.name))
            })
        })
        .collect()
}

/// Refuses two score files whose inputs were computed differently (`a` and `b` give each
/// column's recorded definition; a column unknown on either side is not compared).
pub fn check_same_definitions(
    inputs: &[String],
    a_name: &str,
    a: &dyn Fn(&str) -> Option<serde_json::Value>,
    b_name: &str,
    b: &dyn Fn(&str) -> Option<serde_json::Value>,
) -> Result<(), FusionError> {
    for c in inputs {
        if let (Some(x), Some(y)) = (a(c), b(c)) {
            if x != y {
                return Err(FusionError::Data(format!(
                    "input `{c}` is computed differently in {a_name} ({x}) and {b_name} ({y})"
                )));
            }
        }
    }
    Ok(())
}

/// Two data sets (same inputs and label) as one, each row's group the name of its set.
pub fn concat(a: Dataset, a_name: &str, b: Dataset, b_name: &str) -> Result<(Dataset, Vec<String>), FusionError> {
    if a.inputs != b.inputs || a.label != b.label {
        return Err(FusionError::Data(format!("{a_name} and {b_name} have different inputs or labels")));
    }
    if a_name == b_name {
        return Err(FusionError::Data(format!("both groups are called `{a_name}`")));
    }
    let groups = std::iter::repeat_n(a_name.to_string(), a.y.len())
        .chain(std::iter::repeat_n(b_name.to_string(), b.y.len()))
        .collect();
    let mut out = a;
    out.keys.extend(b.keys);
    out.x.extend(b.x);
    out.y.extend(b.y);
    out.counts.joined += b.counts.joined;
    Ok((out, groups))
}

/// `d` restricted to the input columns `cols`.
fn columns(d: &Dataset, cols: &[usize]) -> Dataset {
    Dataset {
        inputs: cols.iter().map(|&j| d.inputs[j].clone()).collect(),
        label: d.label.clone(),
        keys: d.keys.clone(),
        x: d.x.iter().map(|r| cols.iter().map(|&j| r[j]).collect()).collect(),
        y: d.y.clone(),
        counts: d.counts,
    }
}

fn summarize(splits: &[TransferSplit]) -> Vec<MethodSummary> {
    let Some(first) = splits.first() else { return Vec::new() };
    let n = splits.len() as f64;
    let value = |s: &TransferSplit, k: usize| s.scores[k].spearman.unwrap_or(0.0);
    let best_at = first.scores.iter().position(|m| m.group == "best-single").unwrap_or(0);
    (0..first.scores.len())
        .map(|k| {
            let mean = splits.iter().map(|s| value(s, k)).sum::<f64>() / n;
            let diff = splits.iter().map(|s| value(s, k) - value(s, best_at)).sum::<f64>() / n;
            let lost: Vec<&TransferSplit> =
                splits.iter().filter(|s| value(s, k) < value(s, best_at) - LOSS_MARGIN).collect();
            let beyond: Vec<&TransferSplit> = lost
                .iter()
                .copied()
                .filter(|s| s.scores[k].vs_best_single.is_some_and(|(_, high)| high < 0.0))
                .collect();
            let names = |v: &[&TransferSplit]| v.iter().map(|s| s.held_out.clone()).collect::<Vec<_>>();
            let warned =
                |v: &[&TransferSplit]| v.iter().filter(|s| s.shift.warned).map(|s| s.held_out.clone()).collect();
            MethodSummary {
                method: first.scores[k].method.clone(),
                group: first.scores[k].group,
                mean,
                mean_vs_best_single: diff,
                lost: names(&lost),
                lost_with_warning: warned(&lost),
                lost_beyond_noise: names(&beyond),
                lost_beyond_noise_with_warning: warned(&beyond),
            }
        })
        .collect()
}

impl TransferReport {
    /// One row per (held-out group, method): `held_out,test_rows,shift_warned,group,method,spearman`.
    pub fn to_csv(&self) -> String {
        let mut out = String::from(
            "held_out,test_rows,shift_warned,max_psi,max_outside,group,method,spearman,vs_best_low,vs_best_high,fell_back_to\n",
        );
        let mut w = csv::Writer::from_writer(Vec::new());
        for s in &self.splits {
            let max_psi = s.shift.inputs.iter().map(|i| i.psi).fold(0.0, f64::max);
            let max_out = s.shift.inputs.iter().map(|i| i.outside).fold(0.0, f64::max);
            for m in &s.scores {
                let rho = m.spearman.map(|v| format!("{v:.6}")).unwrap_or_default();
                let (low, high) =
                    m.vs_best_single.map(|(l, h)| (format!("{l:.6}"), format!("{h:.6}"))).unwrap_or_default();
                // Writing to memory cannot fail.
                w.write_record([
                    s.held_out.as_str(),
                    &s.test_rows.to_string(),
                    if s.shift.warned { "true" } else { "false" },
                    &format!("{max_psi:.4}"),
                    &format!("{max_out:.4}"),
                    m.group,
                    &m.method,
                    &rho,
                    &low,
                    &high,
                    m.fell_back_to.as_deref().unwrap_or_default(),
                ])
                .ok();
            }
        }
        out += &String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default();
        out
    }

    /// The tables as Markdown: Spearman per method and held-out group, the shift check per
    /// group, and each method against the best single input.
    pub fn to_markdown(&self) -> String {
        let mut out = format!(
            "Leave one group out ({}): each method fitted on the other groups, Spearman with `{}` on the held-out one.\n\n| method |",
            self.groups_from, self.label
        );
        for s in &self.splits {
            let _ = write!(out, " {} |", s.held_out);
        }
        out += " mean | vs best single |\n|---|";
        out += &"---|".repeat(self.splits.len() + 2);
        out.push('\n');
        for (k, m) in self.summary.iter().enumerate() {
            let _ = write!(out, "| {} |", m.method);
            for s in &self.splits {
                let cell = s.scores[k].spearman.map(|v| format!("{v:.3}")).unwrap_or_else(|| "-".into());
                if m.group == "best-single" {
                    let _ = write!(out, " {cell} ({}) |", s.best_single);
                } else if let Some(input) = &s.scores[k].fell_back_to {
                    let _ = write!(out, " {cell} (fallback: {input}) |");
                } else {
                    let _ = write!(out, " {cell} |");
                }
            }
            let _ = writeln!(out, " {:.3} | {:+.3} |", m.mean, m.mean_vs_best_single);
        }
        out += "| test rows |";
        for s in &self.splits {
            let _ = write!(out, " {} |", s.test_rows);
        }
        out += " | |\n| shift warning |";
        for s in &self.splits {
            let moved: Vec<&str> = s.shift.inputs.iter().filter(|i| i.warn).map(|i| i.input.as_str()).collect();
            let max_psi = s.shift.inputs.iter().map(|i| i.psi).fold(0.0, f64::max);
            let max_out = s.shift.inputs.iter().map(|i| i.outside).fold(0.0, f64::max);
            let cell = if moved.is_empty() { "no".to_string() } else { format!("**yes** ({})", moved.len()) };
            let _ = write!(out, " {cell}, PSI {max_psi:.2}, out {:.0}% |", 100.0 * max_out);
        }
        out += " | |\n\n";
        let _ = writeln!(
            out,
            "Against the best single input chosen on the training groups (a loss: more than {LOSS_MARGIN} below it; \
             beyond noise: also the whole {:.0}% paired bootstrap interval of the difference below 0; \
             `fallback`: a shrunk model whose inputs the shift check flagged scores as its single input):\n\n\
             | method | mean vs best single | held-out groups lost | of which the shift check warned | lost beyond noise | of which warned |\n\
             |---|---|---|---|---|---|",
            100.0 * LOSS_LEVEL
        );
        let list = |v: &[String]| if v.is_empty() { "-".to_string() } else { v.join(", ") };
        for m in self.summary.iter().filter(|m| m.group == "fusion" || m.group == "shrunk") {
            let _ = writeln!(
                out,
                "| {} | {:+.3} | {} | {} of {} | {} | {} of {} |",
                m.method,
                m.mean_vs_best_single,
                list(&m.lost),
                m.lost_with_warning.len(),
                m.lost.len(),
                list(&m.lost_beyond_noise),
                m.lost_beyond_noise_with_warning.len(),
                m.lost_beyond_noise.len()
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::JoinCounts;

    fn config() -> TransferConfig {
        TransferConfig {
            folds: 3,
            grid: SvrGrid { c: vec![1.0], epsilon: vec![0.1], ..SvrGrid::default() },
            moe: MoeParams { epochs: 3, ..MoeParams::default() },
            seed: 0,
            shift: ShiftSettings::default(),
            on_shift: OnShift::Fallback,
        }
    }

    #[test]
    fn each_group_is_held_out_once_and_an_exact_input_ranks_it_perfectly() {
        // Group A: rows 0..30, group B: 30..60; input `exact` is the label, `flat` is constant on
        // A and rises on B (so it cannot be fitted from A and warns when B is held out).
        let n = 60;
        let y: Vec<f64> = (0..n).map(|i| f64::from((i * 7) % 23)).collect();
        let x: Vec<Vec<f64>> = (0..n).map(|i| vec![y[i as usize], if i < 30 { 0.0 } else { f64::from(i) }]).collect();
        let data = Dataset {
            inputs: vec!["exact".into(), "flat".into()],
            label: "h".into(),
            keys: (0..n).map(|i| vec![i.to_string()]).collect(),
            x,
            y,
            counts: JoinCounts::default(),
        };
        let groups: Vec<String> = (0..n).map(|i| if i < 30 { "A".into() } else { "B".into() }).collect();
        let r = run(&data, &groups, "g", &config()).unwrap();
        assert_eq!(r.splits.iter().map(|s| s.held_out.as_str()).collect::<Vec<_>>(), ["A", "B"]);
        let b = &r.splits[1];
        assert_eq!((b.train_rows, b.test_rows, b.best_single.as_str()), (30, 30, "exact"));
        assert_eq!(b.fitted_inputs, ["exact"], "`flat` is constant on A");
        // Every value of `flat` in B (30..59) lies above A's range [0, 0].
        assert_eq!(b.shift.inputs[1].outside, 1.0);
        assert!(b.shift.warned);
        let exact = b.scores.iter().find(|m| m.method == "exact").unwrap();
        assert_eq!(exact.spearman, Some(1.0));
        let best = r.summary.iter().find(|m| m.group == "best-single").unwrap();
        assert!((best.mean - 1.0).abs() < 1e-12 && best.mean_vs_best_single == 0.0);
        let methods: Vec<&str> = r.summary.iter().map(|m| m.method.as_str()).collect();
        assert_eq!(
            methods,
            [
                "exact",
                "flat",
                "Best single input (training)",
                "Linear",
                "Linear + shrink",
                "Linear monotone",
                "Linear monotone + shrink",
                "SVR",
                "SVR + shrink",
                "MoE-Concat",
                "MoE-Concat + shrink",
                "MoE-CIU",
                "MoE-CIU + shrink"
            ]
        );
        // Least squares on `exact` alone is a rising line: Spearman 1 on both groups.
        let lin = r.summary.iter().find(|m| m.method == "Linear").unwrap();
        assert!((lin.mean - 1.0).abs() < 1e-12 && lin.lost.is_empty(), "{lin:?}");
        let md = r.to_markdown();
        assert!(
            md.contains("| Best single input (training) | 1.000 (exact) | 1.000 (exact) | 1.000 | +0.000 |"),
            "{md}"
        );
        assert!(r
            .to_csv()
            .starts_with("held_out,test_rows,shift_warned,max_psi,max_outside,group,method,spearman,vs_best_low,vs_best_high,fell_back_to\nA,30,"));
    }

    #[test]
    fn groups_come_from_the_score_file_or_else_the_label_file_and_files_concatenate() {
        let dir = tempfile::tempdir().unwrap();
        let scores = dir.path().join("s.csv");
        std::fs::write(&scores, "id,a\nq1,0.1\nq2,0.2\nq3,0.3\n").unwrap();
        let labels = dir.path().join("l.csv");
        std::fs::write(&labels, "id,h,domain\nq1,1,x\nq2,2,y\nq3,3,\n").unwrap();
        let keys = vec!["id".to_string()];
        let data = crate::dataset::load(&scores, &["a".into()], &labels, "h", &keys).unwrap();
        let e = groups_from_column(&data, &scores, &labels, "domain", &keys).unwrap_err().to_string();
        assert_eq!(e, format!("{}: field `domain`: no group for the joined row [\"q3\"]", labels.display()));
        let two = data.subset(&[0, 1]);
        assert_eq!(groups_from_column(&two, &scores, &labels, "domain", &keys).unwrap(), ["x", "y"]);
        let (both, groups) = concat(two.clone(), "first", data.subset(&[2]), "second").unwrap();
        assert_eq!((both.y, groups), (vec![1.0, 2.0, 3.0], vec!["first".to_string(), "first".into(), "second".into()]));
        assert!(concat(two.clone(), "s", two, "s").is_err());
    }

    #[test]
    fn shrunk_models_fall_back_where_their_inputs_moved_and_losses_get_an_interval() {
        // Group B is group A moved up by 100 in `a` (y = a^2 on 0..30 in both): the check of the
        // models' one input warns both ways, so every shrunk model scores as `a` itself.
        let a: Vec<f64> = (0..60).map(|i| f64::from(i % 30) + if i < 30 { 0.0 } else { 100.0 }).collect();
        let y: Vec<f64> = (0..60).map(|i| f64::from((i % 30) * (i % 30))).collect();
        let data = Dataset::from_rows(vec!["a".into()], "h".into(), a.iter().map(|v| vec![*v]).collect(), y).unwrap();
        let groups: Vec<String> = (0..60).map(|i| if i < 30 { "A".into() } else { "B".into() }).collect();
        let r = run(&data, &groups, "g", &config()).unwrap();
        for s in &r.splits {
            assert!(s.shift.warned);
            for m in s.scores.iter().filter(|m| m.group == "shrunk") {
                assert_eq!((m.fell_back_to.as_deref(), m.spearman), (Some("a"), Some(1.0)), "{m:?}");
                assert_eq!(m.vs_best_single, Some((0.0, 0.0)));
            }
        }
        let kept = run(&data, &groups, "g", &TransferConfig { on_shift: OnShift::Keep, ..config() }).unwrap();
        assert!(kept.splits.iter().flat_map(|s| &s.scores).all(|m| m.fell_back_to.is_none()));
        assert!(r.to_markdown().contains("(fallback: a)"));
        // An input that ranks the labels backwards against one that ranks them exactly: every
        // resample gives 1 - (-1) the other way round.
        let y: Vec<f64> = (0..30).map(f64::from).collect();
        let back: Vec<f64> = y.iter().map(|v| -v).collect();
        let (low, high) = difference_interval(&back, &y, &y, 0).unwrap();
        assert!((low + 2.0).abs() < 1e-12 && (high + 2.0).abs() < 1e-12, "{low} {high}");
        assert_eq!(difference_interval(&y, &y, &y, 0), Some((0.0, 0.0)));
    }

    #[test]
    fn one_group_is_refused() {
        let data =
            Dataset::from_rows(vec!["a".into()], "h".into(), vec![vec![1.0], vec![2.0]], vec![1.0, 2.0]).unwrap();
        let e = run(&data, &["x".into(), "x".into()], "col `g`", &config()).unwrap_err();
        assert_eq!(e.to_string(), "col `g`: 1 group(s); leaving one group out needs at least two");
    }
}
