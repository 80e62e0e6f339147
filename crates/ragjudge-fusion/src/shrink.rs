//! Shrinkage of a fused score toward the best single input: with both standardised on the
//! training rows, `lambda z(fused) + (1 - lambda) z(single)`, where `single` is the input with
//! the highest Spearman correlation with the label on the training rows, taken as it is (inputs
//! are oriented so that higher is better), and the result put back on the label's scale
//! (`mean + sd` of the training labels; a score, not a calibrated prediction). A fused model that
//! does not transfer then falls back toward one metric (CIU §3.3 fuses metrics because each alone
//! is weak; on a new data set the learned weights may be what fails).
//!
//! `lambda` is given, or chosen by inner cross-validation on the training rows: the rows are
//! shuffled (seeded) into k folds; on each fold's training part the fused model is refitted, the
//! best single input chosen again and both standardised there, and both predict the held-out
//! part; `lambda` is the value of the grid 0, 0.05, ..., 1 whose combination has the highest mean
//! Spearman correlation with the held-out labels over the folds (the measure the fused score is
//! judged by; per fold, as each fold standardises on its own training part), the smallest such
//! value on ties: toward the single input. A combination that is constant on a fold is no score
//! at all and ranks last. A fused score that is constant on the training rows standardises to 0.

use crate::dataset::Dataset;
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
    /// The weight of the standardised fused score (1: the fused score alone, 0: the input alone).
    pub lambda: f64,
    /// Whether `lambda` was chosen by inner cross-validation (else it was given).
    pub cross_validated: bool,
    /// The best single input's position among the model's inputs.
    pub input: usize,
    /// Its Spearman correlation with the label on the training rows.
    pub training_spearman: f64,
    /// Mean and standard deviation of the fused score on the training rows (sd 0: constant).
    pub fused: Standard,
    /// Mean and standard deviation of the single input on the training rows.
    pub single: Standard,
    /// Mean and standard deviation of the training labels (the scale of the result).
    pub label: Standard,
}

/// A mean and a population standard deviation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Standard {
    /// The mean.
    pub mean: f64,
    /// The population standard deviation.
    pub sd: f64,
}

impl Standard {
    /// Of `v` (non-empty, finite).
    pub fn of(v: &[f64]) -> Standard {
        let n = v.len().max(1) as f64;
        let mean = v.iter().sum::<f64>() / n;
        let sd = (v.iter().map(|a| (a - mean) * (a - mean)).sum::<f64>() / n).sqrt();
        Standard { mean, sd }
    }

    /// `(v - mean) / sd`, 0 when sd is 0.
    pub fn z(&self, v: f64) -> f64 {
        if self.sd > 0.0 {
            (v - self.mean) / self.sd
        } else {
            0.0
        }
    }
}

impl Shrink {
    /// Fits the shrinkage of the model `choice` on `data`, given that model's scores on the
    /// training rows (`fused`, fitted on all of `data` by the caller); `folds` and `seed` drive the
    /// inner cross-validation of `lambda` under [`ShrinkSetting::Auto`].
    pub fn fit(
        data: &Dataset,
        choice: &ModelChoice,
        fused: &[f64],
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
        Ok(Shrink {
            lambda,
            cross_validated,
            input,
            training_spearman,
            fused: Standard::of(fused),
            single: Standard::of(&data.column(input)),
            label: Standard::of(&data.y),
        })
    }

    /// The shrunk score of a row whose fused score is `fused`.
    pub fn predict(&self, fused: f64, row: &[f64]) -> f64 {
        let z = mix(self.lambda, self.fused.z(fused), self.single.z(row[self.input]));
        self.label.mean + self.label.sd * z
    }

    /// The score of a row when the shift check warns ([`crate::shift`]): the single input alone
    /// (`lambda` 0), on the label's scale. `lambda` was chosen on rows like the training rows; on
    /// rows unlike them it has no support, and the score falls back to the input a user without
    /// the fusion would have picked.
    pub fn fallback(&self, row: &[f64]) -> f64 {
        self.label.mean + self.label.sd * self.single.z(row[self.input])
    }

    /// Checks the numbers against a model of `n_inputs` inputs.
    pub fn validate(&self, n_inputs: usize) -> Result<(), String> {
        if self.input >= n_inputs {
            return Err(format!("shrinkage toward input {} of {n_inputs}", self.input + 1));
        }
        if !(0.0..=1.0).contains(&self.lambda) {
            return Err(format!("shrinkage weight {} is not in [0, 1]", self.lambda));
        }
        let finite = [self.fused, self.single, self.label].iter().all(|s| s.mean.is_finite() && s.sd.is_finite());
        if finite && self.single.sd > 0.0 && self.fused.sd >= 0.0 && self.label.sd >= 0.0 {
            Ok(())
        } else {
            Err("the shrinkage's means and deviations are malformed".into())
        }
    }
}

fn mix(lambda: f64, fused: f64, single: f64) -> f64 {
    lambda * fused + (1.0 - lambda) * single
}

/// The input with the highest Spearman correlation with `y` (ties: the first), and that
/// correlation. An input whose correlation is undefined (constant on these rows) carries no
/// evidence and is passed over; an error when every input is.
pub fn best_single(x: &[Vec<f64>], y: &[f64]) -> Result<(usize, f64), FusionError> {
    let m = crate::linear::check_rows(x)?;
    let mut best: Option<(usize, f64)> = None;
    for j in 0..m {
        let col: Vec<f64> = x.iter().map(|r| r[j]).collect();
        let rho = ragjudge_stats::correlation::spearman(&col, y)
            .map_err(|e| FusionError::Data(e.to_string()))?
            .coefficient
            .filter(|v| v.is_finite());
        if let Some(rho) = rho.filter(|r| best.is_none_or(|(_, b)| *r > b)) {
            best = Some((j, rho));
        }
    }
    best.ok_or_else(|| FusionError::Data("no input varies together with the label on the training rows".into()))
}

/// `lambda` from the pooled out-of-fold standardised scores of the fused model and of the best
/// single input (module docs).
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
    let mut out = Vec::with_capacity(folds);
    for fold in 0..folds {
        let test: Vec<usize> = order.iter().copied().skip(fold).step_by(folds).collect();
        let train: Vec<usize> = order.iter().copied().filter(|i| !test.contains(i)).collect();
        let (tr, te) = (data.subset(&train), data.subset(&test));
        if tr.y.iter().all(|&v| v == tr.y[0]) {
            continue;
        }
        let Ok((j, _)) = best_single(&tr.x, &tr.y) else { continue };
        let model = Model::fit(&tr, choice)?;
        let f = Standard::of(&tr.x.iter().map(|r| model.predict(r)).collect::<Vec<_>>());
        let s = Standard::of(&tr.column(j));
        out.push(HeldOut {
            fused: te.x.iter().map(|r| f.z(model.predict(r))).collect(),
            single: te.x.iter().map(|r| s.z(r[j])).collect(),
            y: te.y,
        });
    }
    Ok(choose_lambda(&out))
}

/// One inner fold's held-out rows: the standardised fused and single scores, and the labels.
#[derive(Debug, Clone, PartialEq)]
pub struct HeldOut {
    /// The fused model's standardised scores.
    pub fused: Vec<f64>,
    /// The single input's standardised values.
    pub single: Vec<f64>,
    /// The labels.
    pub y: Vec<f64>,
}

/// The grid value 0, 0.05, ..., 1 whose `lambda fused + (1 - lambda) single` has the highest
/// mean Spearman correlation with the labels over `folds` (undefined on any fold: ranks last),
/// the smallest on ties.
pub fn choose_lambda(folds: &[HeldOut]) -> f64 {
    let mut best = (0.0, f64::NEG_INFINITY);
    for k in 0..=20 {
        let lambda = f64::from(k) / 20.0;
        let mut total = 0.0;
        for h in folds {
            let mixed: Vec<f64> = h.fused.iter().zip(&h.single).map(|(f, s)| mix(lambda, *f, *s)).collect();
            let rho = ragjudge_stats::correlation::spearman(&mixed, &h.y).ok().and_then(|c| c.coefficient);
            total += rho.filter(|v| v.is_finite()).unwrap_or(f64::NEG_INFINITY);
        }
        let mean = total / folds.len().max(1) as f64;
        // A difference within rounding is a tie.
        if mean > best.1 + 1e-12 {
            best = (lambda, mean);
        }
    }
    best.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lambda_by_hand() {
        // s = -f: the mix is (2 lambda - 1) f, whose Spearman with y = f is +1 for lambda > 0.5,
        // undefined at 0.5 and -1 below: the smallest grid value above 0.5 is 0.55.
        let f = vec![1.0, 2.0, 3.0, 4.0];
        let s = vec![-1.0, -2.0, -3.0, -4.0];
        let fold = HeldOut { fused: f.clone(), single: s, y: f.clone() };
        assert_eq!(choose_lambda(std::slice::from_ref(&fold)), 0.55);
        // A constant fused score: every lambda < 1 ranks as the single input, even against the
        // labels (Spearman -0.4 here); lambda 1 is constant, no score at all: 0.
        let flat = HeldOut { fused: vec![0.0; 4], single: f.clone(), y: vec![4.0, 1.0, 3.0, 2.0] };
        assert_eq!(choose_lambda(std::slice::from_ref(&flat)), 0.0);
        // Over two folds the mean counts: fold one as above (+1 above 0.5, -1 below), fold two the
        // single input exact (Spearman 1 for every lambda < 1, undefined at 1): lambda 0.55 to
        // 0.95 give a mean of 1, below 0.5 a mean of 0, and 1 ranks last; the smallest best is 0.55.
        let exact = HeldOut { fused: vec![0.0; 4], single: f.clone(), y: f };
        assert_eq!(choose_lambda(&[fold, exact]), 0.55);
    }

    #[test]
    fn the_best_single_input_is_the_one_ranking_the_label_best() {
        // Column 1 ranks y exactly (Spearman 1), column 0 reverses it (-1), column 2 is constant.
        let x = vec![vec![3.0, 1.0, 5.0], vec![2.0, 2.0, 5.0], vec![1.0, 3.0, 5.0]];
        let (j, rho) = best_single(&x, &[10.0, 20.0, 30.0]).unwrap();
        assert_eq!(j, 1);
        assert!((rho - 1.0).abs() < 1e-12);
        // Without column 1, the reversed column -1 beats the constant one, which is passed over.
        let x: Vec<Vec<f64>> = x.iter().map(|r| vec![r[2], r[0]]).collect();
        let (j, rho) = best_single(&x, &[10.0, 20.0, 30.0]).unwrap();
        assert!(j == 1 && (rho + 1.0).abs() < 1e-12, "{j} {rho}");
        let flat: Vec<Vec<f64>> = x.iter().map(|r| vec![r[0]]).collect();
        assert!(best_single(&flat, &[10.0, 20.0, 30.0]).is_err());
    }

    #[test]
    fn a_given_lambda_mixes_the_standardised_scores_on_the_labels_scale() {
        // b = 0..4 (mean 2, sd sqrt 2), y = 2 b (mean 4, sd 2 sqrt 2); say the fused score on the
        // training rows was 10, 10, 10, 10, 20 (mean 12, sd 4). A row with b = 3 and fused 16:
        // z_f = 1, z_b = 1 / sqrt 2; lambda 0.25: 0.25 + 0.75 / sqrt 2 = 0.780330;
        // 4 + 2 sqrt 2 * 0.780330 = 6.207107.
        let x: Vec<Vec<f64>> = (0..5).map(|i| vec![1.0 + f64::from(i % 2), f64::from(i)]).collect();
        let y: Vec<f64> = x.iter().map(|r| 2.0 * r[1]).collect();
        let data = Dataset::from_rows(vec!["a".into(), "b".into()], "y".into(), x, y).unwrap();
        let fused = [10.0, 10.0, 10.0, 10.0, 20.0];
        let choice = ModelChoice::Linear { monotone: false };
        let s = Shrink::fit(&data, &choice, &fused, ShrinkSetting::Lambda(0.25), 5, 0).unwrap();
        assert_eq!((s.input, s.cross_validated), (1, false));
        assert!((s.predict(16.0, &[0.0, 3.0]) - 6.207_107).abs() < 1e-6, "{s:?}");
        // Under a shift, b alone: 4 + 2 sqrt 2 * (3 - 2) / sqrt 2 = 6, whatever the fused score.
        assert!((s.fallback(&[0.0, 3.0]) - 6.0).abs() < 1e-12, "{s:?}");
        assert!(s.validate(2).is_ok() && s.validate(1).is_err());
    }

    #[test]
    fn auto_takes_the_single_input_where_it_is_exact() {
        // y = 2 b: out of fold the single input ranks y exactly (Spearman 1 at lambda 0), so the
        // smallest lambda reaching 1, 0, is chosen whatever MoE's binned score does.
        let n = 40;
        let x: Vec<Vec<f64>> = (0..n).map(|i| vec![f64::from(i * 17 % 13), f64::from(i)]).collect();
        let y: Vec<f64> = x.iter().map(|r| 2.0 * r[1]).collect();
        let data = Dataset::from_rows(vec!["a".into(), "b".into()], "y".into(), x, y).unwrap();
        let moe = crate::moe::MoeParams { epochs: 3, ..crate::moe::MoeParams::default() };
        let choice = ModelChoice::Moe(moe);
        let fused: Vec<f64> = data.y.clone();
        let s = Shrink::fit(&data, &choice, &fused, ShrinkSetting::Auto, 5, 0).unwrap();
        assert_eq!((s.input, s.lambda, s.cross_validated), (1, 0.0, true));
        assert!(ShrinkSetting::from_str("2").is_err() && ShrinkSetting::from_str("auto").is_ok());
        assert_eq!(ShrinkSetting::from_str("0.5").unwrap(), ShrinkSetting::Lambda(0.5));
    }
}
