//! Agreement between annotators on the tasks several of them labelled: Krippendorff's alpha
//! (Krippendorff 2011) and Cohen's kappa per pair of annotators with their mean (Light 1971).
//! It is the ceiling any scorer is compared with: a scorer that agrees with one person as well
//! as another person does cannot be asked for more.

use crate::error::HumanError;
use crate::store::{LabelSet, LabelValue};
use crate::task::View;
use ragjudge_artifacts::Artifact;
use ragjudge_stats::{
    krippendorff_alpha, pairwise_cohen_kappa, KrippendorffAlpha, MeasurementLevel, ReliabilityData, Weights,
};
use serde::{Deserialize, Serialize};

/// One reading of the labels (the preference, the A / B / tie label, the grade, a claim's
/// support) with its agreement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Measure {
    /// What was compared, e.g. `preference (-2..2)`.
    pub name: String,
    /// Krippendorff's alpha at the level that fits it.
    pub alpha: KrippendorffAlpha,
    /// The weighting of Cohen's kappa.
    pub kappa_weights: Weights,
    /// Mean Cohen's kappa over pairs of annotators (`None`: no pair shares two labels).
    pub mean_kappa: Option<f64>,
    /// Per pair of annotators: names, shared items, kappa.
    pub pairs: Vec<PairAgreement>,
}

/// Cohen's kappa of two annotators.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PairAgreement {
    /// First annotator.
    pub first: String,
    /// Second annotator.
    pub second: String,
    /// Items both labelled.
    pub items: usize,
    /// Cohen's kappa on them (`None`: undefined, e.g. one label only).
    pub kappa: Option<f64>,
}

/// Agreement between the annotators of one label file (the `annotator-agreement` artifact).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AnnotatorAgreement {
    /// The view labelled.
    pub view: View,
    /// Annotators, in the order first seen.
    pub annotators: Vec<String>,
    /// Tasks with at least one label.
    pub tasks: usize,
    /// Tasks with labels from two or more annotators (the ones agreement is measured on).
    pub shared_tasks: usize,
    /// The measures.
    pub measures: Vec<Measure>,
}

impl Artifact for AnnotatorAgreement {
    const KIND: &'static str = "annotator-agreement";
    const SCHEMA_VERSION: u32 = 1;
}

/// A value of one label under one reading, per item.
type Reading = Vec<(String, String, f64)>;

/// Measures agreement on `set`: pairwise labels as an ordinal preference (-2..2) and as nominal
/// A / B / tie; grades as interval (quadratic-weighted kappa); claims as nominal support, each
/// claim an item.
pub fn agreement(set: &LabelSet) -> Result<AnnotatorAgreement, HumanError> {
    let annotators: Vec<String> = set.annotators().into_iter().map(String::from).collect();
    let mut per_task: std::collections::HashMap<&crate::task::TaskKey, usize> = Default::default();
    for l in &set.labels {
        *per_task.entry(&l.task).or_default() += 1;
    }
    let mut readings: Vec<(&str, MeasurementLevel, Weights, Reading)> = Vec::new();
    let item = |l: &crate::store::HumanLabel| l.task.to_string();
    match set.view {
        View::Pairwise => {
            let pref = set.labels.iter().filter_map(|l| Some((l.annotator.clone(), item(l), l.value.preference()?)));
            readings.push(("preference (-2..2)", MeasurementLevel::Ordinal, Weights::Linear, pref.collect()));
            let sign =
                set.labels.iter().filter_map(|l| Some((l.annotator.clone(), item(l), sign(l.value.preference()?))));
            readings.push(("label (A / tie / B)", MeasurementLevel::Nominal, Weights::None, sign.collect()));
        }
        View::Graded => {
            let grade = set.labels.iter().filter_map(|l| Some((l.annotator.clone(), item(l), l.value.score()?)));
            readings.push(("grade", MeasurementLevel::Interval, Weights::Quadratic, grade.collect()));
        }
        View::Review => {
            let kept = set.labels.iter().filter_map(|l| Some((l.annotator.clone(), item(l), l.value.score()?)));
            readings.push(("question kept", MeasurementLevel::Nominal, Weights::None, kept.collect()));
        }
        View::Claims => {
            let mut claims = Vec::new();
            for l in &set.labels {
                if let LabelValue::Claims { claims: cs } = &l.value {
                    for (i, c) in cs.iter().enumerate() {
                        claims.push((
                            l.annotator.clone(),
                            format!("{} #{}", item(l), i + 1),
                            f64::from(u8::from(c.supported)),
                        ));
                    }
                }
            }
            readings.push(("claim supported", MeasurementLevel::Nominal, Weights::None, claims));
        }
    }
    let mut measures = Vec::new();
    for (name, level, weights, values) in readings {
        let data = ReliabilityData::from_triples(values)?;
        let alpha = krippendorff_alpha(&data.values, level)?;
        let kappa = pairwise_cohen_kappa(&data.values, weights)?;
        let pairs = kappa
            .pairs
            .iter()
            .filter(|p| p.items > 0)
            .map(|p| PairAgreement {
                first: data.annotators[p.first].clone(),
                second: data.annotators[p.second].clone(),
                items: p.items,
                kappa: p.kappa,
            })
            .collect();
        measures.push(Measure { name: name.into(), alpha, kappa_weights: weights, mean_kappa: kappa.mean, pairs });
    }
    Ok(AnnotatorAgreement {
        view: set.view,
        annotators,
        tasks: per_task.len(),
        shared_tasks: per_task.values().filter(|&&n| n >= 2).count(),
        measures,
    })
}

/// -1, 0 or 1 (`f64::signum` gives 1 for 0, which would read a tie as B).
fn sign(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::Scale;
    use crate::test_support::pair;
    use ragjudge_dice::labels::Label;

    #[test]
    fn two_annotators_on_pairs() {
        // Signs: ann A B A tie, bob A B B tie; q5 only ann (not pairable).
        // Nominal alpha by hand: 4 units x 2 values, n = 8. Coincidences: A-A 2 (q1), B-B 2
        // (q2), T-T 2 (q4), A-B 1 + B-A 1 (q3). n_A = 3, n_B = 3, n_T = 2.
        // D_o = 2 / 8; D_e = (n^2 - sum n_c^2) / (n (n - 1)) = (64 - 22) / 56 = 0.75.
        // alpha = 1 - 0.25 / 0.75 = 2/3. Cohen's kappa: p_o = 3/4, p_e = (2*2 + 1*2 + 1*1... )
        // ann: A 2, B 1, T 1; bob: A 1, B 2, T 1 -> p_e = (2*1 + 1*2 + 1*1) / 16 = 5/16;
        // kappa = (3/4 - 5/16) / (11/16) = 7/11.
        let set = LabelSet {
            view: View::Pairwise,
            scale: Scale::Likert5,
            labels: vec![
                pair("ann", "q1", Label::A, 1),
                pair("ann", "q2", Label::B, 2),
                pair("ann", "q3", Label::A, 1),
                pair("ann", "q4", Label::Tie, 1),
                pair("ann", "q5", Label::A, 1),
                pair("bob", "q1", Label::A, 2),
                pair("bob", "q2", Label::B, 2),
                pair("bob", "q3", Label::B, 1),
                pair("bob", "q4", Label::Tie, 1),
            ],
        };
        let a = agreement(&set).unwrap();
        assert_eq!((a.tasks, a.shared_tasks), (5, 4));
        let label = &a.measures[1];
        assert_eq!(label.name, "label (A / tie / B)");
        assert!((label.alpha.alpha.unwrap() - 2.0 / 3.0).abs() < 1e-12, "{:?}", label.alpha);
        assert_eq!(label.pairs.len(), 1);
        assert_eq!((label.pairs[0].first.as_str(), label.pairs[0].items), ("ann", 4));
        assert!((label.mean_kappa.unwrap() - 7.0 / 11.0).abs() < 1e-12);
    }

    #[test]
    fn one_annotator_has_no_agreement() {
        let set =
            LabelSet { view: View::Pairwise, scale: Scale::Likert5, labels: vec![pair("ann", "q1", Label::A, 1)] };
        let a = agreement(&set).unwrap();
        assert_eq!(a.shared_tasks, 0);
        assert_eq!(a.measures[0].alpha.alpha, None);
        assert_eq!(a.measures[0].mean_kappa, None);
    }
}
