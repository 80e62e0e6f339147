//! Plain settings that name models and say how to run them.

use ragjudge_lexical::lang::LangMode;
use std::path::PathBuf;
use std::time::Duration;

/// The sentence embedder for English runs: all-MiniLM-L6-v2.
pub const ENGLISH_EMBEDDER: &str = "minilm";
/// The sentence embedder for runs in other languages: multilingual-e5-small (Wang et al. 2024).
pub const MULTILINGUAL_EMBEDDER: &str = "multilingual-e5-small";

/// The embedder a run gets when none is named: MiniLM for English (`--lang en`, the default),
/// multilingual-e5-small when the run's records may not be English (`zh`, or `auto`, where one model
/// embeds every record of a mixed run so that their similarities compare).
pub fn default_embedder(lang: LangMode) -> &'static str {
    match lang {
        LangMode::En => ENGLISH_EMBEDDER,
        LangMode::Zh | LangMode::Auto => MULTILINGUAL_EMBEDDER,
    }
}

/// The embedder for a collection of `texts` when none is named: MiniLM when every text is English
/// by the project's one language rule (`ragjudge_core::text::detect_lang`), else
/// multilingual-e5-small, so that one model embeds every text of a mixed collection.
pub fn default_embedder_for<'a>(texts: impl IntoIterator<Item = &'a str>) -> &'static str {
    let english = texts.into_iter().all(|t| ragjudge_core::text::detect_lang(t) == ragjudge_core::text::Lang::En);
    if english {
        ENGLISH_EMBEDDER
    } else {
        MULTILINGUAL_EMBEDDER
    }
}

/// Number format of an encoder's dense matrix products.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Precision {
    /// `f32` throughout (matches sentence-transformers to ~1e-7).
    #[default]
    F32,
    /// bfloat16 products with `f32` accumulation: faster where the CPU has AVX-512 BF16.
    Bf16,
}

/// How encoder models run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncoderSettings {
    /// Inputs per forward pass (at least 1 is used).
    pub batch_size: usize,
    /// Inference threads (`None`: all cores).
    pub threads: Option<usize>,
    /// Number format of the matrix products.
    pub precision: Precision,
}

impl Default for EncoderSettings {
    fn default() -> Self {
        Self { batch_size: 32, threads: None, precision: Precision::F32 }
    }
}

/// Which call cache a judge goes through.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum CacheChoice {
    /// `$RAGJUDGE_HOME/cache.sqlite`.
    #[default]
    Default,
    /// This SQLite file.
    Path(PathBuf),
    /// No cache: every call goes to the model.
    Disabled,
}

impl CacheChoice {
    /// The cache of a command line's `--cache PATH` and `--no-cache` (which wins).
    pub fn from_flags(path: Option<&std::path::Path>, disabled: bool) -> Self {
        match (path, disabled) {
            (_, true) => CacheChoice::Disabled,
            (Some(p), false) => CacheChoice::Path(p.to_path_buf()),
            (None, false) => CacheChoice::Default,
        }
    }
}

/// How to reach a judge model.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeSettings {
    /// `local:MODEL` (manifest name or GGUF path) or `openai:MODEL`; a bare name is local.
    pub spec: String,
    /// The call cache.
    pub cache: CacheChoice,
    /// Inference threads of a local judge (`None`: all cores).
    pub threads: Option<usize>,
    /// Concurrent requests to an HTTP judge (at least 1 is used).
    pub concurrency: usize,
    /// Per-request timeout of an HTTP judge (at least 1 s is used).
    pub timeout: Duration,
    /// Take an HTTP judge's generated label as a hard verdict when it returns no log-probabilities.
    pub hard_labels: bool,
}

impl Default for JudgeSettings {
    fn default() -> Self {
        Self {
            spec: "local:qwen2.5-1.5b".into(),
            cache: CacheChoice::Default,
            threads: None,
            concurrency: 8,
            timeout: Duration::from_secs(120),
            hard_labels: false,
        }
    }
}

/// The models of model-backed metrics, by name.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelSettings {
    /// Sentence embedder: manifest name or model directory.
    pub embedder: String,
    /// NLI cross-encoder directory; without it the judge decides entailment.
    pub nli: Option<String>,
    /// PII token-classification model (`none`: pattern detectors only).
    pub pii_model: String,
    /// How the encoders run.
    pub encoder: EncoderSettings,
    /// The judge.
    pub judge: JudgeSettings,
}

impl Default for ModelSettings {
    fn default() -> Self {
        Self {
            embedder: ENGLISH_EMBEDDER.into(),
            nli: None,
            pii_model: "pii-ner".into(),
            encoder: EncoderSettings::default(),
            judge: JudgeSettings::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_embedder_follows_the_language() {
        assert_eq!(default_embedder(LangMode::En), "minilm");
        assert_eq!(default_embedder(LangMode::default()), ModelSettings::default().embedder);
        assert_eq!(default_embedder(LangMode::Zh), "multilingual-e5-small");
        assert_eq!(default_embedder(LangMode::Auto), "multilingual-e5-small");
    }

    #[test]
    fn a_collection_with_any_chinese_text_gets_the_multilingual_embedder() {
        assert_eq!(default_embedder_for(["The rate rose.", "Rates fell in May."]), "minilm");
        assert_eq!(default_embedder_for(["The rate rose.", "利率在五月下降。"]), "multilingual-e5-small");
        assert_eq!(default_embedder_for([]), "minilm");
    }
    use std::path::Path;

    #[test]
    fn no_cache_wins_over_a_cache_path() {
        let p = Path::new("c.sqlite");
        assert_eq!(CacheChoice::from_flags(None, false), CacheChoice::Default);
        assert_eq!(CacheChoice::from_flags(Some(p), false), CacheChoice::Path(p.to_path_buf()));
        assert_eq!(CacheChoice::from_flags(Some(p), true), CacheChoice::Disabled);
        assert_eq!(CacheChoice::from_flags(None, true), CacheChoice::Disabled);
    }
}
