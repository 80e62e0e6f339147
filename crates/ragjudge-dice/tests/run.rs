//! Pair scoring and run files of a DICE run; expected values worked out by hand in the comments.

use ragjudge_dice::judgement::{Category, Order, OrderJudgement, PairJudgement, Probs};
use ragjudge_dice::pair_score::score_pair;
use ragjudge_dice::run::read_run;
use ragjudge_dice::scoring::DiceScorer;
use ragjudge_models::{LabelProbs, ProbSource};

/// One order whose probabilities, in original A/B/tie terms, are `original`.
fn order(order: Order, original: [f64; 3]) -> OrderJudgement {
    let p = Probs::from_array(original);
    let presented = if order == Order::Ba { p.swapped() } else { p };
    OrderJudgement {
        order,
        reasoning: String::new(),
        category_a: Some(Category::FullyCorrect),
        category_b: None,
        category_a_raw: None,
        category_b_raw: None,
        probs: p,
        corrected: None,
        label_probs: LabelProbs {
            labels: vec!["A".into(), "B".into(), "C".into()],
            probs: presented.to_array().to_vec(),
            logits: vec![0.0; 3],
            label_mass: None,
            source: ProbSource::Logits,
        },
        label_mass: None,
        source: ProbSource::Logits,
    }
}

fn pair(orders: Vec<OrderJudgement>) -> PairJudgement {
    let finals: Vec<Probs> = orders.iter().map(OrderJudgement::final_probs).collect();
    PairJudgement {
        question_id: "q1".into(),
        system_a: "x".into(),
        system_b: "y".into(),
        lang: "en".into(),
        prompt_version: "dice-en-v2".into(),
        judge: "fake".into(),
        reference_free: false,
        reasoning: false,
        probs: Probs::mean(&finals).unwrap(),
        order_consistent: true,
        orders,
        prior: None,
    }
}

#[test]
fn a_clear_verdict_in_both_orders_scores_one() {
    let scorer = DiceScorer::new(0.1).unwrap();
    // ab: A 0.7, B 0.2, tie 0.1 -> margin 0.5 >= 0.1, hard: s_A = 1.
    // ba (original terms A 0.6, B 0.3): shown swapped, the presented A is the original B with 0.3
    // and the presented B the original A with 0.6 -> hard win of the presented B, i.e. of the
    // original A: s_A = 1. Mean 1, and both orders name A: consistent.
    let s =
        score_pair(&scorer, &pair(vec![order(Order::Ab, [0.7, 0.2, 0.1]), order(Order::Ba, [0.6, 0.3, 0.1])])).unwrap();
    assert_eq!((s.s_a, s.consistent), (1.0, true));
    assert_eq!(s.id, "q1");
    assert_eq!(s.category_a, Some(Category::FullyCorrect));
}

#[test]
fn an_unclear_verdict_is_scored_softly() {
    let scorer = DiceScorer::new(0.1).unwrap();
    // One order, A 0.45, B 0.40, tie 0.15: margin 0.05 < 0.1, soft:
    // s_A = 0.45 + 0.15 * 0.45 / 0.85 = 0.529411764705882...
    let s = score_pair(&scorer, &pair(vec![order(Order::Ab, [0.45, 0.40, 0.15])])).unwrap();
    assert!((s.s_a - (0.45 + 0.15 * 0.45 / 0.85)).abs() < 1e-12, "{}", s.s_a);
    assert!(s.consistent);
}

#[test]
fn orders_that_disagree_average_to_a_draw() {
    let scorer = DiceScorer::new(0.1).unwrap();
    // ab: A 0.7 -> s_A = 1. ba (original A 0.2, B 0.7): the original B wins -> s_A = 0.
    // Mean 0.5; the orders name different winners: inconsistent.
    let s =
        score_pair(&scorer, &pair(vec![order(Order::Ab, [0.7, 0.2, 0.1]), order(Order::Ba, [0.2, 0.7, 0.1])])).unwrap();
    assert_eq!((s.s_a, s.consistent), (0.5, false));
}

#[test]
fn a_repeated_record_key_in_a_run_is_an_error_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sys.jsonl");
    std::fs::write(
        &path,
        "{\"id\":\"q1\",\"query\":\"a\",\"answer\":\"b\"}\n{\"id\":\"q2\",\"query\":\"a\",\"answer\":\"b\"}\n{\"id\":\"q1\",\"query\":\"a\",\"answer\":\"c\"}\n",
    )
    .unwrap();
    let e = read_run(&path).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}:3: duplicate record: id `q1`, system `sys` (first on line 1); pairing by question would be ambiguous",
            path.display()
        )
    );
}
