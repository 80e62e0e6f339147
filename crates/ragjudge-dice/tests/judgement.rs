//! Pairwise judgement with scripted judges: swap mapping, prompt layout, category parsing and
//! label-prior correction. No model is loaded.

use std::sync::{Arc, Mutex};

use approx::assert_abs_diff_eq;
use ragjudge_core::text::Lang;
use ragjudge_core::{Context, Record};
use ragjudge_dice::calibration::{apply, estimate_with, LabelPrior};
use ragjudge_dice::judgement::{find_category_lines, Category, JudgeOptions, PairwiseJudge, Probs};
use ragjudge_dice::prompts::{judge_prompt, question_block, template, PROMPT_VERSION_EN, PROMPT_VERSION_ZH};
use ragjudge_dice::traces::{TraceRecord, TraceWriter};
use ragjudge_models::{GenParams, Generation, Judge, LabelProbs, ModelError, ProbSource, Prompt, Usage};

const GOOD: &str = "Paris is the capital of France.";
const BAD: &str = "Lyon is the capital of France.";
const REASONING: &str =
    "Answer A matches the reference; answer B names the wrong city.\nCategory A: fully correct\nCategory B: incorrect";

/// How the scripted judge picks its verdict.
#[derive(Clone, Copy)]
enum Script {
    /// Always "A" (p = 0.8, 0.1, 0.1), whatever the content: pure position bias.
    AlwaysA,
    /// Prefers the answer containing GOOD: "A" when GOOD is shown first, else "B".
    FollowsContent,
}

struct ScriptedJudge {
    script: Script,
    generated: Mutex<Vec<Prompt>>,
    scored: Mutex<Vec<Prompt>>,
    batches: Mutex<Vec<(&'static str, usize)>>,
}

impl ScriptedJudge {
    fn new(script: Script) -> Arc<Self> {
        Arc::new(Self {
            script,
            generated: Mutex::new(Vec::new()),
            scored: Mutex::new(Vec::new()),
            batches: Mutex::new(Vec::new()),
        })
    }
}

fn user_text(p: &Prompt) -> &str {
    &p.messages.iter().find(|m| m.role == "user").unwrap().content
}

impl Judge for ScriptedJudge {
    fn identity(&self) -> String {
        "scripted:test".into()
    }

    fn generate(&self, prompt: &Prompt, _params: &GenParams) -> Result<Generation, ModelError> {
        self.generated.lock().unwrap().push(prompt.clone());
        Ok(Generation { text: REASONING.into(), finish_reason: "stop".into(), ..Default::default() })
    }

    fn label_probs(&self, prompt: &Prompt, labels: &[String]) -> Result<LabelProbs, ModelError> {
        self.scored.lock().unwrap().push(prompt.clone());
        assert_eq!(labels, ["A", "B", "C"]);
        let probs = match self.script {
            Script::AlwaysA => vec![0.8, 0.1, 0.1],
            Script::FollowsContent => {
                let u = user_text(prompt);
                match (u.find(GOOD), u.find(BAD)) {
                    (Some(g), Some(b)) if g < b => vec![0.7, 0.2, 0.1],
                    (Some(_), Some(_)) => vec![0.2, 0.7, 0.1],
                    _ => vec![0.2, 0.2, 0.6],
                }
            }
        };
        let logits = probs.iter().map(|p: &f64| p.ln()).collect();
        Ok(LabelProbs { labels: labels.to_vec(), probs, logits, label_mass: Some(0.9), source: ProbSource::Logits })
    }

    fn generate_many(&self, requests: &[(Prompt, GenParams)]) -> Vec<Result<Generation, ModelError>> {
        self.batches.lock().unwrap().push(("generate", requests.len()));
        requests.iter().map(|(p, g)| self.generate(p, g)).collect()
    }

    fn label_probs_many(&self, requests: &[(Prompt, Vec<String>)]) -> Vec<Result<LabelProbs, ModelError>> {
        self.batches.lock().unwrap().push(("label_probs", requests.len()));
        requests.iter().map(|(p, l)| self.label_probs(p, l)).collect()
    }

    fn usage(&self) -> Usage {
        Usage::default()
    }
}

fn record(id: &str, system: &str, query: &str, answer: &str, reference: Option<&str>) -> Record {
    Record {
        id: id.into(),
        system: system.into(),
        query: query.into(),
        answer: answer.into(),
        reference: reference.map(str::to_string),
        contexts: vec![
            Context { text: format!("{system} passage one"), ..Default::default() },
            Context { text: format!("{system} passage two"), ..Default::default() },
        ],
        ..Default::default()
    }
}

fn pair() -> (Record, Record) {
    let q = "What is the capital of France?";
    let r = Some("Paris.");
    (record("q1", "good", q, GOOD, r), record("q1", "bad", q, BAD, r))
}

#[test]
fn position_biased_judge_averages_to_even_and_is_inconsistent() {
    let judge = ScriptedJudge::new(Script::AlwaysA);
    let pj = PairwiseJudge::new(judge.clone(), JudgeOptions::default());
    let (a, b) = pair();
    let j = pj.judge_pair(&a, &b).unwrap();
    assert_eq!(j.orders.len(), 2);
    assert_eq!(j.orders[0].order, "ab");
    assert_eq!(j.orders[1].order, "ba");
    // ab: A shown first and said "A": (0.8, 0.1, 0.1). ba: b shown first, "A" means b.
    assert_eq!(j.orders[0].probs, Probs { a: 0.8, b: 0.1, tie: 0.1 });
    assert_eq!(j.orders[1].probs, Probs { a: 0.1, b: 0.8, tie: 0.1 });
    assert_abs_diff_eq!(j.probs.a, 0.45, epsilon = 1e-12);
    assert_abs_diff_eq!(j.probs.b, 0.45, epsilon = 1e-12);
    assert_abs_diff_eq!(j.probs.tie, 0.1, epsilon = 1e-12);
    assert!(!j.order_consistent);
    // Raw label probabilities stay in presentation terms.
    assert_eq!(j.orders[1].label_probs.probs, vec![0.8, 0.1, 0.1]);
}

#[test]
fn content_following_judge_is_consistent_and_maps_back() {
    let judge = ScriptedJudge::new(Script::FollowsContent);
    let pj = PairwiseJudge::new(judge.clone(), JudgeOptions::default());
    let (a, b) = pair();
    let j = pj.judge_pair(&a, &b).unwrap();
    assert_eq!(j.orders[0].probs, Probs { a: 0.7, b: 0.2, tie: 0.1 });
    // ba: BAD shown first, GOOD second -> judge says "B" (0.7) -> original A.
    assert_eq!(j.orders[1].probs, Probs { a: 0.7, b: 0.2, tie: 0.1 });
    assert_abs_diff_eq!(j.probs.a, 0.7, epsilon = 1e-12);
    assert!(j.order_consistent);
    // And from the other side: b judged against a.
    let k = pj.judge_pair(&b, &a).unwrap();
    assert_abs_diff_eq!(k.probs.b, 0.7, epsilon = 1e-12);
    assert_abs_diff_eq!(k.probs.a, 0.2, epsilon = 1e-12);
    assert_eq!((k.system_a.as_str(), k.system_b.as_str()), ("bad", "good"));
}

#[test]
fn categories_are_mapped_back_to_the_original_records() {
    let judge = ScriptedJudge::new(Script::FollowsContent);
    let pj = PairwiseJudge::new(judge, JudgeOptions::default());
    let (a, b) = pair();
    let j = pj.judge_pair(&a, &b).unwrap();
    // The script always says "Category A: fully correct", i.e. about whatever was shown first.
    assert_eq!(j.orders[0].category_a, Some(Category::FullyCorrect));
    assert_eq!(j.orders[0].category_b, Some(Category::Incorrect));
    assert_eq!(j.orders[1].category_a, Some(Category::Incorrect));
    assert_eq!(j.orders[1].category_b, Some(Category::FullyCorrect));
    assert_eq!(j.orders[1].category_b_raw.as_deref(), Some("fully correct"));
    assert_eq!(j.orders[0].reasoning, REASONING);
}

#[test]
fn no_swap_judges_one_order() {
    let judge = ScriptedJudge::new(Script::AlwaysA);
    let pj = PairwiseJudge::new(judge.clone(), JudgeOptions { swap: false, ..Default::default() });
    let (a, b) = pair();
    let j = pj.judge_pair(&a, &b).unwrap();
    assert_eq!(j.orders.len(), 1);
    assert_eq!(j.probs, Probs { a: 0.8, b: 0.1, tie: 0.1 });
    assert!(j.order_consistent);
}

#[test]
fn stage_two_prefix_is_reasoning_then_verdict_line() {
    let judge = ScriptedJudge::new(Script::AlwaysA);
    let pj = PairwiseJudge::new(judge.clone(), JudgeOptions::default());
    let (a, b) = pair();
    pj.judge_pair(&a, &b).unwrap();
    let scored = judge.scored.lock().unwrap();
    let generated = judge.generated.lock().unwrap();
    assert_eq!(
        scored[0].assistant_prefix.as_deref(),
        Some(format!("{REASONING}\nVerdict (A, B or C for a tie):").as_str())
    );
    assert_eq!(scored[0].messages, generated[0].messages);
    assert!(generated[0].assistant_prefix.is_none());
}

#[test]
fn no_reasoning_skips_stage_one() {
    let judge = ScriptedJudge::new(Script::FollowsContent);
    let pj = PairwiseJudge::new(judge.clone(), JudgeOptions { reasoning: false, ..Default::default() });
    let (a, b) = pair();
    let j = pj.judge_pair(&a, &b).unwrap();
    assert!(judge.generated.lock().unwrap().is_empty());
    let scored = judge.scored.lock().unwrap();
    assert_eq!(scored[0].assistant_prefix.as_deref(), Some("Verdict (A, B or C for a tie):"));
    assert!(!user_text(&scored[0]).contains("Category A:"));
    assert_eq!(j.orders[0].category_a, None);
    assert!(j.order_consistent && !j.reasoning);
}

#[test]
fn many_pairs_batch_all_stage_one_then_all_stage_two() {
    let judge = ScriptedJudge::new(Script::FollowsContent);
    let pj = PairwiseJudge::new(judge.clone(), JudgeOptions::default());
    let (a, b) = pair();
    let c = record("q2", "good", "Capital of Italy?", "Rome.", Some("Rome"));
    let d = record("q2", "bad", "Capital of Italy?", "Milan.", Some("Rome"));
    let out = pj.judge_pairs_many(&[(&a, &b), (&c, &d), (&b, &a)]);
    assert_eq!(out.len(), 3);
    assert_eq!(*judge.batches.lock().unwrap(), vec![("generate", 6), ("label_probs", 6)]);
    assert_eq!(out[1].as_ref().unwrap().question_id, "q2");
    assert_abs_diff_eq!(out[0].as_ref().unwrap().probs.a, 0.7, epsilon = 1e-12);
    assert_abs_diff_eq!(out[2].as_ref().unwrap().probs.b, 0.7, epsilon = 1e-12);
}

#[test]
fn reference_free_prompt_has_no_reference_section() {
    let q = "Who wrote Hamlet?";
    let a = record("q3", "s1", q, "Shakespeare.", None);
    let b = record("q3", "s2", q, "Marlowe.", None);
    let p = judge_prompt(Lang::En, q, None, &a, &b, true);
    let u = user_text(&p);
    assert!(!u.contains("Reference answer:\n"));
    assert!(u.contains(&template(Lang::En).no_reference));
    let judge = ScriptedJudge::new(Script::AlwaysA);
    let j = PairwiseJudge::new(judge.clone(), JudgeOptions::default()).judge_pair(&a, &b).unwrap();
    assert!(j.reference_free);
    assert!(judge.generated.lock().unwrap().iter().all(|p| !user_text(p).contains("Reference answer:\n")));
    // With a reference, it is there verbatim.
    let with = judge_prompt(Lang::En, q, Some("William Shakespeare"), &a, &b, true);
    assert!(user_text(&with).contains("Reference answer:\nWilliam Shakespeare"));
}

#[test]
fn prompt_layout_puts_question_reference_then_answers_with_numbered_evidence() {
    let (a, b) = pair();
    let p = judge_prompt(Lang::En, &a.query, a.reference.as_deref(), &a, &b, true);
    assert_eq!(p.messages[0].role, "system");
    let u = user_text(&p);
    let pos = |s: &str| u.find(s).unwrap_or_else(|| panic!("missing {s:?}"));
    assert!(u.starts_with("Question:\nWhat is the capital of France?"));
    assert!(pos("Reference answer:") < pos("Answer A:"));
    assert!(pos("Answer A:") < pos(GOOD));
    assert!(pos("[1] good passage one") < pos("[2] good passage two"));
    assert!(pos("[2] good passage two") < pos("Answer B:"));
    assert!(pos("Answer B:") < pos("[1] bad passage one"));
    assert!(u.trim_end().ends_with("Category B: <category>"));
}

#[test]
fn chinese_question_picks_the_chinese_prompt() {
    let q = "贵州茅台2023年的营业收入是多少？";
    let a = record("z1", "s1", q, "约1505亿元。", Some("1505.6亿元"));
    let b = record("z1", "s2", q, "信息不足。", Some("1505.6亿元"));
    let judge = ScriptedJudge::new(Script::AlwaysA);
    let pj = PairwiseJudge::new(judge.clone(), JudgeOptions::default());
    let j = pj.judge_pair(&a, &b).unwrap();
    assert_eq!(j.prompt_version, PROMPT_VERSION_ZH);
    assert_eq!(j.lang, "zh");
    {
        let generated = judge.generated.lock().unwrap();
        assert_eq!(generated[0].messages[0].content, template(Lang::Zh).system);
        assert!(user_text(&generated[0]).starts_with("问题：\n贵州茅台"));
    }
    // An explicit language wins over detection.
    let en = PairwiseJudge::new(judge.clone(), JudgeOptions { lang: Some(Lang::En), ..Default::default() });
    assert_eq!(en.judge_pair(&a, &b).unwrap().prompt_version, PROMPT_VERSION_EN);
    // English questions get the English prompt.
    let (c, d) = pair();
    assert_eq!(pj.judge_pair(&c, &d).unwrap().prompt_version, PROMPT_VERSION_EN);
}

fn flat(p: &Prompt) -> String {
    p.messages.iter().map(|m| format!("<{}>{}", m.role, m.content)).collect()
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

#[test]
fn pairs_of_one_question_share_system_question_and_reference() {
    let q = "What is the capital of France?";
    let r = Some("Paris.");
    let s1 = record("q1", "s1", q, GOOD, r);
    let s2 = record("q1", "s2", q, BAD, r);
    let s3 = record("q1", "s3", q, "Marseille.", r);
    let s4 = record("q1", "s4", q, "I do not know.", r);
    let p12 = flat(&judge_prompt(Lang::En, q, r, &s1, &s2, true));
    let p34 = flat(&judge_prompt(Lang::En, q, r, &s3, &s4, true));
    let head = format!("<system>{}<user>{}", template(Lang::En).system, question_block(Lang::En, q, r));
    assert!(p12.starts_with(&head) && p34.starts_with(&head));
    assert!(common_prefix(&p12, &p34) >= head.len());
}

#[test]
fn category_parsing_is_tolerant() {
    let cases = [
        ("Category A: fully correct\nCategory B: incorrect", Some(Category::FullyCorrect), Some(Category::Incorrect)),
        (
            "**Category A:** Partially Correct.\n- category b: INSUFFICIENT INFORMATION",
            Some(Category::PartiallyCorrect),
            Some(Category::InsufficientInformation),
        ),
        ("类别 A：完全正确\n类别 B：错误", Some(Category::FullyCorrect), Some(Category::Incorrect)),
        (
            "Category A：部分正确\nCategory B: 信息不足",
            Some(Category::PartiallyCorrect),
            Some(Category::InsufficientInformation),
        ),
        ("Category A: not correct\nCategory B: correct", Some(Category::Incorrect), Some(Category::FullyCorrect)),
        ("Category A: banana\nno b line here", None, None),
        ("Category A: incorrect\nlater\nCategory A: fully correct", Some(Category::FullyCorrect), None),
        ("类别A: 不正确\n类别B: 正确", Some(Category::Incorrect), Some(Category::FullyCorrect)),
    ];
    for (text, ea, eb) in cases {
        let (ra, rb) = find_category_lines(text);
        assert_eq!(ra.as_deref().and_then(Category::parse), ea, "{text:?}");
        assert_eq!(rb.as_deref().and_then(Category::parse), eb, "{text:?}");
    }
    assert_eq!(find_category_lines("Category A: banana").0.as_deref(), Some("banana"));
    assert_eq!(find_category_lines("nothing").0, None);
    assert!(Category::FullyCorrect < Category::PartiallyCorrect);
    assert!(Category::InsufficientInformation < Category::Incorrect);
}

#[test]
fn bias_correction_by_hand() {
    // Prior (0.8, 0.1, 0.1) in presentation terms. Always-A output (0.8, 0.1, 0.1) is exactly the
    // prior, so corrected it is uniform in both orders.
    let prior = LabelPrior { probs: [0.8, 0.1, 0.1], n: 9 };
    let judge = ScriptedJudge::new(Script::AlwaysA);
    let pj = PairwiseJudge::new(judge.clone(), JudgeOptions { bias: Some(prior.clone()), ..Default::default() });
    let (a, b) = pair();
    let j = pj.judge_pair(&a, &b).unwrap();
    for o in &j.orders {
        let c = o.corrected.unwrap();
        assert_abs_diff_eq!(c.a, 1.0 / 3.0, epsilon = 1e-12);
        assert_abs_diff_eq!(c.b, 1.0 / 3.0, epsilon = 1e-12);
    }
    assert_abs_diff_eq!(j.probs.tie, 1.0 / 3.0, epsilon = 1e-12);
    // Content-following judge, ab order presents (0.7, 0.2, 0.1):
    // / prior = (0.875, 2, 1), sum 3.875 -> (0.225806, 0.516129, 0.258065).
    // ba order presents (0.2, 0.7, 0.1): / prior = (0.25, 7, 1), sum 8.25 -> presented
    // (0.030303, 0.848485, 0.121212) -> original (a 0.848485, b 0.030303, tie 0.121212).
    let judge = ScriptedJudge::new(Script::FollowsContent);
    let pj = PairwiseJudge::new(judge, JudgeOptions { bias: Some(prior.clone()), ..Default::default() });
    let j = pj.judge_pair(&a, &b).unwrap();
    let ab = j.orders[0].corrected.unwrap();
    let ba = j.orders[1].corrected.unwrap();
    assert_abs_diff_eq!(ab.a, 0.875 / 3.875, epsilon = 1e-12);
    assert_abs_diff_eq!(ab.b, 2.0 / 3.875, epsilon = 1e-12);
    assert_abs_diff_eq!(ba.a, 7.0 / 8.25, epsilon = 1e-12);
    assert_abs_diff_eq!(ba.b, 0.25 / 8.25, epsilon = 1e-12);
    assert_abs_diff_eq!(j.probs.a, (0.875 / 3.875 + 7.0 / 8.25) / 2.0, epsilon = 1e-12);
    assert!(!j.order_consistent, "ab corrected prefers B, ba prefers A");
    // Raw probabilities are kept next to the corrected ones.
    assert_eq!(j.orders[0].probs, Probs { a: 0.7, b: 0.2, tie: 0.1 });
    assert_eq!(apply(&prior, [0.7, 0.2, 0.1]), [ab.a, ab.b, ab.tie]);
}

#[test]
fn prior_estimate_from_content_free_pairs() {
    let judge = ScriptedJudge::new(Script::AlwaysA);
    let prior = estimate_with(judge.clone(), &JudgeOptions::default()).unwrap();
    assert_eq!(prior.n, 9);
    assert_abs_diff_eq!(prior.probs[0], 0.8, epsilon = 1e-12);
    assert_abs_diff_eq!(prior.probs[1], 0.1, epsilon = 1e-12);
    // Content-following judge sees neither GOOD nor BAD: (0.2, 0.2, 0.6) everywhere.
    let judge = ScriptedJudge::new(Script::FollowsContent);
    let prior = estimate_with(judge.clone(), &JudgeOptions { reasoning: false, ..Default::default() }).unwrap();
    assert_abs_diff_eq!(prior.probs[2], 0.6, epsilon = 1e-12);
    assert!(judge.generated.lock().unwrap().is_empty());
    assert!(judge.scored.lock().unwrap().iter().all(|p| user_text(p).contains("N/A")));
}

#[test]
fn traces_are_one_json_line_per_order() {
    let prior = LabelPrior { probs: [0.8, 0.1, 0.1], n: 9 };
    let judge = ScriptedJudge::new(Script::FollowsContent);
    let pj = PairwiseJudge::new(judge, JudgeOptions { bias: Some(prior), ..Default::default() });
    let (a, b) = pair();
    let j = pj.judge_pair(&a, &b).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("traces.jsonl");
    let mut w = TraceWriter::append(&path).unwrap();
    w.write_pair(&j).unwrap();
    drop(w);
    let mut w = TraceWriter::append(&path).unwrap();
    w.write_pair(&j).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4);
    let t: TraceRecord = serde_json::from_str(lines[1]).unwrap();
    assert_eq!(t.order, "ba");
    assert_eq!(t.question_id, "q1");
    assert_eq!((t.system_a.as_str(), t.system_b.as_str()), ("good", "bad"));
    assert_eq!(t.prompt_version, PROMPT_VERSION_EN);
    assert_eq!(t.judge, "scripted:test");
    assert!(t.bias_applied);
    assert_eq!(t.prior, Some([0.8, 0.1, 0.1]));
    assert_eq!(t.label_probs, vec![0.2, 0.7, 0.1]);
    assert_eq!(t.probs, Probs { a: 0.7, b: 0.2, tie: 0.1 });
    assert_eq!(t.category_a, Some(Category::Incorrect));
    assert_eq!(t.label_mass, Some(0.9));
    let v: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(v["category_a"], "fully_correct");
    assert_eq!(v["source"], "logits");
}
