//! The two-stage DICE pairwise judgement (DICE §3.1-3.2).
//!
//! Stage I: the judge writes an analysis of both answers (greedy) ending with a category for
//! each. Stage II: the same messages, with the analysis and a verdict line as the start of the
//! assistant turn, and the probabilities of the next token being `A`, `B` or `C` (tie), softmax
//! over those three logits only. To counter position bias every pair is judged in both orders
//! by default and the swapped order is mapped back to the original A/B before averaging.
//!
//! Turning probabilities into hard or soft scores is `scoring::score_probs`'s job; this module
//! only returns probabilities.

use std::sync::Arc;

use ragjudge_core::text::Lang;
use ragjudge_core::Record;
use ragjudge_models::{GenParams, Judge, LabelProbs, ModelError, ProbSource, Prompt};
use serde::{Deserialize, Serialize};

use crate::calibration::{apply, LabelPrior};
use crate::prompts::{
    choose_lang, judge_prompt, lang_code, prompt_version, verdict_labels, verdict_prompt, STAGE1_STOP,
};

/// Probabilities of A winning, B winning and a tie; they sum to 1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Probs {
    /// A (the pair's first record) is better.
    pub a: f64,
    /// B (the pair's second record) is better.
    pub b: f64,
    /// Neither is better.
    pub tie: f64,
}

impl Probs {
    /// From `[a, b, tie]`.
    pub fn from_array(p: [f64; 3]) -> Self {
        Self { a: p[0], b: p[1], tie: p[2] }
    }

    /// As `[a, b, tie]`.
    pub fn to_array(self) -> [f64; 3] {
        [self.a, self.b, self.tie]
    }

    /// Index of the largest probability: 0 = A, 1 = B, 2 = tie (first one on exact ties).
    pub fn argmax(self) -> usize {
        let p = self.to_array();
        let mut best = 0;
        for i in 1..3 {
            if p[i] > p[best] {
                best = i;
            }
        }
        best
    }

    /// Mean of several probability triples (`None` when empty).
    pub fn mean(all: &[Probs]) -> Option<Probs> {
        if all.is_empty() {
            return None;
        }
        let n = all.len() as f64;
        let s = all.iter().fold([0.0; 3], |acc, p| [acc[0] + p.a, acc[1] + p.b, acc[2] + p.tie]);
        Some(Probs::from_array([s[0] / n, s[1] / n, s[2] / n]))
    }

    /// The probabilities of the reverse presentation: what the judge called A is B and back.
    pub fn swapped(self) -> Self {
        Self { a: self.b, b: self.a, tie: self.tie }
    }
}

/// The four answer categories of DICE stage I, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Accurate and complete.
    FullyCorrect,
    /// Accurate on some but not all aspects.
    PartiallyCorrect,
    /// Honestly says it cannot answer.
    InsufficientInformation,
    /// Wrong, misleading or fabricated.
    Incorrect,
}

impl Category {
    /// Parses a category name, English or Chinese, case-insensitively and tolerating markdown,
    /// punctuation and trailing words (`"**Partially correct.**"`, `"部分正确"`).
    pub fn parse(text: &str) -> Option<Category> {
        let t = text.to_lowercase();
        let has = |words: &[&str]| words.iter().any(|w| t.contains(w));
        // Order matters: "partially correct" and "不正确" contain "correct" / "正确".
        if has(&["partially", "partly", "partial", "部分正确", "部分"]) {
            Some(Category::PartiallyCorrect)
        } else if has(&[
            "insufficient",
            "not enough information",
            "cannot be determined",
            "信息不足",
            "无法回答",
            "无法确定",
        ]) {
            Some(Category::InsufficientInformation)
        } else if has(&["incorrect", "wrong", "not correct", "false", "错误", "不正确"]) {
            Some(Category::Incorrect)
        } else if has(&["fully correct", "correct", "完全正确", "正确"]) {
            Some(Category::FullyCorrect)
        } else {
            None
        }
    }
}

/// The categories stated in a stage I text: the value after the last `Category A:` and the
/// last `Category B:` line (also `类别 A：`, `答案A类别:`, markdown bold, any case). Returns
/// `(raw_a, raw_b)`: the text after the colon, `None` when no such line exists.
pub fn find_category_lines(reasoning: &str) -> (Option<String>, Option<String>) {
    let (mut a, mut b) = (None, None);
    for line in reasoning.lines() {
        let clean: String = line.chars().filter(|c| !matches!(c, '*' | '#' | '`' | '_')).collect();
        let clean = clean.trim().trim_start_matches(['-', ' ']).to_string();
        let Some(colon) = clean.find([':', '：']) else { continue };
        let key: String = clean[..colon].chars().filter(|c| !c.is_whitespace()).collect::<String>().to_lowercase();
        let value = clean[colon..].trim_start_matches([':', '：']).trim().to_string();
        let is_key = |which: char| {
            let w = which.to_string();
            key == format!("category{w}")
                || key == format!("类别{w}")
                || key == format!("分类{w}")
                || key == format!("答案{w}类别")
                || key == format!("回答{w}类别")
                || key == format!("answer{w}category")
                || key == format!("categoryofanswer{w}")
                || key == format!("回答{w}的类别")
        };
        if is_key('a') {
            a = Some(value);
        } else if is_key('b') {
            b = Some(value);
        }
    }
    (a, b)
}

/// Options of a [`PairwiseJudge`].
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeOptions {
    /// Run stage I (analysis) before the verdict; `false` scores the verdict directly.
    pub reasoning: bool,
    /// Judge both orders (A,B) and (B,A) and average.
    pub swap: bool,
    /// Prompt language; `None` picks it from the question.
    pub lang: Option<Lang>,
    /// Most tokens of the stage I analysis.
    pub max_reasoning_tokens: u32,
    /// Label prior to divide out of the verdict probabilities (see [`crate::calibration`]).
    pub bias: Option<LabelPrior>,
}

impl Default for JudgeOptions {
    fn default() -> Self {
        Self { reasoning: true, swap: true, lang: None, max_reasoning_tokens: 384, bias: None }
    }
}

/// Which record of a pair was shown first. Serialised as `"ab"` / `"ba"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// The pair's first record was shown as answer A.
    Ab,
    /// Swapped: the pair's first record was shown as answer B.
    Ba,
}

impl Order {
    /// Whether the pair's records were shown swapped.
    pub fn is_swapped(self) -> bool {
        self == Order::Ba
    }

    /// `"ab"` or `"ba"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Order::Ab => "ab",
            Order::Ba => "ba",
        }
    }

    /// The order with the pair swapped or not.
    pub fn of(swapped: bool) -> Self {
        if swapped {
            Order::Ba
        } else {
            Order::Ab
        }
    }
}

impl PartialEq<&str> for Order {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl std::fmt::Display for Order {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One presentation order of a pair and what the judge said about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderJudgement {
    /// Whether the pair's first record was shown as answer A (`ab`) or as B (`ba`).
    pub order: Order,
    /// Stage I text (empty without reasoning).
    pub reasoning: String,
    /// Category of the pair's first record (original orientation), if parsable.
    pub category_a: Option<Category>,
    /// Category of the pair's second record (original orientation), if parsable.
    pub category_b: Option<Category>,
    /// The category text as written for the pair's first record.
    pub category_a_raw: Option<String>,
    /// The category text as written for the pair's second record.
    pub category_b_raw: Option<String>,
    /// Verdict probabilities in original A/B/tie terms, before any prior correction.
    pub probs: Probs,
    /// `probs` after dividing out the label prior, when one was given.
    pub corrected: Option<Probs>,
    /// What the backend returned for the labels `A`, `B`, `C`, in presentation terms.
    pub label_probs: LabelProbs,
    /// Mass of the three labels in the full next-token distribution, when known.
    pub label_mass: Option<f64>,
    /// How the probabilities were obtained.
    pub source: ProbSource,
}

impl OrderJudgement {
    /// The probabilities used downstream: corrected if a prior was applied, else raw.
    pub fn final_probs(&self) -> Probs {
        self.corrected.unwrap_or(self.probs)
    }
}

/// The judgement of one pair of records of the same question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairJudgement {
    /// Question id (of the first record).
    pub question_id: String,
    /// System of the first record (A).
    pub system_a: String,
    /// System of the second record (B).
    pub system_b: String,
    /// Prompt language, `"en"` or `"zh"`.
    pub lang: String,
    /// Prompt version, e.g. `dice-en-v2`.
    pub prompt_version: String,
    /// Judge identity.
    pub judge: String,
    /// Whether no reference answer was available.
    pub reference_free: bool,
    /// Whether stage I ran.
    pub reasoning: bool,
    /// One entry per order judged: `ab`, then `ba` when swapping.
    pub orders: Vec<OrderJudgement>,
    /// Mean over the orders of their [`OrderJudgement::final_probs`], original A/B terms.
    pub probs: Probs,
    /// Whether every order's argmax names the same outcome (true when only one order ran).
    pub order_consistent: bool,
    /// The label prior divided out, if any.
    pub prior: Option<LabelPrior>,
}

/// A pairwise DICE judge over any [`Judge`] backend.
#[derive(Clone)]
pub struct PairwiseJudge {
    /// The model.
    pub judge: Arc<dyn Judge>,
    /// How to judge.
    pub opts: JudgeOptions,
}

struct Task {
    pair: usize,
    swapped: bool,
    lang: Lang,
    prompt: Prompt,
}

impl PairwiseJudge {
    /// A judge with the given options.
    pub fn new(judge: Arc<dyn Judge>, opts: JudgeOptions) -> Self {
        Self { judge, opts }
    }

    /// Judges `a` against `b` (records of the same question; the question and reference are
    /// taken from `a`, the reference from `b` when `a` has none).
    pub fn judge_pair(&self, a: &Record, b: &Record) -> Result<PairJudgement, ModelError> {
        self.judge_pairs_many(&[(a, b)]).pop().unwrap_or_else(|| Err(ModelError::missing("judgement")))
    }

    /// Judges many pairs, batching the model calls: all stage I generations in one
    /// `generate_many`, then all verdicts in one `label_probs_many`, so that concurrent backends
    /// run them in parallel. Results keep the order of `pairs`; one pair's failure does not stop
    /// the others.
    pub fn judge_pairs_many(&self, pairs: &[(&Record, &Record)]) -> Vec<Result<PairJudgement, ModelError>> {
        let mut tasks = Vec::new();
        for (i, (a, b)) in pairs.iter().enumerate() {
            let lang = choose_lang(self.opts.lang, &a.query);
            let reference = a.reference.as_deref().or(b.reference.as_deref());
            let orders: &[bool] = if self.opts.swap { &[false, true] } else { &[false] };
            for &swapped in orders {
                let (first, second) = if swapped { (*b, *a) } else { (*a, *b) };
                let prompt = judge_prompt(lang, &a.query, reference, first, second, self.opts.reasoning);
                tasks.push(Task { pair: i, swapped, lang, prompt });
            }
        }

        // Stage I.
        let mut reasoning: Vec<Result<Option<String>, ModelError>> = Vec::with_capacity(tasks.len());
        if self.opts.reasoning {
            let params = GenParams {
                max_tokens: self.opts.max_reasoning_tokens,
                temperature: 0.0,
                stop: STAGE1_STOP.iter().map(|s| s.to_string()).collect(),
                ..GenParams::default()
            };
            let requests: Vec<(Prompt, GenParams)> = tasks.iter().map(|t| (t.prompt.clone(), params.clone())).collect();
            for r in self.judge.generate_many(&requests) {
                reasoning.push(r.map(|g| Some(g.text.trim().to_string())));
            }
        } else {
            reasoning.extend(tasks.iter().map(|_| Ok(None)));
        }

        // Stage II, only for tasks whose stage I succeeded.
        let labels = verdict_labels();
        let mut stage2_index = vec![None; tasks.len()];
        let mut requests = Vec::new();
        for (k, (t, r)) in tasks.iter().zip(&reasoning).enumerate() {
            if let Ok(text) = r {
                stage2_index[k] = Some(requests.len());
                requests.push((verdict_prompt(&t.prompt, t.lang, text.as_deref()), labels.clone()));
            }
        }
        let mut verdicts: Vec<Option<Result<LabelProbs, ModelError>>> =
            self.judge.label_probs_many(&requests).into_iter().map(Some).collect();

        // Assemble per pair.
        let identity = self.judge.identity();
        let mut per_pair: Vec<Result<Vec<OrderJudgement>, ModelError>> = pairs.iter().map(|_| Ok(Vec::new())).collect();
        for (k, (t, r)) in tasks.iter().zip(reasoning).enumerate() {
            let slot = &mut per_pair[t.pair];
            if slot.is_err() {
                continue;
            }
            let result = r.and_then(|text| {
                let verdict = stage2_index[k].and_then(|i| verdicts[i].take());
                let lp = verdict.unwrap_or_else(|| Err(ModelError::missing("stage II verdict")))?;
                self.order_judgement(t.swapped, text.unwrap_or_default(), lp)
            });
            match (result, slot.as_mut()) {
                (Ok(o), Ok(orders)) => orders.push(o),
                (Err(e), _) => *slot = Err(e),
                (Ok(_), Err(_)) => {}
            }
        }

        pairs
            .iter()
            .zip(per_pair)
            .map(|((a, b), orders)| {
                let orders = orders?;
                let lang = choose_lang(self.opts.lang, &a.query);
                let finals: Vec<Probs> = orders.iter().map(OrderJudgement::final_probs).collect();
                let probs = Probs::mean(&finals).ok_or_else(|| ModelError::missing("order"))?;
                let order_consistent = finals.windows(2).all(|w| w[0].argmax() == w[1].argmax());
                Ok(PairJudgement {
                    question_id: a.id.clone(),
                    system_a: a.system.clone(),
                    system_b: b.system.clone(),
                    lang: lang_code(lang).to_string(),
                    prompt_version: prompt_version(lang).to_string(),
                    judge: identity.clone(),
                    reference_free: a.reference.is_none() && b.reference.is_none(),
                    reasoning: self.opts.reasoning,
                    orders,
                    probs,
                    order_consistent,
                    prior: self.opts.bias.clone(),
                })
            })
            .collect()
    }

    fn order_judgement(&self, swapped: bool, reasoning: String, lp: LabelProbs) -> Result<OrderJudgement, ModelError> {
        if lp.probs.len() != 3 {
            return Err(ModelError::Protocol(format!("expected 3 verdict probabilities, got {}", lp.probs.len())));
        }
        let presented = Probs::from_array([lp.probs[0], lp.probs[1], lp.probs[2]]);
        // The prior is a property of the label positions, so it is divided out before mapping back.
        let corrected = self.opts.bias.as_ref().map(|prior| Probs::from_array(apply(prior, presented.to_array())));
        let (raw_a, raw_b) = find_category_lines(&reasoning);
        let (raw_a, raw_b) = if swapped { (raw_b, raw_a) } else { (raw_a, raw_b) };
        let back = |p: Probs| if swapped { p.swapped() } else { p };
        Ok(OrderJudgement {
            order: Order::of(swapped),
            category_a: raw_a.as_deref().and_then(Category::parse),
            category_b: raw_b.as_deref().and_then(Category::parse),
            category_a_raw: raw_a,
            category_b_raw: raw_b,
            reasoning,
            probs: back(presented),
            corrected: corrected.map(back),
            label_mass: lp.label_mass,
            source: lp.source,
            label_probs: lp,
        })
    }
}
