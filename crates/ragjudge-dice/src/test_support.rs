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
