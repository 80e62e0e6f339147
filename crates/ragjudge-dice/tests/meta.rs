//! Judge meta-evaluation with scripted judges: each protocol's verdicts and the table's figures
//! worked by hand, a pure position bias caught, failures counted. No model is loaded.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use ragjudge_dice::meta::evaluate_set;
use ragjudge_dice::meta::items::PairItem;
use ragjudge_dice::pair::{Outcome, Pair, Side};
use ragjudge_dice::protocol::{judge_items, Protocol, ProtocolSettings};
use ragjudge_models::{GenParams, Generation, Judge, LabelProbs, ModelError, ProbSource, Prompt, Usage};

/// How the scripted judge answers.
#[derive(Clone, Copy, PartialEq)]
enum Script {
    /// Two-label: P(a) = 0.8 when Output (a) contains "good", else 0.2. Grades: 5 for "good",
    /// else 2. DICE: A or B (0.7) for the side with "good", 0.1 tie.
    Content,
    /// Two-label: P(a) = 0.9 always; DICE: A (0.8) always. Grades 3 always.
    FirstShown,
    /// Every call fails for outputs containing "boom".
    Content2,
}

struct Scripted {
    script: Script,
    calls: AtomicU64,
}

fn output(user: &str, label: &str) -> String {
    let head = format!("# Output ({label}):\n");
    let start = user.find(&head).map(|i| i + head.len()).unwrap_or(user.len());
    user[start..].split("\n\n").next().unwrap_or_default().to_string()
}

fn probs(labels: &[String], p: &[f64]) -> LabelProbs {
    LabelProbs {
        labels: labels.to_vec(),
        probs: p.to_vec(),
        logits: p.iter().map(|x| x.ln()).collect(),
        label_mass: None,
        source: ProbSource::Logits,
    }
}

impl Judge for Scripted {
    fn identity(&self) -> String {
        "scripted:meta".into()
    }
    fn generate(&self, _: &Prompt, _: &GenParams) -> Result<Generation, ModelError> {
        Ok(Generation { text: "Category A: fully correct\nCategory B: incorrect".into(), ..Default::default() })
    }
    fn label_probs(&self, prompt: &Prompt, labels: &[String]) -> Result<LabelProbs, ModelError> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let user = &prompt.messages.last().unwrap().content;
        if self.script == Script::Content2 && user.contains("boom") {
            return Err(ModelError::Protocol("scripted failure".into()));
        }
        match labels.len() {
            2 => {
                let p = match self.script {
                    Script::FirstShown => 0.9,
                    _ if output(user, "a").contains("good") => 0.8,
                    _ => 0.2,
                };
                Ok(probs(labels, &[p, 1.0 - p]))
            }
            5 => {
                let g = match self.script {
                    Script::FirstShown => 2,
                    _ if user.contains("# Output:\ngood") => 4,
                    _ => 1,
                };
                let mut p = vec![0.0; 5];
                p[g] = 1.0;
                Ok(probs(labels, &p))
            }
            3 => {
                let a_good = user.find("Answer A:\ngood").is_some();
                let p = match self.script {
                    Script::FirstShown => [0.8, 0.1, 0.1],
                    _ if a_good => [0.7, 0.2, 0.1],
                    _ => [0.2, 0.7, 0.1],
                };
                Ok(probs(labels, &p))
            }
            n => Err(ModelError::Protocol(format!("{n} labels"))),
        }
    }
    fn usage(&self) -> Usage {
        Usage {
            calls: self.calls.load(Ordering::Relaxed),
            prompt_tokens: 10 * self.calls.load(Ordering::Relaxed),
            completion_tokens: 0,
        }
    }
}

fn judge(script: Script) -> Arc<dyn Judge> {
    Arc::new(Scripted { script, calls: AtomicU64::new(0) })
}

/// Four pairs: gold is the side with "good" (first, second, first, second).
fn items() -> Vec<PairItem> {
    let side = |a: &str| Side { answer: a.into(), contexts: Vec::new(), system: None };
    [("good", "bad answer here"), ("bad", "good"), ("good, long and detailed", "bad"), ("bad", "good")]
        .iter()
        .enumerate()
        .map(|(i, (a, b))| PairItem {
            set: "toy".into(),
            pair: Pair {
                id: i.to_string(),
                instruction: "Say something.".into(),
                reference: None,
                first: side(a),
                second: side(b),
            },
            gold: if a.starts_with("good") { Outcome::First } else { Outcome::Second },
        })
        .collect()
}

#[test]
fn two_label_follows_content_and_averages_the_orders() {
    let v = judge_items(&judge(Script::Content), Protocol::TwoLabel, &items(), &ProtocolSettings::default());
    let v: Vec<_> = v.into_iter().map(Result::unwrap).collect();
    // Pair 0: ab P(a) = 0.8 -> 0.8 for the first; ba P(a) = 0.2 (a = "bad") -> 1 - 0.2 = 0.8.
    assert!((v[0].s_first - 0.8).abs() < 1e-12);
    assert_eq!(v[0].outcome, Outcome::First);
    assert!((v[1].s_first - 0.2).abs() < 1e-12);
    assert_eq!(v[1].outcome, Outcome::Second);
    let (stats, _) = evaluate_set(
        &judge(Script::Content),
        Protocol::TwoLabel,
        "toy",
        &items(),
        &ProtocolSettings::default(),
        3,
        &|_, _| {},
    );
    assert_eq!((stats.judged, stats.decided, stats.correct), (4, 4, 4));
    assert_eq!(stats.order_consistency, Some(1.0));
    assert_eq!(stats.first_position, Some(0.5));
    assert_eq!(stats.calls, 8);
    assert_eq!(stats.kappa, Some(1.0));
}

#[test]
fn a_pure_position_bias_averages_to_ties_and_is_flagged() {
    let (stats, results) = evaluate_set(
        &judge(Script::FirstShown),
        Protocol::TwoLabel,
        "toy",
        &items(),
        &ProtocolSettings::default(),
        8,
        &|_, _| {},
    );
    // Every pair: ab 0.9 for the first, ba 1 - 0.9 = 0.1 -> mean 0.5 -> a tie at margin 0.
    assert!(results.iter().all(|r| r.verdict.as_ref().unwrap().outcome == Outcome::Tie));
    assert_eq!((stats.decided, stats.accuracy_decided), (0, None));
    assert_eq!(stats.accuracy_with_ties, Some(0.5));
    assert_eq!(stats.order_consistency, Some(0.0));
    assert_eq!(stats.first_position, Some(1.0));
    // DICE's three labels: A at 0.8 in both orders -> first 0.45, second 0.45, tie 0.1: argmax
    // is the first (first of equal maxima), and the orders disagree.
    let (dice, _) = evaluate_set(
        &judge(Script::FirstShown),
        Protocol::Dice,
        "toy",
        &items(),
        &ProtocolSettings::default(),
        8,
        &|_, _| {},
    );
    assert_eq!(dice.order_consistency, Some(0.0));
    assert_eq!(dice.first_position, Some(1.0));
}

#[test]
fn pointwise_compares_expected_grades_with_one_call_per_output() {
    let j = judge(Script::Content);
    let (stats, results) =
        evaluate_set(&j, Protocol::Pointwise, "toy", &items(), &ProtocolSettings::default(), 8, &|_, _| {});
    let v = results[0].verdict.as_ref().unwrap();
    // Grades 5 and 2: 0.5 + 3 / 8.
    assert_eq!(v.grades, Some((5.0, 2.0)));
    assert!((v.s_first - 0.875).abs() < 1e-12);
    // Eight outputs, four distinct ("good", "bad answer here", "bad", "good, long and
    // detailed"): each graded once.
    assert_eq!((stats.correct, stats.decided, stats.calls), (4, 4, 4));
    assert_eq!((stats.order_consistency, stats.first_position), (None, None));
    // Equal grades are a tie at any margin; a margin of 0.4 turns 0.875 into a tie as well.
    let wide = ProtocolSettings { tie_margin: 0.4, ..ProtocolSettings::default() };
    let (stats, _) = evaluate_set(&j, Protocol::Pointwise, "toy", &items(), &wide, 8, &|_, _| {});
    assert_eq!(stats.decided, 0);
}

#[test]
fn dice_protocol_reads_the_three_labels_back_in_pair_terms() {
    let (stats, results) = evaluate_set(
        &judge(Script::Content),
        Protocol::Dice,
        "toy",
        &items(),
        &ProtocolSettings::default(),
        8,
        &|_, _| {},
    );
    let v = results[1].verdict.as_ref().unwrap();
    // Pair 1 ("bad", "good"): ab -> B 0.7; ba shows "good" as A -> A 0.7 = second. Mean: first
    // 0.2, second 0.7, tie 0.1; s_first = 0.2 + 0.05.
    assert!((v.s_first - 0.25).abs() < 1e-12);
    assert_eq!(v.outcome, Outcome::Second);
    assert_eq!((stats.correct, stats.decided), (4, 4));
}

#[test]
fn a_failed_pair_is_recorded_and_left_out_of_the_figures() {
    let mut it = items();
    it[2].pair.second.answer = "boom".into();
    let (stats, results) = evaluate_set(
        &judge(Script::Content2),
        Protocol::TwoLabel,
        "toy",
        &it,
        &ProtocolSettings::default(),
        2,
        &|_, _| {},
    );
    assert_eq!((stats.items, stats.failed, stats.judged), (4, 1, 3));
    assert!(results[2].verdict.is_none() && results[2].error.as_deref().unwrap().contains("scripted failure"));
    assert_eq!(stats.correct, 3);
}

#[test]
fn consistency_figures_by_hand() {
    use ragjudge_dice::meta::consistency_stats;
    let labels = [1.0, 1.0, 0.5, 0.0];
    let scores = [Some(0.9), Some(0.6), Some(0.7), Some(0.1), None];
    let s = consistency_stats("t", "p", &[labels.as_slice(), &[1.0]].concat(), &scores, Some(0.5));
    assert_eq!((s.items, s.failed), (5, 1));
    // Consistent {0.9, 0.6} against {0.7, 0.1}: 3 of 4 pairs ordered right.
    assert_eq!(s.auc, Some(0.75));
    // TPR 2/2, TNR 1/2.
    assert_eq!(s.balanced_accuracy, Some(0.75));
    // Ranks (3.5, 3.5, 2, 1) and (4, 2, 3, 1): r = 3 / sqrt(4.5 x 5).
    assert!((s.spearman.unwrap() - 3.0 / 22.5f64.sqrt()).abs() < 1e-12);
}

#[test]
fn the_ensemble_averages_two_label_and_pointwise_scores() {
    let j = judge(Script::Content);
    let (_, results) =
        evaluate_set(&j, Protocol::Ensemble, "toy", &items(), &ProtocolSettings::default(), 8, &|_, _| {});
    // Pair 0: two-label 0.8, pointwise 0.875 -> 0.8375; orders from the two-label calls.
    let v = results[0].verdict.as_ref().unwrap();
    assert!((v.s_first - 0.8375).abs() < 1e-12);
    assert_eq!(v.orders.len(), 2);
    assert_eq!(v.grades, Some((5.0, 2.0)));
}
