//! Judgements made by hand for the crate's unit tests.

use crate::judgement::{Order, OrderJudgement, PairJudgement, Probs};
use ragjudge_models::{LabelProbs, ProbSource};

/// One judged order; `presented` are the probabilities of `[A, B, C]` as shown to the judge.
pub(crate) fn order(order: &str, presented: [f64; 3], mass: Option<f64>) -> OrderJudgement {
    let p = Probs::from_array(presented);
    OrderJudgement {
        order: if order == "ba" { Order::Ba } else { Order::Ab },
        reasoning: String::new(),
        category_a: None,
        category_b: None,
        category_a_raw: None,
        category_b_raw: None,
        probs: if order == "ba" { p.swapped() } else { p },
        corrected: None,
        label_probs: LabelProbs {
            labels: vec!["A".into(), "B".into(), "C".into()],
            probs: presented.to_vec(),
            logits: vec![0.0; 3],
            label_mass: mass,
            source: ProbSource::Logits,
        },
        label_mass: mass,
        source: ProbSource::Logits,
    }
}

/// A judged pair of question `q`, systems `x` and `y`, from its orders.
pub(crate) fn pair(orders: Vec<OrderJudgement>) -> PairJudgement {
    let finals: Vec<Probs> = orders.iter().map(OrderJudgement::final_probs).collect();
    let probs = Probs::mean(&finals).unwrap();
    let order_consistent = finals.windows(2).all(|w| w[0].argmax() == w[1].argmax());
    PairJudgement {
        question_id: "q".into(),
        system_a: "x".into(),
        system_b: "y".into(),
        lang: "en".into(),
        prompt_version: "dice-en-v2".into(),
        judge: "test".into(),
        reference_free: false,
        reasoning: false,
        orders,
        probs,
        order_consistent,
        prior: None,
    }
}

/// A yes/no judge for claim checks: P(Yes) is the value of the first key found in the prompt's
/// claim (the last paragraph after `Sentence: `, else the paragraph before the closing question
/// without its heading line), 0.5 when none is; calls are counted.
pub(crate) struct ScriptedYes {
    script: Vec<(String, f64)>,
    calls: std::sync::atomic::AtomicU64,
}

impl ScriptedYes {
    pub(crate) fn new(script: &[(&str, f64)]) -> std::sync::Arc<Self> {
        std::sync::Arc::new(Self {
            script: script.iter().map(|(k, p)| (k.to_string(), *p)).collect(),
            calls: Default::default(),
        })
    }

    pub(crate) fn calls(&self) -> u64 {
        self.calls.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl ragjudge_models::Judge for ScriptedYes {
    fn identity(&self) -> String {
        "scripted:yes".into()
    }
    fn generate(
        &self,
        _: &ragjudge_models::Prompt,
        _: &ragjudge_models::GenParams,
    ) -> Result<ragjudge_models::Generation, ragjudge_models::ModelError> {
        Err(ragjudge_models::ModelError::Inference("no generation".into()))
    }
    fn label_probs(
        &self,
        prompt: &ragjudge_models::Prompt,
        labels: &[String],
    ) -> Result<LabelProbs, ragjudge_models::ModelError> {
        self.calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let user = &prompt.messages.last().expect("a message").content;
        let paragraphs: Vec<&str> = user.split("\n\n").collect();
        let last = paragraphs.last().copied().unwrap_or("");
        let claim = match last.strip_prefix("Sentence: ") {
            Some(claim) => claim,
            None => paragraphs[paragraphs.len().saturating_sub(2)].split_once('\n').map_or("", |(_, c)| c),
        };
        let p = self.script.iter().find(|(k, _)| claim.contains(k.as_str())).map_or(0.5, |(_, p)| *p);
        Ok(LabelProbs {
            labels: labels.to_vec(),
            probs: vec![p, 1.0 - p],
            logits: vec![p.ln(), (1.0 - p).ln()],
            label_mass: None,
            source: ProbSource::Logits,
        })
    }
    fn usage(&self) -> ragjudge_models::Usage {
        ragjudge_models::Usage { calls: self.calls(), prompt_tokens: 0, completion_tokens: 0 }
    }
}
