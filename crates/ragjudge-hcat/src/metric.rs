//! [`HcatMetric`]: every HCAT functionality metric of one record (HCAT §3), with the
//! per-sentence evidence in [`MetricOutput::detail`].

use crate::error::HcatError;
use crate::nli::{Entailment, NliSource, Premise};
use crate::sentences::RecordSentences;
use crate::similarity::{word_weights, Aggregates, MaxMatch, SimMatrix};
use crate::wasserstein::{exact_uniform, mean_pairwise};
use ragjudge_core::{Metric, MetricError, MetricOutput, Record};
use ragjudge_models::Embedder;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// The output columns, in order.
///
/// - `context_relevancy_*`: `S_max(q_i)` over context sentences, then mean / weighted / minimax (3.1);
/// - `groundedness_*`: `S_max(a_i)` over context sentences, mean and min (3.2.1);
/// - `nli_groundedness_*`: `sigma(D_i)` per answer sentence, mean and min (3.2.2);
/// - `completeness_*`: `S_max(c_i)` over answer sentences, mean and weighted (3.3.1);
/// - `wasserstein_exact`: optimal transport with uniform weights and cosine distance `1 - Sim`;
///   `wasserstein_mean_pairwise`: the paper's approximation, the mean pairwise distance (3.3.2);
/// - `answer_relevancy_*`: `S_max(a_i)` over query sentences, mean / weighted / min (3.4);
/// - `ragas_like`: mean of `groundedness_mean`, `answer_relevancy_mean` and `context_relevancy_mean`.
pub const COLUMNS: [&str; 15] = [
    "hcat_context_relevancy_mean",
    "hcat_context_relevancy_weighted",
    "hcat_context_relevancy_minimax",
    "hcat_groundedness_mean",
    "hcat_groundedness_min",
    "hcat_nli_groundedness_mean",
    "hcat_nli_groundedness_min",
    "hcat_completeness_mean",
    "hcat_completeness_weighted",
    "hcat_wasserstein_exact",
    "hcat_wasserstein_mean_pairwise",
    "hcat_answer_relevancy_mean",
    "hcat_answer_relevancy_weighted",
    "hcat_answer_relevancy_min",
    "hcat_ragas_like",
];

/// How many least-supported answer sentences the NLI detail names.
const LEAST_SUPPORTED: usize = 3;

/// The HCAT functionality metrics on sentence embeddings, optionally with NLI groundedness.
///
/// A record without query sentences, context sentences or answer sentences gets `None` in every
/// column that needs them. [`Metric::score_batch`] embeds the distinct sentences of all its
/// records in one call and makes one NLI call for all answer sentences.
pub struct HcatMetric {
    embedder: Arc<dyn Embedder>,
    nli: Option<NliSource>,
    premise: Premise,
}

impl HcatMetric {
    /// The embedding metrics; NLI groundedness stays `None`.
    pub fn new(embedder: Arc<dyn Embedder>) -> Self {
        Self { embedder, nli: None, premise: Premise::Joined }
    }

    /// Also computes NLI groundedness from `source`, with the given premise of each sentence.
    pub fn with_nli(mut self, source: NliSource, premise: Premise) -> Self {
        self.nli = Some(source);
        self.premise = premise;
        self
    }

    /// Entailment of every answer sentence of every record (one batched call); `None` for a
    /// record when NLI is off or the record has no answer or no context sentence.
    fn entail_all(
        &self,
        records: &[Record],
        split: &[RecordSentences],
    ) -> Vec<Option<Vec<Result<Entailment, HcatError>>>> {
        let Some(source) = &self.nli else { return vec![None; records.len()] };
        let joined: Vec<String> = records
            .iter()
            .map(|r| {
                r.contexts.iter().map(|c| c.text.trim()).filter(|t| !t.is_empty()).collect::<Vec<_>>().join("\n\n")
            })
            .collect();
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        // layout[record][sentence] = indices into `pairs` whose best entailment is the sentence's.
        let mut layout: Vec<Option<Vec<Vec<usize>>>> = Vec::with_capacity(records.len());
        for ((record, s), premise) in records.iter().zip(split).zip(&joined) {
            if s.answer.is_empty() || s.context.is_empty() {
                layout.push(None);
                continue;
            }
            let mut per_sentence = Vec::with_capacity(s.answer.len());
            for &hypothesis in &s.answer {
                let premises: Vec<&str> = match self.premise {
                    Premise::Joined => vec![premise.as_str()],
                    Premise::BestPassage => {
                        record.contexts.iter().map(|c| c.text.trim()).filter(|t| !t.is_empty()).collect()
                    }
                };
                let start = pairs.len();
                pairs.extend(premises.into_iter().map(|p| (p, hypothesis)));
                per_sentence.push((start..pairs.len()).collect());
            }
            layout.push(Some(per_sentence));
        }
        let results = source.entail(&pairs);
        layout
            .into_iter()
            .map(|l| {
                l.map(|per_sentence| {
                    per_sentence
                        .into_iter()
                        .map(|idx| best_entailment(idx.iter().map(|&i| results[i].clone())))
                        .collect()
                })
            })
            .collect()
    }
}

/// The most entailing of several premises' results (the largest `D`, i.e. the largest `sigma(D)`);
/// any error fails the sentence.
fn best_entailment(results: impl Iterator<Item = Result<Entailment, HcatError>>) -> Result<Entailment, HcatError> {
    let mut best: Option<Entailment> = None;
    for r in results {
        let e = r?;
        if best.is_none_or(|b| e.score > b.score) {
            best = Some(e);
        }
    }
    best.ok_or_else(|| HcatError::Model("no premise to test entailment against".into()))
}

impl Metric for HcatMetric {
    fn name(&self) -> &str {
        "hcat"
    }

    fn columns(&self) -> Vec<String> {
        COLUMNS.iter().map(|c| c.to_string()).collect()
    }

    fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
        self.score_batch(std::slice::from_ref(record))
            .pop()
            .unwrap_or_else(|| Err(MetricError::Contract("no result".into())))
    }

    fn score_batch(&self, records: &[Record]) -> Vec<Result<MetricOutput, MetricError>> {
        let split: Vec<RecordSentences> = records.iter().map(RecordSentences::of).collect();
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut texts: Vec<&str> = Vec::new();
        for t in split.iter().flat_map(RecordSentences::all) {
            index.entry(t).or_insert_with(|| {
                texts.push(t);
                texts.len() - 1
            });
        }
        let vectors = if texts.is_empty() {
            Vec::new()
        } else {
            match self.embedder.embed(&texts) {
                Ok(v) if v.len() == texts.len() => v,
                Ok(v) => {
                    let e = format!("embedder returned {} vectors for {} sentences", v.len(), texts.len());
                    return vec![Err(MetricError::Model(e.into())); records.len()];
                }
                Err(e) => {
                    return vec![
                        Err(MetricError::Model(ragjudge_models::Reason::caused("embedding failed", e)));
                        records.len()
                    ]
                }
            }
        };
        let lookup = |t: &str| -> &[f32] { &vectors[index[t]] };
        let nli = self.entail_all(records, &split);
        let kind = self.nli.as_ref().map(NliSource::kind);
        split.iter().zip(nli).map(|(s, n)| score_record(s, &lookup, n, kind)).collect()
    }
}

/// Scores one record from its sentences' vectors and (optionally) its sentences' entailments.
fn score_record<'a>(
    s: &RecordSentences<'a>,
    vector: &dyn Fn(&str) -> &'a [f32],
    nli: Option<Vec<Result<Entailment, HcatError>>>,
    nli_kind: Option<&str>,
) -> Result<MetricOutput, MetricError> {
    for t in s.all() {
        let v = vector(t);
        let norm: f64 = v.iter().map(|&x| f64::from(x) * f64::from(x)).sum();
        if !(norm.is_finite() && norm > 0.0) {
            return Err(MetricError::Model(format!("embedding of sentence {t:?} has zero or non-finite norm").into()));
        }
    }
    let context_texts = s.context_texts();
    let q: Vec<&[f32]> = s.query.iter().map(|t| vector(t)).collect();
    let c: Vec<&[f32]> = context_texts.iter().map(|t| vector(t)).collect();
    let a: Vec<&[f32]> = s.answer.iter().map(|t| vector(t)).collect();
    let err = MetricError::from;
    let qc = SimMatrix::new(&q, &c).map_err(err)?;
    let ac = SimMatrix::new(&a, &c).map_err(err)?;
    let aq = SimMatrix::new(&a, &q).map_err(err)?;

    // 3.1 context relevancy: query sentences against context sentences.
    let cr_matches = qc.row_max();
    let cr_weights = word_weights(&s.query);
    let cr = Aggregates::of(&cr_matches, &cr_weights);
    // 3.2.1 groundedness: answer sentences against context sentences.
    let g_matches = ac.row_max();
    let g = Aggregates::of(&g_matches, &vec![0.0; g_matches.len()]);
    // 3.3.1 completeness: context sentences against answer sentences.
    let cp_matches = ac.col_max();
    let cp_weights = word_weights(&context_texts);
    let cp = Aggregates::of(&cp_matches, &cp_weights);
    // 3.3.2 Wasserstein distance from the context to the answer, cosine distance.
    let (w_exact, w_approx, transport) = if c.is_empty() || a.is_empty() {
        (None, None, None)
    } else {
        let cost = ac.distances_transposed();
        let t = exact_uniform(&cost).map_err(err)?;
        (Some(t.cost), mean_pairwise(&cost), Some(t.plan))
    };
    // 3.4 answer relevancy: answer sentences against query sentences.
    let ar_matches = aq.row_max();
    let ar_weights = word_weights(&s.answer);
    let ar = Aggregates::of(&ar_matches, &ar_weights);
    // 3.2.2 NLI groundedness.
    let entailments = match nli {
        Some(list) => Some(list.into_iter().collect::<Result<Vec<_>, _>>().map_err(err)?),
        None => None,
    };
    let nli_scores: Option<Vec<MaxMatch>> =
        entailments.as_ref().map(|es| es.iter().map(|e| MaxMatch { best: 0, score: e.score }).collect());
    let nli_agg = nli_scores.as_ref().and_then(|m| Aggregates::of(m, &vec![0.0; m.len()]));

    let ragas_like = match (g, ar, cr) {
        (Some(g), Some(ar), Some(cr)) => Some((g.mean + ar.mean + cr.mean) / 3.0),
        _ => None,
    };
    let values = vec![
        cr.map(|x| x.mean),
        cr.map(|x| x.weighted),
        cr.map(|x| x.min),
        g.map(|x| x.mean),
        g.map(|x| x.min),
        nli_agg.map(|x| x.mean),
        nli_agg.map(|x| x.min),
        cp.map(|x| x.mean),
        cp.map(|x| x.weighted),
        w_exact,
        w_approx,
        ar.map(|x| x.mean),
        ar.map(|x| x.weighted),
        ar.map(|x| x.min),
        ragas_like,
    ];
    if values.iter().flatten().any(|v| !v.is_finite()) {
        return Err(MetricError::Contract("a score is not finite".into()));
    }

    let mut detail = serde_json::Map::new();
    detail.insert("query_sentences".into(), json!(s.query));
    detail.insert(
        "context_sentences".into(),
        Value::Array(s.context.iter().map(|c| json!({"passage": c.passage, "text": c.text})).collect()),
    );
    detail.insert("answer_sentences".into(), json!(s.answer));
    if cr.is_some() {
        detail.insert(
            "context_relevancy".into(),
            json!({"per_query_sentence": matches_json(&cr_matches, Some(&cr_weights), "best_context")}),
        );
    }
    if let Some(g) = g {
        detail.insert(
            "groundedness".into(),
            json!({
                "per_answer_sentence": matches_json(&g_matches, None, "best_context"),
                "least_grounded": {"sentence": g.argmin, "text": s.answer[g.argmin], "similarity": g.min,
                                   "best_context": g_matches[g.argmin].best},
            }),
        );
    }
    if cp.is_some() {
        let mut comp = serde_json::Map::new();
        comp.insert("per_context_sentence".into(), matches_json(&cp_matches, Some(&cp_weights), "best_answer"));
        if let Some(plan) = transport {
            let plan: Vec<Value> =
                plan.iter().map(|&(i, j, m)| json!({"context": i, "answer": j, "mass": m})).collect();
            comp.insert("transport_plan".into(), Value::Array(plan));
        }
        detail.insert("completeness".into(), Value::Object(comp));
    }
    if ar.is_some() {
        detail.insert(
            "answer_relevancy".into(),
            json!({"per_answer_sentence": matches_json(&ar_matches, Some(&ar_weights), "best_query")}),
        );
    }
    if let (Some(es), Some(kind)) = (&entailments, nli_kind) {
        let per: Vec<Value> = es.iter().map(|e| json!({"distance": e.distance, "score": e.score})).collect();
        let mut order: Vec<usize> = (0..es.len()).collect();
        order.sort_by(|&x, &y| es[x].score.total_cmp(&es[y].score).then(x.cmp(&y)));
        let least: Vec<Value> = order
            .iter()
            .take(LEAST_SUPPORTED)
            .map(|&i| json!({"sentence": i, "text": s.answer[i], "score": es[i].score, "distance": es[i].distance}))
            .collect();
        let unsupported = es.iter().filter(|e| e.score < 0.5).count();
        detail.insert(
            "nli_groundedness".into(),
            json!({"source": kind, "per_answer_sentence": per, "least_supported": least, "unsupported_sentences": unsupported}),
        );
    }
    Ok(MetricOutput { values, detail: Some(Value::Object(detail)) })
}

/// Per-sentence `S_max`, best partner and (optionally) weight, as JSON.
fn matches_json(matches: &[MaxMatch], weights: Option<&[f64]>, partner: &str) -> Value {
    Value::Array(
        matches
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let mut o = serde_json::Map::new();
                o.insert("similarity".into(), json!(m.score));
                o.insert(partner.into(), json!(m.best));
                if let Some(w) = weights {
                    o.insert("weight".into(), json!(w[i]));
                }
                Value::Object(o)
            })
            .collect(),
    )
}
