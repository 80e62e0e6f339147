//! `semantic`: learned similarity of the answer to the reference and to the query, the two learned
//! input metrics of the CIU paper's Table 1 (§5.1) that the other families lack.
//!
//! - `bertscore_p`, `bertscore_r`, `bertscore_f`: BERTScore of the answer (candidate) against the
//!   reference (Zhang et al. 2020, §3), greedy matching on contextual token vectors without idf
//!   weighting (the `bert-score` package's default), by
//!   [`ragjudge_trec::answer::bertscore::bert_score`] on the token vectors of the run's embedder
//!   model (`--embedder`, by default all-MiniLM-L6-v2's last layer, not BERT-base or RoBERTa-large;
//!   no baseline rescaling), so the values are not those of `bert-score`'s default model.
//! - `ruber_ref`: RUBER's referenced score (Tao et al. 2018, "Referenced metric"; on contextual
//!   embeddings as in Ghazarian et al. 2019): the cosine of the pooled (mean-pooled, the embedder's
//!   own sentence vectors) embeddings of answer and reference, in [-1, 1].
//! - `ruber_unref`, `ruber`: only with a trained unreferenced model (`--ruber-model FILE`, trained by
//!   [`fit_ruber`]): RUBER's unreferenced score of (query, answer) in (0, 1), and the RUBER score, the
//!   arithmetic mean of the referenced cosine clipped to [0, 1] and the unreferenced score. See
//!   [`ragjudge_fusion::ruber`] for the model and every choice the papers leave open.
//!
//! A column that does not apply is empty: the BERTScore columns, `ruber_ref` and `ruber` need a
//! non-blank answer and reference; `ruber_unref` a non-blank query and answer (no reference).
//! Every distinct text of a batch of records is embedded in one call per model; when such a call
//! fails, each text is embedded alone, so that only the records whose own texts fail get an error.
//! In a run the sentence and token vectors come from the same model (`--embedder`), so the sentence
//! vectors of answers and references are pooled from their token vectors (mean over all tokens, then
//! L2-normalised: what the embedder itself computes) and each of these texts passes through the
//! encoder once; queries go through the sentence embedder (and its cache).

use super::{MetricFamily, MetricSettings};
use crate::error::EvalError;
use crate::models::{ModelSet, ModelSettings};
use super::file_identity;
use serde_json::{json, Value};
use ragjudge_core::{Metric, MetricError, MetricOutput, Record};
use ragjudge_fusion::ruber::{self, RuberParams, RuberUnreferenced};
use ragjudge_models::{Embedder, ModelError, TokenEmbedder, TokenEmbedding};
use ragjudge_trec::answer::bertscore::bert_score;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// Fewest records with both a query and an answer that [`fit_ruber`] trains on.
pub const MIN_RUBER_PAIRS: usize = 10;

/// Options of the semantic metrics.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SemanticSettings {
    /// A trained unreferenced RUBER model (JSON, from [`fit_ruber`] and
    /// [`RuberUnreferenced::save`]); without it the `ruber_unref` and `ruber` columns are absent.
    pub ruber_model: Option<PathBuf>,
}

/// The `semantic` family.
pub struct Semantic;

impl MetricFamily for Semantic {
    fn name(&self) -> &'static str {
        "semantic"
    }

    fn definition(&self, settings: &MetricSettings, models: &ModelSettings) -> Value {
        json!({"embedder": models.embedder, "ruber_model": settings.semantic.ruber_model.as_deref().map(file_identity)})
    }

    fn build(&self, settings: &MetricSettings, models: &ModelSet) -> Result<Vec<Box<dyn Metric>>, EvalError> {
        let ruber = match &settings.semantic.ruber_model {
            Some(path) => {
                Some(RuberUnreferenced::load(path).map_err(|e| EvalError::settings(format!("--ruber-model {e}")))?)
            }
            None => None,
        };
        let path = settings.semantic.ruber_model.as_deref();
        let metric =
            SemanticMetric::new(models.embedder()?, models.token_embedder()?, ruber).map_err(|e| match (e, path) {
                (EvalError::Settings(m), Some(p)) => EvalError::settings(format!("--ruber-model {}: {m}", p.display())),
                (e, _) => e,
            })?;
        Ok(vec![Box::new(metric)])
    }
}

/// BERTScore and RUBER of each record's answer (module docs).
pub struct SemanticMetric {
    embedder: Arc<dyn Embedder>,
    token_embedder: Arc<dyn TokenEmbedder>,
    ruber: Option<RuberUnreferenced>,
    /// Sentence vectors of answers and references from their token vectors (same model).
    pool_tokens: bool,
}

impl SemanticMetric {
    /// The metric on these models; a RUBER model must have been trained on `embedder`'s vectors
    /// (same identity and dimension), else a settings error says which encoders differ.
    ///
    /// When both are the same model (same identity and dimension, as in a run, where both are
    /// `--embedder`), the sentence vectors of answers and references are the L2-normalised mean of
    /// their token vectors, which is the embedder's own pooling, so that each of these texts passes
    /// through the encoder once; queries go through `embedder`.
    pub fn new(
        embedder: Arc<dyn Embedder>,
        token_embedder: Arc<dyn TokenEmbedder>,
        ruber: Option<RuberUnreferenced>,
    ) -> Result<Self, EvalError> {
        if let Some(model) = &ruber {
            model
                .check_encoder(&embedder.identity(), embedder.dim())
                .map_err(|e| EvalError::settings(e.to_string()))?;
        }
        let pool_tokens = embedder.identity() == token_embedder.identity() && embedder.dim() == token_embedder.dim();
        Ok(Self { embedder, token_embedder, ruber, pool_tokens })
    }
}

/// The non-blank text, if any.
fn present(text: &str) -> Option<&str> {
    (!text.trim().is_empty()).then_some(text)
}

/// Distinct texts in first-seen order, and where each text sits in that list.
#[derive(Default)]
struct Texts<'a> {
    list: Vec<&'a str>,
    index: HashMap<&'a str, usize>,
}

impl<'a> Texts<'a> {
    fn add(&mut self, text: &'a str) -> usize {
        *self.index.entry(text).or_insert_with(|| {
            self.list.push(text);
            self.list.len() - 1
        })
    }
}

/// Embeds `texts` in one call; if that call fails (or answers the wrong number of items), each text
/// alone, so that a failure stays with the texts that cause it.
fn embed_each<T>(texts: &[&str], embed: impl Fn(&[&str]) -> Result<Vec<T>, ModelError>) -> Vec<Result<T, String>> {
    if texts.is_empty() {
        return Vec::new();
    }
    match embed(texts) {
        Ok(v) if v.len() == texts.len() => v.into_iter().map(Ok).collect(),
        _ => texts
            .iter()
            .map(|t| match embed(std::slice::from_ref(t)) {
                Ok(mut v) if v.len() == 1 => v.pop().ok_or_else(|| "no output".to_string()),
                Ok(v) => Err(format!("the model returned {} outputs for one text", v.len())),
                Err(e) => Err(e.to_string()),
            })
            .collect(),
    }
}

/// Where a text's sentence vector comes from: its token vectors, mean pooled, or the embedder.
#[derive(Clone, Copy)]
enum Pooled {
    /// Position in the token-text list.
    Tokens(usize),
    /// Position in the sentence-text list.
    Sentence(usize),
}

/// What one record needs: where its texts' vectors are.
struct Need {
    /// Answer and reference in the token list (BERTScore).
    tokens: Option<(usize, usize)>,
    /// Answer and reference sentence vectors (`ruber_ref`).
    reference: Option<(Pooled, Pooled)>,
    /// Query and answer sentence vectors (`ruber_unref`).
    query: Option<(Pooled, Pooled)>,
}

/// The embeddings of one batch's distinct texts.
struct Embedded {
    tokens: Vec<Result<TokenEmbedding, String>>,
    /// The mean-pooled, L2-normalised token vectors, one per token text (when pooling tokens).
    from_tokens: Vec<Result<Vec<f32>, String>>,
    sentences: Vec<Result<Vec<f32>, String>>,
}

impl Embedded {
    fn pooled(&self, at: Pooled, what: &str) -> Result<&[f32], MetricError> {
        match at {
            Pooled::Tokens(i) => pick(&self.from_tokens, i, what),
            Pooled::Sentence(i) => pick(&self.sentences, i, what),
        }
        .map(Vec::as_slice)
    }
}

/// Mean of the token vectors (special tokens included, as mean pooling over the attention mask),
/// divided by its L2 norm (left as is when the norm is 0).
fn mean_pool(t: &TokenEmbedding) -> Vec<f32> {
    let dim = t.vectors.first().map_or(0, Vec::len);
    let mut mean = vec![0f64; dim];
    for v in &t.vectors {
        mean.iter_mut().zip(v).for_each(|(m, &x)| *m += f64::from(x));
    }
    let norm = mean.iter().map(|m| m * m).sum::<f64>().sqrt();
    let scale = if norm > 0.0 { 1.0 / norm } else { 1.0 };
    mean.iter().map(|m| (m * scale) as f32).collect()
}

impl SemanticMetric {
    fn score_one(&self, need: &Need, e: &Embedded) -> Result<MetricOutput, MetricError> {
        let mut values: Vec<Option<f64>> = vec![None; if self.ruber.is_some() { 6 } else { 4 }];
        if let Some((a, r)) = need.tokens {
            if let Some(s) = bert_score(pick(&e.tokens, a, "answer")?, pick(&e.tokens, r, "reference")?, None) {
                values[0] = Some(s.precision);
                values[1] = Some(s.recall);
                values[2] = Some(s.f1);
            }
        }
        let model_error = |e: ragjudge_fusion::FusionError| MetricError::Model(ragjudge_models::Reason::caused("semantic", e));
        let mut cosine = None;
        if let Some((a, r)) = need.reference {
            let c = ruber::referenced(e.pooled(a, "answer")?, e.pooled(r, "reference")?).map_err(model_error)?;
            values[3] = Some(c);
            cosine = Some(c);
        }
        if let (Some(model), Some((q, a))) = (&self.ruber, need.query) {
            let u = model.score(e.pooled(q, "query")?, e.pooled(a, "answer")?).map_err(model_error)?;
            values[4] = Some(u);
            values[5] = cosine.map(|c| ruber::combined(c, u));
        }
        Ok(MetricOutput { values, detail: None })
    }
}

/// The embedding at `i`, or the record's error when embedding that text failed.
fn pick<'a, T>(list: &'a [Result<T, String>], i: usize, what: &str) -> Result<&'a T, MetricError> {
    match list.get(i) {
        Some(Ok(v)) => Ok(v),
        Some(Err(e)) => Err(MetricError::Model(format!("semantic: embedding the {what} failed: {e}").into())),
        None => Err(MetricError::Contract("semantic: an embedding is missing".into())),
    }
}

impl Metric for SemanticMetric {
    fn name(&self) -> &str {
        "semantic"
    }

    fn columns(&self) -> Vec<String> {
        let mut c = vec!["bertscore_p", "bertscore_r", "bertscore_f", "ruber_ref"];
        if self.ruber.is_some() {
            c.extend(["ruber_unref", "ruber"]);
        }
        c.into_iter().map(String::from).collect()
    }

    fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
        self.score_batch(std::slice::from_ref(record))
            .pop()
            .unwrap_or_else(|| Err(MetricError::Contract("semantic: no result for the record".into())))
    }

    fn score_batch(&self, records: &[Record]) -> Vec<Result<MetricOutput, MetricError>> {
        let (mut token_texts, mut sentence_texts) = (Texts::default(), Texts::default());
        let needs: Vec<Need> = records
            .iter()
            .map(|r| {
                let answer = present(&r.answer);
                let with_ref = answer.zip(r.reference.as_deref().and_then(present));
                let with_query = if self.ruber.is_some() { present(&r.query).zip(answer) } else { None };
                // Queries always, answers and references unless pooled from their token vectors,
                // go through the sentence embedder.
                let mut at = |text, sentence: bool| {
                    if sentence || !self.pool_tokens {
                        Pooled::Sentence(sentence_texts.add(text))
                    } else {
                        Pooled::Tokens(token_texts.add(text))
                    }
                };
                let reference = with_ref.map(|(a, g)| (at(a, false), at(g, false)));
                let query = with_query.map(|(q, a)| (at(q, true), at(a, false)));
                let tokens = with_ref.map(|(a, g)| (token_texts.add(a), token_texts.add(g)));
                Need { tokens, reference, query }
            })
            .collect();
        let tokens = embed_each(&token_texts.list, |t| self.token_embedder.embed_tokens(t));
        let from_tokens = if self.pool_tokens {
            tokens.iter().map(|t| t.as_ref().map(mean_pool).map_err(Clone::clone)).collect()
        } else {
            Vec::new()
        };
        let sentences = embed_each(&sentence_texts.list, |t| self.embedder.embed(t));
        let embedded = Embedded { tokens, from_tokens, sentences };
        needs.iter().map(|n| self.score_one(n, &embedded)).collect()
    }
}

/// Trains RUBER's unreferenced scorer on the (query, answer) pairs of `records` with the run's
/// embedder (pooled vectors), every record with a non-blank query and answer being a true pair;
/// at least [`MIN_RUBER_PAIRS`] are needed. Save the result with [`RuberUnreferenced::save`] and
/// score with it through [`SemanticSettings::ruber_model`].
pub fn fit_ruber(records: &[Record], models: &ModelSet, params: &RuberParams) -> Result<RuberUnreferenced, EvalError> {
    fit_ruber_with(records, models.embedder()?.as_ref(), params)
}

/// [`fit_ruber`] with a given embedder.
pub fn fit_ruber_with(
    records: &[Record],
    embedder: &dyn Embedder,
    params: &RuberParams,
) -> Result<RuberUnreferenced, EvalError> {
    let pairs: Vec<(&str, &str)> = records.iter().filter_map(|r| present(&r.query).zip(present(&r.answer))).collect();
    if pairs.len() < MIN_RUBER_PAIRS {
        return Err(EvalError::settings(format!(
            "RUBER training needs at least {MIN_RUBER_PAIRS} records with a query and an answer, got {} of {} records",
            pairs.len(),
            records.len()
        )));
    }
    let mut texts = Texts::default();
    let idx: Vec<(usize, usize)> = pairs.iter().map(|(q, a)| (texts.add(q), texts.add(a))).collect();
    let vectors = embedder.embed(&texts.list)?;
    if vectors.len() != texts.list.len() {
        return Err(EvalError::settings(format!(
            "RUBER training: the embedder returned {} vectors for {} texts",
            vectors.len(),
            texts.list.len()
        )));
    }
    let qs: Vec<Vec<f32>> = idx.iter().map(|&(q, _)| vectors[q].clone()).collect();
    let rs: Vec<Vec<f32>> = idx.iter().map(|&(_, a)| vectors[a].clone()).collect();
    RuberUnreferenced::fit(&qs, &rs, params, &embedder.identity()).map_err(|e| EvalError::settings(e.to_string()))
}
