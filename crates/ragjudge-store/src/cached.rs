//! [`CachedJudge`]: any [`Judge`] behind the call cache, and [`DryRunJudge`], which counts calls
//! and estimates tokens without calling anything.

use crate::cache::{cache_key, CallCache};
use ragjudge_models::ModelError;
use ragjudge_models::{GenParams, Generation, Judge, LabelProbs, ProbSource, Prompt, Usage};
use serde_json::Value;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Cache kind of [`Judge::generate`] calls.
pub const KIND_GENERATE: &str = "generate";
/// Cache kind of [`Judge::label_probs`] calls. Versioned: `label_probs/2` sums a label's bare
/// and space-led token forms, so results stored under the earlier rule are not reused.
pub const KIND_LABEL_PROBS: &str = "label_probs/2";

/// Default number of cache misses handed to the inner `_many` call at once; each chunk's results
/// are stored before the next chunk starts.
pub const DEFAULT_CHUNK: usize = 8;

/// A judge whose calls go through a [`CallCache`], keyed by the inner judge's identity, the call
/// kind and the request (prompt with parameters or labels).
///
/// Only successful results are stored: a failed call is tried again on the next run. The inner
/// judge's [`Judge::usage`] counts real calls only, since cache hits never reach it.
pub struct CachedJudge<J: Judge> {
    inner: J,
    cache: Arc<CallCache>,
    identity: String,
    chunk: usize,
    read_only: bool,
    hits: AtomicU64,
    misses: AtomicU64,
    store_errors: AtomicU64,
}

impl<J: Judge> CachedJudge<J> {
    /// Wraps `inner` with `cache` (a [`CallCache`] or an `Arc` of one shared with other judges).
    pub fn new(inner: J, cache: impl Into<Arc<CallCache>>) -> Self {
        let identity = inner.identity();
        Self {
            inner,
            cache: cache.into(),
            identity,
            chunk: DEFAULT_CHUNK,
            read_only: false,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            store_errors: AtomicU64::new(0),
        }
    }

    /// Hands at most `n` (>= 1) cache misses to the inner `_many` call at once. Larger chunks use
    /// more of a concurrent backend; smaller ones lose less finished work to a kill.
    pub fn with_chunk_size(mut self, n: usize) -> Self {
        self.chunk = n.max(1);
        self
    }

    /// Looks results up but never stores any (e.g. around a [`DryRunJudge`], to count only the
    /// calls a real run would make).
    pub fn read_only(mut self) -> Self {
        self.read_only = true;
        self
    }

    /// The wrapped judge.
    pub fn inner(&self) -> &J {
        &self.inner
    }

    /// The cache in use.
    pub fn cache(&self) -> &Arc<CallCache> {
        &self.cache
    }

    /// Calls answered from the cache.
    pub fn cache_hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }

    /// Calls the cache could not answer (passed to the inner judge).
    pub fn cache_misses(&self) -> u64 {
        self.misses.load(Ordering::Relaxed)
    }

    /// Results that could not be written to the cache (the call itself succeeded).
    pub fn store_errors(&self) -> u64 {
        self.store_errors.load(Ordering::Relaxed)
    }

    fn generate_key(&self, prompt: &Prompt, params: &GenParams) -> String {
        cache_key(&self.identity, KIND_GENERATE, &(prompt, params))
    }

    fn label_key(&self, prompt: &Prompt, labels: &[String]) -> String {
        cache_key(&self.identity, KIND_LABEL_PROBS, &(prompt, labels))
    }

    fn lookup<T>(&self, key: &str, decode: impl Fn(&Value) -> Option<T>) -> Option<T> {
        let found = self.cache.get(key).and_then(|v| decode(&v));
        if found.is_some() {
            self.hits.fetch_add(1, Ordering::Relaxed);
        } else {
            self.misses.fetch_add(1, Ordering::Relaxed);
        }
        found
    }

    fn store(&self, key: &str, value: Value) {
        if self.read_only {
            return;
        }
        if self.cache.put(key, &value).is_err() {
            // The result is still returned; losing its cache entry costs one call on a re-run.
            self.store_errors.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Runs `call` on the misses among `keys` in chunks, storing each chunk's results as soon as it
    /// returns; hits are decoded from the cache. Results keep request order.
    fn many<R: Clone, T>(
        &self,
        requests: &[R],
        keys: Vec<String>,
        decode: impl Fn(&Value) -> Option<T>,
        encode: impl Fn(&T) -> Value,
        call: impl Fn(&[R]) -> Vec<Result<T, ModelError>>,
    ) -> Vec<Result<T, ModelError>> {
        let mut out: Vec<Option<Result<T, ModelError>>> =
            keys.iter().map(|k| self.lookup(k, &decode).map(Ok)).collect();
        let missing: Vec<usize> = (0..requests.len()).filter(|&i| out[i].is_none()).collect();
        for idx in missing.chunks(self.chunk) {
            let batch: Vec<R> = idx.iter().map(|&i| requests[i].clone()).collect();
            let mut results = call(&batch).into_iter();
            for &i in idx {
                let r = results.next().unwrap_or_else(|| Err(ModelError::missing("result")));
                if let Ok(v) = &r {
                    self.store(&keys[i], encode(v));
                }
                out[i] = Some(r);
            }
        }
        out.into_iter().map(|r| r.unwrap_or_else(|| Err(ModelError::missing("result")))).collect()
    }
}

fn decode_generation(v: &Value) -> Option<Generation> {
    serde_json::from_value(v.clone()).ok()
}

fn encode_generation(g: &Generation) -> Value {
    serde_json::to_value(g).unwrap_or(Value::Null)
}

/// Floats of label probabilities are stored as Rust's shortest round-trip decimal text (`-0.1`,
/// `-inf`): JSON has no infinities (serde_json writes them as `null`, and logits of labels absent
/// from `top_logprobs` are `-inf`), and serde_json's default float parser may be off by one ulp,
/// which would make a cache hit differ from the call it stands for.
fn float_to_json(x: f64) -> Value {
    Value::String(x.to_string())
}

fn float_from_json(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

fn encode_label_probs(p: &LabelProbs) -> Value {
    let mut v = serde_json::to_value(p).unwrap_or(Value::Null);
    v["probs"] = Value::Array(p.probs.iter().map(|&x| float_to_json(x)).collect());
    v["logits"] = Value::Array(p.logits.iter().map(|&x| float_to_json(x)).collect());
    v["label_mass"] = p.label_mass.map(float_to_json).unwrap_or(Value::Null);
    v
}

fn decode_label_probs(v: &Value) -> Option<LabelProbs> {
    let floats = |v: &Value| -> Option<Vec<f64>> { v.as_array()?.iter().map(float_from_json).collect() };
    let labels: Vec<String> = serde_json::from_value(v["labels"].clone()).ok()?;
    let source: ProbSource = serde_json::from_value(v["source"].clone()).ok()?;
    let label_mass = if v["label_mass"].is_null() { None } else { Some(float_from_json(&v["label_mass"])?) };
    Some(LabelProbs { labels, probs: floats(&v["probs"])?, logits: floats(&v["logits"])?, label_mass, source })
}

impl<J: Judge> Judge for CachedJudge<J> {
    fn identity(&self) -> String {
        self.identity.clone()
    }

    fn generate(&self, prompt: &Prompt, params: &GenParams) -> Result<Generation, ModelError> {
        let key = self.generate_key(prompt, params);
        if let Some(g) = self.lookup(&key, decode_generation) {
            return Ok(g);
        }
        let g = self.inner.generate(prompt, params)?;
        self.store(&key, encode_generation(&g));
        Ok(g)
    }

    fn label_probs(&self, prompt: &Prompt, labels: &[String]) -> Result<LabelProbs, ModelError> {
        let key = self.label_key(prompt, labels);
        if let Some(p) = self.lookup(&key, decode_label_probs) {
            return Ok(p);
        }
        let p = self.inner.label_probs(prompt, labels)?;
        self.store(&key, encode_label_probs(&p));
        Ok(p)
    }

    fn generate_many(&self, requests: &[(Prompt, GenParams)]) -> Vec<Result<Generation, ModelError>> {
        let keys = requests.iter().map(|(p, g)| self.generate_key(p, g)).collect();
        self.many(requests, keys, decode_generation, encode_generation, |batch| self.inner.generate_many(batch))
    }

    fn label_probs_many(&self, requests: &[(Prompt, Vec<String>)]) -> Vec<Result<LabelProbs, ModelError>> {
        let keys = requests.iter().map(|(p, l)| self.label_key(p, l)).collect();
        self.many(requests, keys, decode_label_probs, encode_label_probs, |batch| self.inner.label_probs_many(batch))
    }

    fn usage(&self) -> Usage {
        self.inner.usage()
    }
}

/// A judge for `--dry-run`: it calls nothing, counts the calls a run would make and estimates
/// their prompt tokens as characters / 4 (rounded up), the usual rule of thumb for English text
/// with BPE tokenizers; chat-template tokens are not counted.
///
/// Its results are placeholders: empty generations (`finish_reason` `dry_run`) and uniform label
/// probabilities marked [`ProbSource::HardLabel`]. Its identity is the real judge's, so that
/// `CachedJudge::new(DryRunJudge::new(id), cache).read_only()` counts only the calls the cache
/// would not answer; never wrap it in a writing [`CachedJudge`], which would store placeholders
/// under the real judge's identity.
#[derive(Debug, Default)]
pub struct DryRunJudge {
    identity: String,
    calls: AtomicU64,
    prompt_tokens: AtomicU64,
}

impl DryRunJudge {
    /// A dry-run judge standing in for the judge of this identity.
    pub fn new(identity: impl Into<String>) -> Self {
        Self { identity: identity.into(), calls: AtomicU64::new(0), prompt_tokens: AtomicU64::new(0) }
    }

    /// The estimated prompt tokens of `prompt`: characters of all messages and the assistant
    /// prefix, divided by 4 and rounded up.
    pub fn estimate_tokens(prompt: &Prompt) -> u64 {
        let chars: usize = prompt.messages.iter().map(|m| m.content.chars().count()).sum::<usize>()
            + prompt.assistant_prefix.as_deref().map_or(0, |p| p.chars().count());
        (chars as u64).div_ceil(4)
    }

    fn count(&self, prompt: &Prompt) -> u64 {
        let t = Self::estimate_tokens(prompt);
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.prompt_tokens.fetch_add(t, Ordering::Relaxed);
        t
    }
}

impl Judge for DryRunJudge {
    fn identity(&self) -> String {
        self.identity.clone()
    }

    fn generate(&self, prompt: &Prompt, _params: &GenParams) -> Result<Generation, ModelError> {
        let t = self.count(prompt);
        Ok(Generation { text: String::new(), prompt_tokens: t, completion_tokens: 0, finish_reason: "dry_run".into() })
    }

    fn label_probs(&self, prompt: &Prompt, labels: &[String]) -> Result<LabelProbs, ModelError> {
        self.count(prompt);
        let n = labels.len().max(1) as f64;
        Ok(LabelProbs {
            labels: labels.to_vec(),
            probs: vec![1.0 / n; labels.len()],
            logits: vec![0.0; labels.len()],
            label_mass: None,
            source: ProbSource::HardLabel,
        })
    }

    fn usage(&self) -> Usage {
        Usage {
            calls: self.calls.load(Ordering::Relaxed),
            prompt_tokens: self.prompt_tokens.load(Ordering::Relaxed),
            completion_tokens: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_probs_with_infinite_logits_round_trip_exactly() {
        let p = LabelProbs {
            labels: vec!["A".into(), "B".into()],
            probs: vec![0.9168273035060777, 0.08317269649392238],
            logits: vec![-0.1, f64::NEG_INFINITY],
            label_mass: Some(0.6),
            source: ProbSource::TopLogprobs,
        };
        let v = encode_label_probs(&p);
        let text = serde_json::to_string(&v).unwrap();
        let back = decode_label_probs(&serde_json::from_str(&text).unwrap()).unwrap();
        assert_eq!(back, p);
    }

    #[test]
    fn dry_run_estimates_chars_over_four() {
        let j = DryRunJudge::new("x");
        // 5 + 6 characters = 11 -> ceil(11 / 4) = 3
        let p = Prompt::chat("abcde", "fghijk");
        let g = j.generate(&p, &GenParams::default()).unwrap();
        assert_eq!(g.prompt_tokens, 3);
        j.label_probs(&p, &["A".into(), "B".into()]).unwrap();
        assert_eq!(j.usage(), Usage { calls: 2, prompt_tokens: 6, completion_tokens: 0 });
    }
}
