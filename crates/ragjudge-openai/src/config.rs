//! Configuration of the HTTP judge.

use std::time::Duration;

/// Base URL used when `OPENAI_BASE_URL` is not set: OpenAI's own API.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// Configuration of an [`crate::OpenAiJudge`].
#[derive(Debug, Clone, PartialEq)]
pub struct OpenAiConfig {
    /// API root including the version, e.g. `http://127.0.0.1:8000/v1`; `/chat/completions` is appended.
    pub base_url: String,
    /// Further servers of the same model: requests are balanced over `base_url` and these,
    /// each with its own `concurrency`, and moved to another when one fails. Calls are cached
    /// under `base_url`'s identity whichever server answers.
    pub pool: Vec<String>,
    /// Sent as `Authorization: Bearer KEY` when set.
    pub api_key: Option<String>,
    /// Model name sent in every request.
    pub model: String,
    /// Time limit of one HTTP request, connection to last body byte (default 120 s).
    pub timeout: Duration,
    /// Retries after the first attempt (default 5).
    pub max_retries: u32,
    /// Most requests in flight at once on each server, over all threads using this judge (default 8).
    pub concurrency: usize,
    /// First backoff ceiling (default 500 ms); doubles per retry.
    pub backoff_base: Duration,
    /// Largest backoff ceiling (default 30 s).
    pub backoff_max: Duration,
    /// Cap on a server's `Retry-After` (default 60 s).
    pub retry_after_max: Duration,
    /// `top_logprobs` asked for in label-probability calls (default 20, OpenAI's maximum).
    pub top_logprobs: u32,
    /// Send `continue_final_message: true, add_generation_prompt: false` with an assistant
    /// prefix (vLLM and SGLang then continue the prefix instead of starting a new turn).
    pub continue_final_message: bool,
    /// Make [`ragjudge_models::Judge::label_probs`] fall back to hard labels when the server gives no logprobs
    /// (the result says so with [`ragjudge_models::ProbSource::HardLabel`]).
    pub hard_label_fallback: bool,
}

impl OpenAiConfig {
    /// Defaults for `model` at [`DEFAULT_BASE_URL`] without a key.
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            base_url: DEFAULT_BASE_URL.to_string(),
            pool: Vec::new(),
            api_key: None,
            model: model.into(),
            timeout: Duration::from_secs(120),
            max_retries: 5,
            concurrency: 8,
            backoff_base: Duration::from_millis(500),
            backoff_max: Duration::from_secs(30),
            retry_after_max: Duration::from_secs(60),
            top_logprobs: 20,
            continue_final_message: false,
            hard_label_fallback: false,
        }
    }

    /// Defaults for `model`, with `base_url` from `OPENAI_BASE_URL` (several servers of the
    /// model separated by commas: the first is `base_url`, the others the `pool`) and `api_key`
    /// from `OPENAI_API_KEY` where set and non-empty.
    pub fn from_env(model: impl Into<String>) -> Self {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        let mut c = Self::new(model);
        if let Some(urls) = var("OPENAI_BASE_URL") {
            let mut urls = urls.split(',').map(str::trim).filter(|u| !u.is_empty()).map(str::to_string);
            if let Some(first) = urls.next() {
                c.base_url = first;
            }
            c.pool = urls.collect();
        }
        c.api_key = var("OPENAI_API_KEY").map(|k| k.trim().to_string());
        c
    }
}
