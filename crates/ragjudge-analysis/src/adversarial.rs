//! Model-free adversarial contexts for robustness testing (HCAT (Sudjianto et al.), §6.1): the
//! retrieved passages of a record put in another order (`shuffle`), or mixed with passages
//! retrieved for other questions (`distractor`). Variants are inputs for re-running a system (or
//! for scoring context-dependent metrics against the same answer); citations `[n]` in the answer
//! are not rewritten. Seeded per question: the same records, kind, number and seed always give the
//! same variants, whatever the order of the records.

use crate::perturb::fxhash;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::HashSet;

/// A kind of context variation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ContextPerturbation {
    /// The passages in a seeded random order, never the original one.
    Shuffle,
    /// `k` passages of other questions inserted at seeded positions.
    Distractor,
    /// The most relevant passage with one fact altered (`crate::contradiction`), inserted at a
    /// seeded position.
    Contradiction,
}

impl ContextPerturbation {
    /// The kind's name (`shuffle`, `distractor`).
    pub fn name(self) -> &'static str {
        match self {
            ContextPerturbation::Shuffle => "shuffle",
            ContextPerturbation::Distractor => "distractor",
            ContextPerturbation::Contradiction => "contradiction",
        }
    }
}

/// Why a record's contexts could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AdversarialError {
    /// `contexts` is not a list of strings or objects with a text.
    #[error("record {index} (id `{id}`): field `{field}`: not a list of passages (strings or objects with `text`)")]
    Contexts {
        /// 1-based position of the record in the input.
        index: usize,
        /// Its id.
        id: String,
        /// The field at fault, e.g. `contexts[2].text`.
        field: String,
    },
    /// Settings out of range.
    #[error("the number of distractors must be at least 1")]
    NoDistractors,
}

/// A record for which a kind gave no variant, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// Record id.
    pub id: String,
    /// System.
    pub system: String,
    /// The kind.
    pub kind: ContextPerturbation,
    /// Why (`fewer than 2 contexts`, `every order is the same`, `only N passages to add`).
    pub reason: String,
}

/// The variants of a set of records, and the records skipped per kind.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ContextVariants {
    /// Variant records, in input order, kinds in the order asked.
    pub variants: Vec<Value>,
    /// Records without a variant of some kind.
    pub skipped: Vec<Skipped>,
}

/// The text of a passage (a string, or an object's `text` or `passage`).
fn passage_text(p: &Value) -> Option<&str> {
    match p {
        Value::String(s) => Some(s),
        Value::Object(o) => o.get("text").or_else(|| o.get("passage")).and_then(Value::as_str),
        _ => None,
    }
}

fn string_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// The passages of record `i` (no `contexts` or `null`: none).
fn contexts(r: &Value, i: usize) -> Result<Vec<Value>, AdversarialError> {
    let bad = |field: String| AdversarialError::Contexts { index: i + 1, id: string_of(r.get("id")), field };
    let items = match r.get("contexts") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(a)) => a,
        Some(_) => return Err(bad("contexts".into())),
    };
    for (k, p) in items.iter().enumerate() {
        if passage_text(p).is_none() {
            return Err(bad(format!("contexts[{k}].text")));
        }
    }
    Ok(items.clone())
}

/// A passage of another question, without the grade it had there (a grade is for one question).
fn as_distractor(p: &Value) -> Value {
    match p {
        Value::Object(o) => {
            let mut o = o.clone();
            for k in ["relevance", "grade", "score"] {
                o.remove(k);
            }
            o.insert("distractor".into(), Value::Bool(true));
            Value::Object(o)
        }
        other => other.clone(),
    }
}

/// One passage of the pool: its text, the passage, the ids and topics of the records that retrieved it.
struct Pooled {
    text: String,
    passage: Value,
    /// The passage as JSON text.
    json: String,
    ids: Vec<String>,
    topics: Vec<String>,
}

/// The variant record: `ID~KIND`, `meta.variant_of`, `meta.perturbation`, `meta.severity`, `meta.seed`.
fn variant(r: &Value, id: &str, kind: ContextPerturbation, severity: usize, seed: u64, ctx: Vec<Value>) -> Value {
    let mut v = r.clone();
    v["id"] = Value::from(format!("{id}~{}", kind.name()));
    v["contexts"] = Value::Array(ctx);
    if !v.get("meta").is_some_and(Value::is_object) {
        v["meta"] = Value::Object(Map::new());
    }
    v["meta"]["variant_of"] = Value::from(id);
    v["meta"]["perturbation"] = Value::from(kind.name());
    v["meta"]["severity"] = Value::from(severity);
    v["meta"]["seed"] = Value::from(seed);
    v
}

/// Variants of every record (JSON objects with `id`, `system` and `contexts`) for each kind:
/// `shuffle` puts the passages in a seeded order that differs from the original (records with
/// fewer than 2 passages, or whose passages are all the same text, are skipped); `distractor`
/// inserts `distractors` passages retrieved for records of other ids, of the same `meta.topic`
/// first, never one whose text is already among the record's passages, each at a seeded position
/// (records for which fewer passages are available are skipped). Shuffle's severity is 1, the
/// distractor's the number inserted. Every other field, the answer included, is kept as it is.
pub fn context_variants(
    records: &[Value],
    kinds: &[ContextPerturbation],
    distractors: usize,
    seed: u64,
) -> Result<ContextVariants, AdversarialError> {
    if distractors == 0 && kinds.contains(&ContextPerturbation::Distractor) {
        return Err(AdversarialError::NoDistractors);
    }
    let all: Vec<Vec<Value>> = records.iter().enumerate().map(|(i, r)| contexts(r, i)).collect::<Result<_, _>>()?;
    let topic = |r: &Value| r.get("meta").and_then(|m| m.get("topic")).map(|t| string_of(Some(t)));

    // Every distinct passage text once, in text order and each held by its least passage (as
    // JSON text), so that the choice of distractors does not depend on the order of the records.
    let mut pool: Vec<Pooled> = Vec::new();
    if kinds.contains(&ContextPerturbation::Distractor) {
        let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for (r, ctx) in records.iter().zip(&all) {
            let id = string_of(r.get("id"));
            for p in ctx {
                let text = passage_text(p).unwrap_or_default().trim().to_string();
                let passage = as_distractor(p);
                let json = passage.to_string();
                let k = *at.entry(text.clone()).or_insert_with(|| {
                    let (passage, json) = (passage.clone(), json.clone());
                    pool.push(Pooled { text, passage, json, ids: Vec::new(), topics: Vec::new() });
                    pool.len() - 1
                });
                if json < pool[k].json {
                    (pool[k].passage, pool[k].json) = (passage, json);
                }
                if !pool[k].ids.contains(&id) {
                    pool[k].ids.push(id.clone());
                }
                if let Some(t) = topic(r) {
                    if !pool[k].topics.contains(&t) {
                        pool[k].topics.push(t);
                    }
                }
            }
        }
        pool.sort_by(|a, b| a.text.cmp(&b.text));
    }

    let mut out = ContextVariants::default();
    for (r, ctx) in records.iter().zip(&all) {
        let id = string_of(r.get("id"));
        let system = string_of(r.get("system"));
        for (k, &kind) in kinds.iter().enumerate() {
            // A seed per question and kind, so that variants do not depend on the order of records
            // and every system gets the same order for the same question.
            let mixed = seed ^ fxhash(&id).rotate_left(11) ^ (k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let mut rng = ChaCha8Rng::seed_from_u64(mixed);
            let skip = |reason: String| Skipped { id: id.clone(), system: system.clone(), kind, reason };
            match kind {
                ContextPerturbation::Shuffle => match shuffled(ctx, &mut rng) {
                    Ok(c) => out.variants.push(variant(r, &id, kind, 1, seed, c)),
                    Err(reason) => out.skipped.push(skip(reason.into())),
                },
                ContextPerturbation::Contradiction => {
                    out.skipped.push(skip("a contradiction needs a model (contradiction_variants)".into()))
                }
                ContextPerturbation::Distractor => {
                    let present: HashSet<&str> = ctx.iter().filter_map(passage_text).map(str::trim).collect();
                    let own_topic = topic(r);
                    let usable = |p: &&Pooled| p.ids.iter().any(|i| *i != id) && !present.contains(p.text.as_str());
                    let same = |p: &Pooled| own_topic.as_ref().is_some_and(|t| p.topics.contains(t));
                    let mut first: Vec<&Pooled> = pool.iter().filter(usable).filter(|p| same(p)).collect();
                    let mut rest: Vec<&Pooled> = pool.iter().filter(usable).filter(|p| !same(p)).collect();
                    if first.len() + rest.len() < distractors {
                        out.skipped.push(skip(format!("only {} passages to add", first.len() + rest.len())));
                        continue;
                    }
                    first.shuffle(&mut rng);
                    rest.shuffle(&mut rng);
                    let mut c = ctx.clone();
                    for p in first.into_iter().chain(rest).take(distractors) {
                        let at = rng.gen_range(0..=c.len());
                        c.insert(at, p.passage.clone());
                    }
                    out.variants.push(variant(r, &id, kind, distractors, seed, c));
                }
            }
        }
    }
    Ok(out)
}

/// The passage a contradiction alters: the one with the highest relevance grade (`relevance`,
/// `grade` or `score`), else the first; `None` for a record without passages.
pub fn passage_to_alter(r: &Value) -> Option<String> {
    let ctx = r.get("contexts")?.as_array()?;
    let grade = |p: &Value| {
        ["relevance", "grade", "score"].iter().find_map(|k| p.get(k).and_then(Value::as_f64)).unwrap_or(f64::MIN)
    };
    let mut best: Option<(&Value, f64)> = None;
    for p in ctx {
        let g = grade(p);
        if passage_text(p).is_some() && best.is_none_or(|(_, b)| g > b) {
            best = Some((p, g));
        }
    }
    best.and_then(|(p, _)| passage_text(p)).map(str::to_string)
}

/// `contradiction` variants: each record's [`passage_to_alter`] replaced by its rewrite in
/// `altered` (original text -> rewrite), inserted at a seeded position besides the original
/// passages (which are kept), marked `"contradiction": true` and without a relevance grade.
/// Records without passages or without a kept rewrite are skipped with the reason given in
/// `rejected` (original text -> why).
pub fn contradiction_variants(
    records: &[Value],
    altered: &std::collections::HashMap<String, String>,
    rejected: &std::collections::HashMap<String, String>,
    seed: u64,
) -> Result<ContextVariants, AdversarialError> {
    let kind = ContextPerturbation::Contradiction;
    let mut out = ContextVariants::default();
    for (i, r) in records.iter().enumerate() {
        let ctx = contexts(r, i)?;
        let id = string_of(r.get("id"));
        let skip = |reason: String| Skipped { id: id.clone(), system: string_of(r.get("system")), kind, reason };
        let Some(original) = passage_to_alter(r) else {
            out.skipped.push(skip("no passage".into()));
            continue;
        };
        let Some(text) = altered.get(&original) else {
            let why = rejected.get(&original).cloned().unwrap_or_else(|| "no rewrite".into());
            out.skipped.push(skip(why));
            continue;
        };
        let source = ctx.iter().find(|p| passage_text(p) == Some(original.as_str())).cloned().unwrap_or(Value::Null);
        let mut passage = match source {
            Value::Object(o) => Value::Object(o),
            _ => Value::Object(Map::new()),
        };
        if let Some(o) = passage.as_object_mut() {
            for k in ["relevance", "grade", "score", "passage"] {
                o.remove(k);
            }
            if let Some(pid) = o.get("id").map(|v| string_of(Some(v))) {
                o.insert("id".into(), Value::from(format!("{pid}~contradiction")));
            }
            o.insert("text".into(), Value::from(text.clone()));
            o.insert("contradiction".into(), Value::Bool(true));
        }
        let mixed = seed ^ fxhash(&id).rotate_left(11) ^ 0xC0DE_u64.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut rng = ChaCha8Rng::seed_from_u64(mixed);
        let mut c = ctx.clone();
        let at = rng.gen_range(0..=c.len());
        c.insert(at, passage);
        out.variants.push(variant(r, &id, kind, 1, seed, c));
    }
    Ok(out)
}

/// The passages in a seeded order whose texts differ from the original order.
fn shuffled(ctx: &[Value], rng: &mut ChaCha8Rng) -> Result<Vec<Value>, &'static str> {
    if ctx.len() < 2 {
        return Err("fewer than 2 contexts");
    }
    let texts = |c: &[Value]| c.iter().map(|p| passage_text(p).unwrap_or_default().to_string()).collect::<Vec<_>>();
    let original = texts(ctx);
    if original.iter().all(|t| *t == original[0]) {
        return Err("every order is the same (all passages have the same text)");
    }
    let mut c = ctx.to_vec();
    c.shuffle(rng);
    if texts(&c) == original {
        // A sequence equal to its rotation by one has all elements equal, excluded above.
        c.rotate_left(1);
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(id: &str, topic: &str, passages: &[&str]) -> Value {
        let ctx: Vec<Value> =
            passages.iter().map(|p| json!({"id": format!("{p}-id"), "text": p, "relevance": 3})).collect();
        json!({"id": id, "system": "s", "query": format!("question {id}"), "answer": "A [1].", "contexts": ctx, "meta": {"topic": topic}})
    }

    fn texts(v: &Value) -> Vec<String> {
        v["contexts"].as_array().unwrap().iter().map(|p| p["text"].as_str().unwrap().to_string()).collect()
    }

    fn records() -> Vec<Value> {
        vec![
            record("q1", "water", &["w1", "w2", "w3"]),
            record("q2", "water", &["w2", "w4"]),
            record("q3", "tcp", &["t1", "t2"]),
            record("q4", "tcp", &["t3"]),
            record("q5", "water", &["w5", "w1"]),
        ]
    }

    #[test]
    fn distractors_do_not_depend_on_the_order_of_the_records() {
        // q3 has no passage of its own: its distractor comes from the pool, whose order used to be
        // the order in which the records first named each passage.
        let recs = vec![
            json!({"id": "q1", "system": "s", "contexts": ["alpha"]}),
            json!({"id": "q2", "system": "s", "contexts": [{"id": "d9", "text": "a"}]}),
            json!({"id": "q4", "system": "s", "contexts": [{"id": "d1", "text": "a"}]}),
            json!({"id": "q3", "system": "s", "contexts": []}),
        ];
        let mut reversed = recs.clone();
        reversed.reverse();
        for seed in 0..20 {
            let of = |r: &[Value]| {
                let mut v = context_variants(r, &[ContextPerturbation::Distractor], 1, seed).unwrap().variants;
                v.sort_by_key(|x| x.to_string());
                v
            };
            assert_eq!(of(&recs), of(&reversed), "seed {seed}");
        }
    }

    #[test]
    fn shuffle_never_keeps_the_order_and_is_reproducible() {
        // Two passages have one other order: every seed must give it.
        for seed in 0..50 {
            let out =
                context_variants(&[record("q", "t", &["a", "b"])], &[ContextPerturbation::Shuffle], 1, seed).unwrap();
            assert_eq!(texts(&out.variants[0]), ["b", "a"], "seed {seed}");
        }
        for seed in 0..50 {
            let rs = records();
            let a = context_variants(&rs, &[ContextPerturbation::Shuffle], 1, seed).unwrap();
            assert_eq!(a, context_variants(&rs, &[ContextPerturbation::Shuffle], 1, seed).unwrap());
            for v in &a.variants {
                let of = v["meta"]["variant_of"].as_str().unwrap();
                let orig = rs.iter().find(|r| r["id"] == of).unwrap();
                assert_ne!(texts(v), texts(orig), "seed {seed}");
                let (mut x, mut y) = (texts(v), texts(orig));
                x.sort();
                y.sort();
                assert_eq!(x, y);
                assert_eq!(v["id"], format!("{of}~shuffle"));
                assert_eq!(
                    (v["meta"]["perturbation"].as_str(), v["meta"]["severity"].as_u64()),
                    (Some("shuffle"), Some(1))
                );
                assert_eq!(v["answer"], orig["answer"]);
            }
            // q4 has one passage: skipped, counted.
            assert_eq!(a.skipped.len(), 1);
            assert_eq!((a.skipped[0].id.as_str(), a.skipped[0].reason.as_str()), ("q4", "fewer than 2 contexts"));
            assert_eq!(a.variants.len(), 4);
        }
        // The same text twice has no other order.
        let same = context_variants(&[record("q", "t", &["a", "a"])], &[ContextPerturbation::Shuffle], 1, 0).unwrap();
        assert!(same.variants.is_empty() && same.skipped.len() == 1);
    }

    #[test]
    fn the_order_of_records_does_not_change_a_shuffle() {
        let rs = records();
        let mut rev = rs.clone();
        rev.reverse();
        let a = context_variants(&rs, &[ContextPerturbation::Shuffle], 1, 3).unwrap();
        let mut b = context_variants(&rev, &[ContextPerturbation::Shuffle], 1, 3).unwrap();
        b.variants.reverse();
        assert_eq!(a.variants, b.variants);
    }

    #[test]
    fn distractors_are_new_passages_of_the_same_topic_first() {
        let rs = records();
        for seed in 0..30 {
            let out = context_variants(&rs, &[ContextPerturbation::Distractor], 2, seed).unwrap();
            for v in &out.variants {
                let of = v["meta"]["variant_of"].as_str().unwrap();
                let orig = rs.iter().find(|r| r["id"] == of).unwrap();
                let (vt, ot) = (texts(v), texts(orig));
                assert_eq!(vt.len(), ot.len() + 2);
                let unique: HashSet<&String> = vt.iter().collect();
                assert_eq!(unique.len(), vt.len(), "a duplicated passage: {vt:?}");
                // The original passages keep their relative order.
                let kept: Vec<&String> = vt.iter().filter(|t| ot.contains(t)).collect();
                assert_eq!(kept, ot.iter().collect::<Vec<_>>());
                let added: Vec<&Value> =
                    v["contexts"].as_array().unwrap().iter().filter(|p| p["distractor"] == true).collect();
                assert_eq!(added.len(), 2);
                assert!(added.iter().all(|p| p.get("relevance").is_none()));
                assert_eq!(v["meta"]["severity"], 2);
                assert_eq!(v["id"], format!("{of}~distractor"));
            }
            let get = |id: &str| out.variants.iter().find(|v| v["meta"]["variant_of"] == id).unwrap();
            // q1 (water: w1 w2 w3): the other water passages not already there are w4, w5: both taken.
            let mut q1: Vec<String> =
                texts(get("q1")).into_iter().filter(|t| !["w1", "w2", "w3"].contains(&t.as_str())).collect();
            q1.sort();
            assert_eq!(q1, ["w4", "w5"], "seed {seed}");
            // q3 (tcp: t1 t2): one other tcp passage (t3), then one water passage.
            let q3: Vec<String> =
                texts(get("q3")).into_iter().filter(|t| !["t1", "t2"].contains(&t.as_str())).collect();
            assert!(q3.contains(&"t3".to_string()), "{q3:?}");
            assert!(q3.iter().any(|t| t.starts_with('w')), "{q3:?}");
        }
    }

    #[test]
    fn too_few_passages_to_add_are_skipped_and_bad_contexts_named() {
        let rs = vec![record("q1", "a", &["x"]), record("q2", "a", &["y"])];
        let out = context_variants(&rs, &[ContextPerturbation::Distractor], 2, 0).unwrap();
        assert!(out.variants.is_empty());
        assert_eq!(out.skipped[0].reason, "only 1 passages to add");
        // The same id under another system is not another question.
        let mut other = record("q1", "a", &["z"]);
        other["system"] = json!("t");
        let out =
            context_variants(&[record("q1", "a", &["x"]), other], &[ContextPerturbation::Distractor], 1, 0).unwrap();
        assert_eq!(out.variants.len(), 0);
        let bad = json!({"id": "b", "contexts": [1]});
        let e = context_variants(&[bad], &[ContextPerturbation::Shuffle], 1, 0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "record 1 (id `b`): field `contexts[0].text`: not a list of passages (strings or objects with `text`)"
        );
    }

    #[test]
    fn a_contradiction_goes_in_beside_the_most_relevant_passage() {
        let mut r = record("q1", "t", &["low", "high"]);
        r["contexts"][0]["relevance"] = json!(1);
        let other = record("q2", "t", &["lonely"]);
        let altered: std::collections::HashMap<String, String> = [("high".to_string(), "HIGH".to_string())].into();
        let rejected: std::collections::HashMap<String, String> =
            [("lonely".to_string(), "no contradiction".to_string())].into();
        let v = contradiction_variants(&[r, other], &altered, &rejected, 5).unwrap();
        assert_eq!(v.variants.len(), 1);
        let ctx = v.variants[0]["contexts"].as_array().unwrap();
        assert_eq!(ctx.len(), 3);
        let texts: Vec<&str> = ctx.iter().map(|p| p["text"].as_str().unwrap()).collect();
        // The originals keep their order; the rewrite of the most relevant one goes in somewhere.
        let kept: Vec<&str> = texts.iter().copied().filter(|t| *t != "HIGH").collect();
        assert_eq!(kept, ["low", "high"]);
        let c = ctx.iter().find(|p| p["text"] == "HIGH").unwrap();
        assert_eq!((c["contradiction"].as_bool(), c["id"].as_str()), (Some(true), Some("high-id~contradiction")));
        assert!(c.get("relevance").is_none());
        assert_eq!(v.variants[0]["id"], "q1~contradiction");
        assert_eq!(v.variants[0]["meta"]["variant_of"], "q1");
        assert_eq!(v.skipped.len(), 1);
        assert_eq!((v.skipped[0].id.as_str(), v.skipped[0].reason.as_str()), ("q2", "no contradiction"));
        assert_eq!(passage_to_alter(&json!({"contexts": ["a", "b"]})).as_deref(), Some("a"));
    }
}
