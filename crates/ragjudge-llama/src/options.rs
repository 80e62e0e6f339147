//! Load options and run statistics of a [`crate::LlamaJudge`].

/// How a GGUF model is loaded and run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlamaOptions {
    /// CPU threads for prefill and decoding; `None` = all cores.
    pub threads: Option<usize>,
    /// Context length in tokens (prompt plus generated text).
    pub n_ctx: u32,
    /// Most tokens decoded in one batch during prefill.
    pub n_batch: u32,
    /// Base sampling seed, mixed into every request's own seed.
    pub seed: u64,
    /// Exact mode (default): flash attention off and an f32 KV cache, so that logits do not
    /// depend on how much of a prompt came from the KV cache. `false` uses llama.cpp's
    /// defaults (flash attention, f16 cache): faster prefill, but reused and cold prompts
    /// can give logits that differ by tenths.
    pub exact: bool,
}

impl Default for LlamaOptions {
    fn default() -> Self {
        Self { threads: None, n_ctx: 4096, n_batch: 512, seed: 0, exact: true }
    }
}

impl LlamaOptions {
    /// The thread count to use: the option, else all available cores.
    pub fn thread_count(&self) -> usize {
        self.threads
            .filter(|&t| t > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get))
    }
}

/// Work counters of one judge since it was loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LlamaStats {
    /// Model calls (`generate`, `label_probs`, `next_token_logits`).
    pub calls: u64,
    /// Prompt tokens of those calls.
    pub prompt_tokens: u64,
    /// Prompt tokens that had to be run through the model.
    pub prefill_evaluated: u64,
    /// Prompt tokens whose KV-cache entries were kept from an earlier call.
    pub prefill_reused: u64,
    /// Tokens generated.
    pub generated_tokens: u64,
}

impl LlamaStats {
    /// Share of prompt tokens served from the KV cache (0 when there were none).
    pub fn reuse_ratio(&self) -> f64 {
        let total = self.prefill_evaluated + self.prefill_reused;
        if total == 0 {
            0.0
        } else {
            self.prefill_reused as f64 / total as f64
        }
    }
}
