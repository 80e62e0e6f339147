//! The llama.cpp model and context, owned by the judge's worker thread.
//!
//! The context keeps the tokens whose KV-cache entries it holds (`cached`). A new prompt is
//! compared with them: the longest common prefix is kept, the cells after it are removed, and
//! only the new suffix is decoded, in `n_batch` chunks.

use crate::options::{LlamaOptions, LlamaStats};
use crate::template::{chatml, stop_cut, ChatFormat};
use llama_cpp_2::context::params::{KvCacheType, LlamaContextParams};
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use llama_cpp_2::token::LlamaToken;
use ragjudge_models::{GenParams, Generation, LabelProbs, ModelError, ProbSource, Prompt, Reason};
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};

/// Facts about a loaded model, sent back to the judge once at load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelInfo {
    /// Vocabulary size (length of a logits vector).
    pub n_vocab: usize,
    /// Context length in tokens.
    pub n_ctx: usize,
    /// The chat format prompts are rendered with.
    pub chat_format: ChatFormat,
}

pub(crate) struct Engine<'m> {
    model: &'m LlamaModel,
    ctx: LlamaContext<'m>,
    batch: LlamaBatch<'static>,
    n_batch: usize,
    n_ctx: usize,
    template: Option<LlamaChatTemplate>,
    /// Tokens whose KV entries the context holds, at positions `0..cached.len()`.
    cached: Vec<LlamaToken>,
    /// Next-token logits after the last token of `cached`, when known.
    last_logits: Option<Vec<f32>>,
    /// Logits after the first `n` tokens of `cached`, saved at the end of the last prompt:
    /// repeating that prompt after a generation costs no decode and gives identical logits.
    prompt_logits: Option<(usize, Vec<f32>)>,
    stats: Arc<Mutex<LlamaStats>>,
    seed: u64,
}

/// A failed llama.cpp call, its error kept as the cause.
fn inference(e: impl std::error::Error + Send + Sync + 'static) -> ModelError {
    ModelError::Inference(Reason::of(e))
}

/// An inference failure without an underlying error.
fn inference_msg(what: impl std::fmt::Display) -> ModelError {
    ModelError::Inference(Reason::new(what.to_string()))
}

impl<'m> Engine<'m> {
    pub(crate) fn new(
        model: &'m LlamaModel,
        backend: &LlamaBackend,
        opts: &LlamaOptions,
        stats: Arc<Mutex<LlamaStats>>,
    ) -> Result<Self, ModelError> {
        let threads = i32::try_from(opts.thread_count()).unwrap_or(i32::MAX);
        let n_ctx = opts.n_ctx.max(16);
        let n_batch = opts.n_batch.clamp(1, n_ctx);
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(n_ctx))
            .with_n_batch(n_batch)
            .with_n_ubatch(n_batch)
            .with_n_threads(threads)
            .with_n_threads_batch(threads);
        // Exact mode: no flash attention and an f32 KV cache. Then a prompt's logits are
        // bitwise the same however the prompt was split between cache and new batches (with
        // llama.cpp's defaults they moved by up to 0.5 on SmolLM2, see the crate docs).
        let params = if opts.exact {
            params
                .with_flash_attention_policy(llama_cpp_sys_2::LLAMA_FLASH_ATTN_TYPE_DISABLED)
                .with_type_k(KvCacheType::F32)
                .with_type_v(KvCacheType::F32)
        } else {
            params
        };
        let ctx = model
            .new_context(backend, params)
            .map_err(|e| ModelError::Load(Reason::caused("cannot create a llama.cpp context", e)))?;
        let n_ctx = ctx.n_ctx() as usize;
        let mut engine = Self {
            model,
            ctx,
            batch: LlamaBatch::new(n_batch as usize, 1),
            n_batch: n_batch as usize,
            n_ctx,
            template: None,
            cached: Vec::new(),
            last_logits: None,
            prompt_logits: None,
            stats,
            seed: opts.seed,
        };
        // Use the file's template only if llama.cpp's template engine can apply it.
        if let Ok(t) = model.chat_template(None) {
            let probe = [LlamaChatMessage::new("user".into(), "hi".into()).map_err(inference)?];
            if model.apply_chat_template(&t, &probe, true).is_ok() {
                engine.template = Some(t);
            }
        }
        Ok(engine)
    }

    pub(crate) fn info(&self) -> ModelInfo {
        ModelInfo {
            n_vocab: usize::try_from(self.model.n_vocab()).unwrap_or(0),
            n_ctx: self.n_ctx,
            chat_format: if self.template.is_some() { ChatFormat::Model } else { ChatFormat::ChatMl },
        }
    }

    /// Forgets the KV cache (after a failure, or on request).
    pub(crate) fn reset(&mut self) {
        self.ctx.clear_kv_cache();
        self.cached.clear();
        self.last_logits = None;
        self.prompt_logits = None;
    }

    /// The prompt as text: chat template with the assistant turn opened, then the prefix.
    pub(crate) fn render(&self, prompt: &Prompt) -> Result<String, ModelError> {
        let Some(t) = &self.template else { return Ok(chatml(prompt)) };
        let msgs = prompt
            .messages
            .iter()
            .map(|m| LlamaChatMessage::new(m.role.clone(), m.content.clone()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(inference)?;
        let mut text = self
            .model
            .apply_chat_template(t, &msgs, true)
            .map_err(|e| ModelError::Inference(Reason::caused("chat template", e)))?;
        if let Some(prefix) = &prompt.assistant_prefix {
            text.push_str(prefix);
        }
        Ok(text)
    }

    /// The prompt's tokens: special tokens of the template are parsed; BOS is added when the
    /// model asks for it and the template did not write it already.
    pub(crate) fn prompt_tokens(&self, prompt: &Prompt) -> Result<Vec<LlamaToken>, ModelError> {
        let text = self.render(prompt)?;
        let vocab = self.model.vocab();
        let mut add_bos = vocab.should_add_bos();
        if add_bos {
            let bos = vocab.token_to_piece(vocab.bos(), true, None);
            if !bos.is_empty() && text.as_bytes().starts_with(&bos) {
                add_bos = false;
            }
        }
        let tokens = vocab.tokenize(text.as_bytes(), add_bos, true);
        if tokens.is_empty() {
            return Err(inference_msg("the prompt has no tokens"));
        }
        Ok(tokens)
    }

    /// Plain tokens of `text`: no BOS, special-token text is not parsed.
    pub(crate) fn tokenize(&self, text: &str) -> Vec<LlamaToken> {
        self.model.vocab().tokenize(text.as_bytes(), false, false)
    }

    /// The tokens a label can be written as: its bare form (`"A"`) and its form after one space
    /// (`" A"`), each kept when it is a single token, without repeats. Neither being a single
    /// token is [`ModelError::MultiTokenLabel`] (with the token count of the shorter form).
    pub(crate) fn label_tokens(&self, label: &str) -> Result<Vec<LlamaToken>, ModelError> {
        let bare = label.trim_start();
        let mut found = Vec::new();
        let mut fewest = usize::MAX;
        for form in [bare.to_string(), format!(" {bare}")] {
            let tokens = self.tokenize(&form);
            fewest = fewest.min(tokens.len());
            if let [t] = tokens.as_slice() {
                if !found.contains(t) {
                    found.push(*t);
                }
            }
        }
        if bare.is_empty() || found.is_empty() {
            return Err(ModelError::MultiTokenLabel { label: label.to_string(), tokens: fewest });
        }
        Ok(found)
    }

    /// Makes the context hold exactly `tokens` and `last_logits` the logits after them,
    /// reusing the longest common prefix with what the context holds already.
    fn eval(&mut self, tokens: &[LlamaToken]) -> Result<(), ModelError> {
        if tokens.is_empty() {
            return Err(inference_msg("the prompt has no tokens"));
        }
        if tokens.len() >= self.n_ctx {
            return Err(inference_msg(format!(
                "the prompt has {} tokens; the context holds {} (raise n_ctx)",
                tokens.len(),
                self.n_ctx
            )));
        }
        let common = self.cached.iter().zip(tokens).take_while(|(a, b)| a == b).count();
        if common == tokens.len() && self.cached.len() == tokens.len() && self.last_logits.is_some() {
            self.count_prefill(0, tokens.len());
            self.prompt_logits = self.last_logits.clone().map(|l| (tokens.len(), l));
            return Ok(());
        }
        if common == tokens.len() && self.truncate_to_prompt(tokens.len()) {
            self.count_prefill(0, tokens.len());
            return Ok(());
        }
        // At least the last token is decoded, for its logits.
        let mut keep = common.min(tokens.len() - 1);
        if keep < self.cached.len() {
            let removed = u32::try_from(keep)
                .ok()
                .and_then(|p0| self.ctx.clear_kv_cache_seq(Some(0), Some(p0), None).ok())
                .unwrap_or(false);
            if removed {
                self.cached.truncate(keep);
                if self.prompt_logits.as_ref().is_some_and(|(n, _)| *n > keep) {
                    self.prompt_logits = None;
                }
            } else {
                // Partial removal is not supported by some memory types (recurrent models).
                self.reset();
                keep = 0;
            }
        }
        self.last_logits = None;
        if let Err(e) = self.decode(&tokens[keep..]) {
            self.reset();
            return Err(e);
        }
        self.count_prefill(tokens.len() - keep, keep);
        self.prompt_logits = self.last_logits.clone().map(|l| (tokens.len(), l));
        Ok(())
    }

    /// Keeps only the first `n` cached tokens.
    fn rollback_to(&mut self, n: usize) {
        if self.cached.len() <= n || self.truncate_to_prompt(n) {
            return;
        }
        let removed = u32::try_from(n)
            .ok()
            .and_then(|p0| self.ctx.clear_kv_cache_seq(Some(0), Some(p0), None).ok())
            .unwrap_or(false);
        if removed {
            self.cached.truncate(n);
            self.last_logits = None;
        } else {
            self.reset();
        }
    }

    /// Cuts the context back to the saved prompt of `n` tokens, when there is one.
    fn truncate_to_prompt(&mut self, n: usize) -> bool {
        let Some((saved, logits)) = &self.prompt_logits else { return false };
        if *saved != n || self.cached.len() < n {
            return false;
        }
        let logits = logits.clone();
        if self.cached.len() > n {
            let removed = u32::try_from(n)
                .ok()
                .and_then(|p0| self.ctx.clear_kv_cache_seq(Some(0), Some(p0), None).ok())
                .unwrap_or(false);
            if !removed {
                return false;
            }
            self.cached.truncate(n);
        }
        self.last_logits = Some(logits);
        true
    }

    fn count_prefill(&self, evaluated: usize, reused: usize) {
        if let Ok(mut s) = self.stats.lock() {
            s.prefill_evaluated += evaluated as u64;
            s.prefill_reused += reused as u64;
        }
    }

    fn count_call(&self, prompt_tokens: usize, generated: usize) {
        if let Ok(mut s) = self.stats.lock() {
            s.calls += 1;
            s.prompt_tokens += prompt_tokens as u64;
            s.generated_tokens += generated as u64;
        }
    }

    /// Decodes `tokens` at the positions after `cached`, in `n_batch` chunks; keeps the logits
    /// of the last one.
    fn decode(&mut self, tokens: &[LlamaToken]) -> Result<(), ModelError> {
        let n = tokens.len();
        let mut done = 0;
        for chunk in tokens.chunks(self.n_batch) {
            self.batch.clear();
            let start = self.cached.len();
            for (i, &t) in chunk.iter().enumerate() {
                let pos = i32::try_from(start + i).map_err(inference)?;
                let last = done + i + 1 == n;
                self.batch.add(t, pos, &[0], last).map_err(inference)?;
            }
            self.ctx.decode(&mut self.batch).map_err(inference)?;
            self.cached.extend_from_slice(chunk);
            done += chunk.len();
        }
        let last = self.batch.n_tokens() - 1;
        self.last_logits = Some(self.ctx.get_logits_ith(last).to_vec());
        Ok(())
    }

    /// Full-vocabulary logits of the token after `prompt`.
    pub(crate) fn next_token_logits(&mut self, prompt: &Prompt) -> Result<Vec<f32>, ModelError> {
        let tokens = self.prompt_tokens(prompt)?;
        self.eval(&tokens)?;
        self.count_call(tokens.len(), 0);
        Ok(self.last_logits.clone().unwrap_or_default())
    }

    /// Full-vocabulary logits after raw token ids.
    pub(crate) fn logits_for_tokens(&mut self, ids: &[i32]) -> Result<Vec<f32>, ModelError> {
        let n_vocab = self.model.n_vocab();
        if let Some(bad) = ids.iter().find(|&&t| t < 0 || t >= n_vocab) {
            return Err(inference_msg(format!("token id {bad} outside the vocabulary")));
        }
        let tokens: Vec<LlamaToken> = ids.iter().map(|&t| LlamaToken(t)).collect();
        self.eval(&tokens)?;
        self.count_call(tokens.len(), 0);
        Ok(self.last_logits.clone().unwrap_or_default())
    }

    pub(crate) fn label_probs(&mut self, prompt: &Prompt, labels: &[String]) -> Result<LabelProbs, ModelError> {
        if labels.is_empty() {
            return Err(inference_msg("label_probs needs at least one label"));
        }
        let forms = labels.iter().map(|l| self.label_tokens(l)).collect::<Result<Vec<_>, _>>()?;
        let tokens = self.prompt_tokens(prompt)?;
        self.eval(&tokens)?;
        self.count_call(tokens.len(), 0);
        let logits = self.last_logits.as_deref().unwrap_or_default();
        let ids: Vec<Vec<usize>> =
            forms.iter().map(|f| f.iter().map(|t| usize::try_from(t.0).unwrap_or(usize::MAX)).collect()).collect();
        label_probs_from_logits(labels, &ids, logits)
    }

    pub(crate) fn generate(&mut self, prompt: &Prompt, params: &GenParams) -> Result<Generation, ModelError> {
        let tokens = self.prompt_tokens(prompt)?;
        self.eval(&tokens)?;
        let model = self.model;
        // A grammar is applied lazily, as llama.cpp's own sampling does: the token the free
        // sampler picks is kept when the grammar allows it, and only otherwise is the grammar
        // applied to the whole vocabulary (checking all ~150k tokens at every step is slow).
        let mut grammar = match params.grammar.as_deref() {
            Some(g) => Some(
                LlamaSampler::grammar(model, g, "root")
                    .map_err(|e| ModelError::Inference(Reason::caused("grammar rejected by llama.cpp", e)))?,
            ),
            None => None,
        };
        let mut sampler = (params.temperature > 0.0).then(|| {
            let mut chain = Vec::new();
            if params.top_p > 0.0 && params.top_p < 1.0 {
                chain.push(LlamaSampler::top_p(params.top_p, 1));
            }
            chain.push(LlamaSampler::temp(params.temperature));
            chain.push(LlamaSampler::dist(mix_seed(self.seed, params.seed)));
            LlamaSampler::chain_simple(chain)
        });
        let vocab = model.vocab();
        let mut text: Vec<u8> = Vec::new();
        let mut generated = 0usize;
        let mut finish = "length";
        let mut result = Ok(());
        while generated < params.max_tokens as usize && self.cached.len() < self.n_ctx {
            let Some(logits) = self.last_logits.as_deref() else { break };
            let mut token = match sampler.as_mut() {
                None => argmax(logits),
                Some(s) => sample(logits, s),
            };
            if let Some(g) = grammar.as_mut() {
                if !allowed(g, token, logits) {
                    let masked = grammar_masked(g, logits);
                    token = match sampler.as_mut() {
                        None => argmax(&masked),
                        Some(s) => sample(&masked, s),
                    };
                }
                g.accept(token);
            }
            if vocab.is_eog(token) {
                finish = "stop";
                break;
            }
            generated += 1;
            let checked = text.len();
            text.extend_from_slice(&vocab.token_to_piece(token, false, None));
            if let Some(cut) = stop_cut(&text, &params.stop, checked) {
                text.truncate(cut);
                finish = "stop";
                break;
            }
            if generated == params.max_tokens as usize {
                break;
            }
            if let Err(e) = self.decode(&[token]) {
                self.reset();
                result = Err(e);
                break;
            }
        }
        self.count_call(tokens.len(), generated);
        result?;
        // Generated tokens were decoded one at a time; their KV entries are not bitwise those a
        // batched prefill would give, so they are dropped: a follow-up prompt that contains the
        // generated text (reasoning, then "Verdict:") prefills it in a batch, as a cold
        // context would, and scores exactly the same.
        self.rollback_to(tokens.len());
        Ok(Generation {
            text: String::from_utf8_lossy(&text).into_owned(),
            prompt_tokens: tokens.len() as u64,
            completion_tokens: generated as u64,
            finish_reason: finish.to_string(),
        })
    }
}

/// One 32-bit sampler seed from the judge's base seed and the request's seed.
fn mix_seed(base: u64, request: u64) -> u32 {
    let x = request ^ base.rotate_left(32);
    (x ^ (x >> 32)) as u32
}

/// Index of the largest logit (the first on ties).
fn argmax(logits: &[f32]) -> LlamaToken {
    let mut best = 0;
    for (i, &l) in logits.iter().enumerate() {
        if l > logits[best] {
            best = i;
        }
    }
    LlamaToken(i32::try_from(best).unwrap_or(0))
}

/// Whether the grammar allows `token` next (its logit survives the grammar sampler).
fn allowed(grammar: &mut LlamaSampler, token: LlamaToken, logits: &[f32]) -> bool {
    let l = logits.get(usize::try_from(token.0).unwrap_or(0)).copied().unwrap_or(f32::NEG_INFINITY);
    let mut one = LlamaTokenDataArray::from_iter([LlamaTokenData::new(token, l, 0.0)], false);
    one.apply_sampler(grammar);
    one.data.first().is_some_and(|d| d.logit().is_finite())
}

/// The logits with every token the grammar forbids next set to minus infinity.
fn grammar_masked(grammar: &mut LlamaSampler, logits: &[f32]) -> Vec<f32> {
    let data =
        logits.iter().enumerate().map(|(i, &l)| LlamaTokenData::new(LlamaToken(i32::try_from(i).unwrap_or(0)), l, 0.0));
    let mut array = LlamaTokenDataArray::from_iter(data, false);
    array.apply_sampler(grammar);
    let mut masked = vec![f32::NEG_INFINITY; logits.len()];
    for d in &array.data {
        if let Some(m) = usize::try_from(d.id().0).ok().and_then(|i| masked.get_mut(i)) {
            *m = d.logit();
        }
    }
    masked
}

fn sample(logits: &[f32], sampler: &mut LlamaSampler) -> LlamaToken {
    let data =
        logits.iter().enumerate().map(|(i, &l)| LlamaTokenData::new(LlamaToken(i32::try_from(i).unwrap_or(0)), l, 0.0));
    let mut array = LlamaTokenDataArray::from_iter(data, false);
    array.apply_sampler(sampler);
    array.selected_token().unwrap_or_else(|| argmax(logits))
}

/// Label probabilities from full-vocabulary next-token logits. `ids[k]` holds the tokens of
/// label `k`'s surface forms; the label's logit is the log-sum-exp of theirs (so its
/// probability is the mass of all its forms), the probabilities are a softmax over the labels'
/// logits only, and `label_mass` is the labels' share of the full softmax (computed in f64).
pub(crate) fn label_probs_from_logits(
    labels: &[String],
    ids: &[Vec<usize>],
    logits: &[f32],
) -> Result<LabelProbs, ModelError> {
    let picked = ids
        .iter()
        .map(|forms| {
            let ls = forms.iter().map(|&i| logits.get(i).map(|&l| f64::from(l))).collect::<Option<Vec<f64>>>()?;
            let m = ls.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (!ls.is_empty()).then(|| m + ls.iter().map(|l| (l - m).exp()).sum::<f64>().ln())
        })
        .collect::<Option<Vec<f64>>>()
        .ok_or_else(|| inference_msg("a label token lies outside the logits"))?;
    let max = picked.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let exps: Vec<f64> = picked.iter().map(|l| (l - max).exp()).collect();
    let sum: f64 = exps.iter().sum();
    let probs = exps.iter().map(|e| e / sum).collect();
    let all_max = logits.iter().map(|&l| f64::from(l)).fold(f64::NEG_INFINITY, f64::max);
    let all_sum: f64 = logits.iter().map(|&l| (f64::from(l) - all_max).exp()).sum();
    let label_sum: f64 = picked.iter().map(|l| (l - all_max).exp()).sum();
    Ok(LabelProbs {
        labels: labels.to_vec(),
        probs,
        logits: picked,
        label_mass: Some(label_sum / all_sum),
        source: ProbSource::Logits,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_probs_match_hand_computed_softmax() {
        // Logits ln 1, ln 2, ln 3, ln 4 over a 4-token vocabulary; labels take tokens 1 and 3:
        // probs 2/6 and 4/6, mass (2 + 4) / 10.
        let logits: Vec<f32> = [1.0f64, 2.0, 3.0, 4.0].iter().map(|x| x.ln() as f32).collect();
        let labels = vec!["A".to_string(), "B".to_string()];
        let lp = label_probs_from_logits(&labels, &[vec![1], vec![3]], &logits).unwrap();
        assert!((lp.probs[0] - 1.0 / 3.0).abs() < 1e-6);
        assert!((lp.probs[1] - 2.0 / 3.0).abs() < 1e-6);
        assert!((lp.label_mass.unwrap() - 0.6).abs() < 1e-6);
        assert_eq!(lp.source, ProbSource::Logits);
        assert!(label_probs_from_logits(&labels, &[vec![1], vec![9]], &logits).is_err());
        // Two forms of label A (tokens 0 and 1): weight 1 + 2 = 3 against B's 4, logit ln 3;
        // probs 3/7 and 4/7, mass 7/10.
        let lp = label_probs_from_logits(&labels, &[vec![0, 1], vec![3]], &logits).unwrap();
        assert!((lp.probs[0] - 3.0 / 7.0).abs() < 1e-6);
        assert!((lp.logits[0] - 3f64.ln()).abs() < 1e-6);
        assert!((lp.label_mass.unwrap() - 0.7).abs() < 1e-6);
    }

    #[test]
    fn argmax_takes_first_of_ties() {
        assert_eq!(argmax(&[0.0, 2.0, 2.0, -1.0]).0, 1);
        assert_ne!(mix_seed(0, 1), mix_seed(0, 2));
        assert_ne!(mix_seed(1, 7), mix_seed(2, 7));
    }
}
