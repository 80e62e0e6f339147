//! [`ModelSet`]: the models a run may need, each loaded on first use and shared by every metric.

use super::backends;
use super::settings::ModelSettings;
use crate::error::EvalError;
use ragjudge_models::{CachedEmbedder, CrossEncoder, Embedder, Judge, ModelError, TokenClassifier, TokenEmbedder};
use std::sync::{Arc, OnceLock};

/// Embeddings kept in memory per embedder (texts repeat across records: queries, passages).
const EMBEDDING_CACHE: usize = 100_000;

/// Lazily loaded models named by [`ModelSettings`].
pub struct ModelSet {
    settings: ModelSettings,
    embedder: Arc<OnceLock<Arc<dyn Embedder>>>,
    token_embedder: OnceLock<Arc<dyn TokenEmbedder>>,
    judge: OnceLock<Arc<dyn Judge>>,
    cross_encoder: OnceLock<Arc<dyn CrossEncoder>>,
    token_classifier: OnceLock<Arc<dyn TokenClassifier>>,
}

impl std::fmt::Debug for ModelSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelSet").field("settings", &self.settings).finish_non_exhaustive()
    }
}

impl ModelSet {
    /// Nothing is loaded until a metric asks for it.
    pub fn new(settings: ModelSettings) -> Self {
        Self {
            settings,
            embedder: Arc::new(OnceLock::new()),
            token_embedder: OnceLock::new(),
            judge: OnceLock::new(),
            cross_encoder: OnceLock::new(),
            token_classifier: OnceLock::new(),
        }
    }

    /// The settings the models were named by.
    pub fn settings(&self) -> &ModelSettings {
        &self.settings
    }

    /// The sentence embedder, behind an in-memory embedding cache.
    pub fn embedder(&self) -> Result<Arc<dyn Embedder>, EvalError> {
        load_embedder(&self.embedder, &self.settings)
    }

    /// The same embedder as [`ModelSet::embedder`], loaded only when a text is first embedded
    /// (for metrics that need it on some records only); a failed load fails that call.
    pub fn embedder_on_first_use(&self) -> Arc<dyn Embedder> {
        Arc::new(LazyEmbedder { cell: self.embedder.clone(), settings: self.settings.clone() })
    }

    /// The token vectors of the embedder model (BERTScore).
    pub fn token_embedder(&self) -> Result<Arc<dyn TokenEmbedder>, EvalError> {
        get_or_load(&self.token_embedder, || {
            Ok(Arc::from(backends::token_embedder(&self.settings.embedder, self.settings.encoder)?))
        })
    }

    /// The judge, behind the call cache unless it is disabled.
    pub fn judge(&self) -> Result<Arc<dyn Judge>, EvalError> {
        get_or_load(&self.judge, || Ok(Arc::from(backends::judge(&self.settings.judge)?)))
    }

    /// The NLI cross-encoder, if one was named.
    pub fn cross_encoder(&self) -> Result<Option<Arc<dyn CrossEncoder>>, EvalError> {
        let Some(spec) = self.settings.nli.clone() else { return Ok(None) };
        get_or_load(&self.cross_encoder, || Ok(Arc::from(backends::cross_encoder(&spec, self.settings.encoder)?)))
            .map(Some)
    }

    /// The PII token classifier.
    pub fn token_classifier(&self) -> Result<Arc<dyn TokenClassifier>, EvalError> {
        get_or_load(&self.token_classifier, || {
            Ok(Arc::from(backends::token_classifier(&self.settings.pii_model, self.settings.encoder)?))
        })
    }
}

fn load_embedder(cell: &OnceLock<Arc<dyn Embedder>>, settings: &ModelSettings) -> Result<Arc<dyn Embedder>, EvalError> {
    get_or_load(cell, || {
        let e = backends::embedder(&settings.embedder, settings.encoder)?;
        Ok(Arc::new(CachedEmbedder::new(e, EMBEDDING_CACHE)) as Arc<dyn Embedder>)
    })
}

/// An embedder handle that loads the shared model on its first embedding call.
struct LazyEmbedder {
    cell: Arc<OnceLock<Arc<dyn Embedder>>>,
    settings: ModelSettings,
}

impl LazyEmbedder {
    fn get(&self) -> Result<Arc<dyn Embedder>, ModelError> {
        load_embedder(&self.cell, &self.settings).map_err(|e| ModelError::Inference(ragjudge_models::Reason::of(e)))
    }
}

impl Embedder for LazyEmbedder {
    fn identity(&self) -> String {
        self.get().map_or_else(|_| format!("unloaded:{}", self.settings.embedder), |m| m.identity())
    }

    fn dim(&self) -> usize {
        self.get().map_or(0, |m| m.dim())
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        self.get()?.embed(texts)
    }

    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        self.get()?.embed_passages(texts)
    }
}

/// Returns the cell's model, loading it on first use; a failed load is returned, not cached.
fn get_or_load<T: ?Sized>(
    cell: &OnceLock<Arc<T>>,
    load: impl FnOnce() -> Result<Arc<T>, EvalError>,
) -> Result<Arc<T>, EvalError> {
    if let Some(m) = cell.get() {
        return Ok(m.clone());
    }
    let m = load()?;
    Ok(cell.get_or_init(|| m).clone())
}
