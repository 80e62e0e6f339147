//! Shrinkage of a fused score toward the best single input: `lambda fused + (1 - lambda) single`,
//! where `single` is the input with the highest Spearman correlation with the label on the
//! training rows, entered as its own one-input least-squares line on the standardised input with
//! a slope >= 0 (so both terms are in label units and the single term ranks rows as the input
//! does). A fused model that does not transfer then falls back toward a metric that does at least
//! what it alone does (CIU §3.3 fuses metrics because each alone is weak; §6 shows single metrics
//! can still beat learned fusions on some sets).
//!
//! `lambda` is given, or chosen by inner cross-validation on the training rows: the rows are
//! shuffled (seeded) into k folds; on each fold's training part the fused model is refitted and
//! the best single input chosen and fitted again, and both predict the held-out part; `lambda` is
//! then the least-squares weight of the convex combination of the out-of-fold predictions,
//! `clip(sum (y - s)(f - s) / sum (f - s)^2, 0, 1)` (stacked regression with non-negative weights
//! summing to 1, Breiman 1996, *Stacked regressions*, Machine Learning 24).

use crate::dataset::Dataset;
use crate::linear::{Linear, Scaler};
use crate::model::{Model, ModelChoice};
use crate::FusionError;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// How `lambda` is set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ShrinkSetting {
    /// Chosen by inner cross-validation on the training rows.
    Auto,
    /// Given, in [0, 1].
    Lambda(f64),
}

impl FromStr for ShrinkSetting {
    type Err = FusionError;

    /// `auto` or a number in [0, 1].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.trim() == "auto" {
            return Ok(ShrinkSetting::Auto);
        }
        match s.trim().parse::<f64>() {
            Ok(v) if (0.0..=1.0).contains(&v) => Ok(ShrinkSetting::Lambda(v)),
            _ => Err(FusionError::Params(format!("shrink must be `auto` or a number in [0, 1], got `{s}`"))),
        }
    }
}

impl Serialize for ShrinkSetting {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ShrinkSetting::Auto => s.serialize_str("auto"),
            ShrinkSetting::Lambda(v) => s.serialize_f64(*v),
        }
    }
}

/// A fitted shrinkage toward the best single input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Shrink {
    /// The weight of the fused score (1: the fused score alone, 0: the single input alone).
    pub lambda: f64,
    /// Whether `lambda` was chosen by inner cross-validation (else it was given).
    pub cross_validated: bool,
    /// The best single input's position among the model's inputs.
    pub input: usize,
    /// Its Spearman correlation with the label on the training rows.
    pub training_spearman: f64,
    /// Its standardisation (one column).
    pub scaler: Scaler,
    /// Its line, slope >= 0, in label units.
    pub line: Linear,
}

impl Shrink {
    /// Fits the shrinkage of `choice` on `data` (the fused model itself is fitted by the caller);
    /// `folds` and `seed` drive the inner cross-validation of `lambda` under [`ShrinkSetting::Auto`].
    pub fn fit(
        data: &Dataset,
        choice: &ModelChoice,
        setting: ShrinkSetting,
        folds: usize,
        seed: u64,
    ) -> Result<Shrink, FusionError> {
        let (lambda, cross_validated) = match setting {
            ShrinkSetting::Lambda(v) if (0.0..=1.0).contains(&v) => (v, false),
            ShrinkSetting::Lambda(v) => {
                return Err(FusionError::Params(format!("shrink must be a number in [0, 1], got {v}")))
            }
            ShrinkSetting::Auto => (cross_validate(data, choice, folds, seed)?, true),
        };
        let (input, training_spearman) = best_single(&data.x, &data.y)?;
        let (scaler, line) = single_line(&data.x, &data.y, input)?;
        Ok(Shrink { lambda, cross_validated, input, training_spearman, scaler, line })
    }

    /// The shrunk score of a row whose fused score is `fused`.
    pub fn predict(&self, fused: f64, row: &[f64]) -> f64 {
        self.lambda * fused + (1.0 - self.lambda) * self.single(row)
    }

    /// The single input's term alone (its line), in label units.
    pub fn single(&self, row: &[f64]) -> f64 {
        self.line.predict(&self.scaler.transform(&[row[self.input]]))
    }

    /// Checks the numbers against a model of `n_inputs` inputs.
    pub fn validate(&self, n_inputs: usize) -> Result<(), String> {
        if self.input >= n_inputs {
            return Err(format!("shrinkage toward input {} of {n_inputs}", self.input + 1));
        }
        if !(0.0..=1.0).contains(&self.lambda) {
            return Err(format!("shrinkage weight {} is not in [0, 1]", self.lambda));
        }
        let ok = self.scaler.mean.len() == 1
            && self.scaler.sd.first().is_some_and(|s| s.is_finite() && *s > 0.0)
            && self.scaler.mean[0].is_finite()
            && self.line.coef.len() == 1
            && self.line.coef[0] >= 0.0
            && self.line.coef.iter().chain([&self.line.intercept]).all(|v| v.is_finite());
        if ok {
            Ok(())
        } else {
            Err("the shrinkage's single-input line is malformed".into())
        }
    }
}

/// The input with the highest Spearman correlation with `y` (ties: the first), and that
/// correlation; an input whose correlation is undefined (constant) counts as 0.
pub fn best_single(x: &[Vec<f64>], y: &[f64]) -> Result<(usize, f64), FusionError> {
    let m = crate::linear::check_rows(x)?;
    let mut best = (0, f64::NEG_INFINITY);
    for j in 0..m {
        let col: Vec<f64> = x.iter().map(|r| r[j]).collect();
        let rho = ragjudge_stats::correlation::spearman(&col, y)
            .map_err(|e| FusionError::Data(e.to_string()))?
            .coefficient
            .filter(|v| v.is_finite())
            .unwrap_or(0.0);
        if rho > best.1 {
            best = (j, rho);
        }
    }
    Ok(best)
}

/// Input `j`'s standardisation and its one-input least-squares line with slope >= 0.
fn single_line(x: &[Vec<f64>], y: &[f64], j: usize) -> Result<(Scaler, Linear), FusionError> {
    let col: Vec<Vec<f64>> = x.iter().map(|r| vec![r[j]]).collect();
    let scaler = Scaler::fit(&col)?;
    let line = Linear::fit_monotone(&scaler.transform_all(&col), y)?;
    Ok((scaler, line))
}

/// `lambda` from the out-of-fold predictions of the fused model and of the best single input.
fn cross_validate(data: &Dataset, choice: &ModelChoice, folds: usize, seed: u64) -> Result<f64, FusionError> {
    let n = data.y.len();
    if folds < 2 || n < 2 * folds {
        return Err(FusionError::Data(format!(
            "shrink auto: {folds}-fold inner cross-validation needs at least 2 folds and {} rows, got {n}",
            2 * folds.max(2)
        )));
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let (mut fused, mut single, mut truth) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    for fold in 0..folds {
        let test: Vec<usize> = order.iter().copied().skip(fold).step_by(folds).collect();
        let train: Vec<usize> = order.iter().copied().filter(|i| !test.contains(i)).collect();
        let (tr, te) = (data.subset(&train), data.subset(&test));
        if tr.y.iter().all(|&v| v == tr.y[0]) {
            continue;
        }
        let model = Model::fit(&tr, choice)?;
        let (j, _) = best_single(&tr.x, &tr.y)?;
        let (scaler, line) = single_line(&tr.x, &tr.y, j)?;
        for (row, &y) in te.x.iter().zip(&te.y) {
            fused.push(model.predict(row));
            single.push(line.predict(&scaler.transform(&[row[j]])));
            truth.push(y);
        }
    }
    Ok(stacking_weight(&fused, &single, &truth))
}

/// The least-squares weight of `f` in `w f + (1 - w) s` for `y`, clipped to [0, 1] (0 when `f`
/// and `s` agree everywhere, up to rounding: within 1e-12 of the label's own spread).
pub fn stacking_weight(f: &[f64], s: &[f64], y: &[f64]) -> f64 {
    let (mut num, mut den) = (0.0, 0.0);
    for ((f, s), y) in f.iter().zip(s).zip(y) {
        num += (y - s) * (f - s);
        den += (f - s) * (f - s);
    }
    let mean = y.iter().sum::<f64>() / y.len().max(1) as f64;
    let spread: f64 = y.iter().map(|v| (v - mean) * (v - mean)).sum();
    if den > 1e-12 * spread.max(f64::MIN_POSITIVE) {
        (num / den).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stacking_weight_by_hand() {
        // By hand: f = (1, 2, 3), s = (0, 0, 0), y = (0.5, 1, 1.5): y = 0.5 f, so w = 0.5.
        assert!((stacking_weight(&[1.0, 2.0, 3.0], &[0.0; 3], &[0.5, 1.0, 1.5]) - 0.5).abs() < 1e-12);
        // y = s: w = 0; y beyond f: w clipped to 1; f = s: 0.
        assert_eq!(stacking_weight(&[1.0, 2.0], &[0.0, 1.0], &[0.0, 1.0]), 0.0);
        assert_eq!(stacking_weight(&[1.0, 2.0], &[0.0, 0.0], &[3.0, 6.0]), 1.0);
        assert_eq!(stacking_weight(&[1.0, 2.0], &[1.0, 2.0], &[3.0, 6.0]), 0.0);
    }

    #[test]
    fn the_best_single_input_is_the_one_ranking_the_label_best() {
        // Column 1 ranks y exactly (Spearman 1), column 0 reverses it (-1), column 2 is constant (0).
        let x = vec![vec![3.0, 1.0, 5.0], vec![2.0, 2.0, 5.0], vec![1.0, 3.0, 5.0]];
        let (j, rho) = best_single(&x, &[10.0, 20.0, 30.0]).unwrap();
        assert_eq!(j, 1);
        assert!((rho - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_given_lambda_mixes_the_fused_score_with_the_single_inputs_line() {
        // y = 2 b exactly, b = 0..4 (mean 2, population sd sqrt 2); the line on standardised b is
        // y = 4 + 2 sqrt(2) z, i.e. 2 b. With lambda 0.25 and a fused score of 10 at b = 3:
        // 0.25 * 10 + 0.75 * 6 = 7.
        let x: Vec<Vec<f64>> = (0..5).map(|i| vec![f64::from(4 - i), f64::from(i)]).collect();
        let y: Vec<f64> = x.iter().map(|r| 2.0 * r[1]).collect();
        let data = Dataset::from_rows(vec!["a".into(), "b".into()], "y".into(), x, y).unwrap();
        let s =
            Shrink::fit(&data, &ModelChoice::Linear { monotone: false }, ShrinkSetting::Lambda(0.25), 5, 0).unwrap();
        assert_eq!((s.input, s.cross_validated), (1, false));
        assert!((s.predict(10.0, &[1.0, 3.0]) - 7.0).abs() < 1e-9, "{s:?}");
        assert!(s.validate(2).is_ok() && s.validate(1).is_err());
    }

    #[test]
    fn auto_gives_the_fused_score_where_it_is_exact_and_the_single_input_where_that_is() {
        // y = a + b with a and b unrelated: least squares on both is exact out of fold (f = y), so
        // by hand the stacking weight is sum (y - s)^2 / sum (y - s)^2 = 1 whatever single input s is.
        let n = 40;
        let x: Vec<Vec<f64>> = (0..n).map(|i| vec![f64::from(i), f64::from(i * 17 % 13)]).collect();
        let y: Vec<f64> = x.iter().map(|r| r[0] + r[1]).collect();
        let data = Dataset::from_rows(vec!["a".into(), "b".into()], "y".into(), x, y).unwrap();
        let s = Shrink::fit(&data, &ModelChoice::Linear { monotone: false }, ShrinkSetting::Auto, 5, 0).unwrap();
        assert!(s.cross_validated);
        assert!((s.lambda - 1.0).abs() < 1e-9, "{s:?}");
        // y = 2 b: the single input's line is exact out of fold (s = y), MoE's binned score is
        // not, so the weight is 0 / sum (f - y)^2 = 0.
        let x: Vec<Vec<f64>> = (0..n).map(|i| vec![f64::from(i * 17 % 13), f64::from(i)]).collect();
        let y: Vec<f64> = x.iter().map(|r| 2.0 * r[1]).collect();
        let data = Dataset::from_rows(vec!["a".into(), "b".into()], "y".into(), x, y).unwrap();
        let moe = crate::moe::MoeParams { epochs: 3, ..crate::moe::MoeParams::default() };
        let s = Shrink::fit(&data, &ModelChoice::Moe(moe), ShrinkSetting::Auto, 5, 0).unwrap();
        assert_eq!(s.input, 1);
        assert!(s.lambda.abs() < 1e-9, "{s:?}");
        assert!(ShrinkSetting::from_str("2").is_err() && ShrinkSetting::from_str("auto").is_ok());
        assert_eq!(ShrinkSetting::from_str("0.5").unwrap(), ShrinkSetting::Lambda(0.5));
    }
}
