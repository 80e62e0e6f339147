//! [`LlamaJudge`]: the [`Judge`] trait on a local GGUF model.

use crate::engine::{Engine, ModelInfo};
use crate::hash::weights_sha256;
use crate::options::{LlamaOptions, LlamaStats};
use crate::template::ChatFormat;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;
use ragjudge_models::{GenParams, Generation, Judge, LabelProbs, ModelError, Prompt, Reason, Usage};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;

/// Environment variable that, when set, keeps llama.cpp's own log lines on stderr.
pub const LOG_ENV: &str = "RAGJUDGE_LLAMA_LOG";

/// The process-wide llama.cpp backend, initialised once.
fn backend() -> Result<&'static LlamaBackend, ModelError> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            let quiet = std::env::var_os(LOG_ENV).is_none();
            if quiet {
                // Before the backend libraries load, so that their loading is not logged either.
                crate::cpu::quiet_logs();
            }
            crate::cpu::load_backends()?;
            let mut backend = LlamaBackend::init().map_err(|e| e.to_string())?;
            if quiet {
                backend.void_logs();
            }
            Ok(backend)
        })
        .as_ref()
        .map_err(|e| ModelError::Load(Reason::new(format!("llama.cpp backend: {e}"))))
}

type Job = Box<dyn for<'m> FnOnce(&mut Engine<'m>) + Send>;

/// A judge on a GGUF chat model run by llama.cpp on the CPU.
///
/// A llama.cpp context borrows its model, so both live on one worker thread that runs the
/// requests one at a time; the judge itself is `Send + Sync` and can be shared freely. The
/// context's KV cache is kept between calls: a prompt that starts like the previous one
/// (same system prompt, question and reference) only decodes its new suffix.
pub struct LlamaJudge {
    identity: String,
    path: PathBuf,
    info: ModelInfo,
    stats: Arc<Mutex<LlamaStats>>,
    jobs: Mutex<Option<Sender<Job>>>,
    worker: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for LlamaJudge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlamaJudge").field("identity", &self.identity).field("info", &self.info).finish()
    }
}

impl LlamaJudge {
    /// Loads a GGUF model file. The file's sha256 names the judge in call caches; it is
    /// cached in a `FILE.sha256` sidecar so large files are hashed once.
    pub fn load(path: &Path, opts: &LlamaOptions) -> Result<Self, ModelError> {
        if !path.is_file() {
            return Err(ModelError::Io(Reason::new(format!("{}: no such model file", path.display()))));
        }
        let hash = weights_sha256(path)?;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let identity = format!("llama:{name}:{}", &hash[..16]);
        let backend = backend()?;
        let stats = Arc::new(Mutex::new(LlamaStats::default()));
        let (init_tx, init_rx) = mpsc::sync_channel::<Result<ModelInfo, ModelError>>(1);
        let (jobs_tx, jobs_rx) = mpsc::channel::<Job>();
        let worker_stats = Arc::clone(&stats);
        let worker_path = path.to_path_buf();
        let worker_opts = opts.clone();
        let worker = std::thread::Builder::new()
            .name("ragjudge-llama".into())
            .spawn(move || {
                let model = match LlamaModel::load_from_file(backend, &worker_path, &LlamaModelParams::default()) {
                    Ok(m) => m,
                    Err(e) => {
                        let _ = init_tx.send(Err(ModelError::Load(Reason::caused(worker_path.display(), e))));
                        return;
                    }
                };
                let mut engine = match Engine::new(&model, backend, &worker_opts, worker_stats) {
                    Ok(e) => e,
                    Err(e) => {
                        let _ = init_tx.send(Err(e));
                        return;
                    }
                };
                let _ = init_tx.send(Ok(engine.info()));
                drop(init_tx);
                while let Ok(job) = jobs_rx.recv() {
                    // A panic inside llama-cpp-2 fails that call only; the cache is reset.
                    if catch_unwind(AssertUnwindSafe(|| job(&mut engine))).is_err() {
                        engine.reset();
                    }
                }
            })
            .map_err(|e| ModelError::Load(Reason::caused("cannot start the llama.cpp thread", e)))?;
        let info = match init_rx.recv() {
            Ok(Ok(info)) => info,
            Ok(Err(e)) => {
                let _ = worker.join();
                return Err(e);
            }
            Err(_) => {
                let _ = worker.join();
                return Err(ModelError::Load(Reason::new(format!("{}: the llama.cpp thread stopped", path.display()))));
            }
        };
        Ok(Self {
            identity,
            path: path.to_path_buf(),
            info,
            stats,
            jobs: Mutex::new(Some(jobs_tx)),
            worker: Some(worker),
        })
    }

    /// Runs `f` on the worker thread and waits for its result.
    fn call<R, F>(&self, f: F) -> Result<R, ModelError>
    where
        R: Send + 'static,
        F: for<'m> FnOnce(&mut Engine<'m>) -> R + Send + 'static,
    {
        let (tx, rx) = mpsc::sync_channel(1);
        let job: Job = Box::new(move |engine: &mut Engine<'_>| {
            let _ = tx.send(f(engine));
        });
        {
            let jobs = self.jobs.lock().map_err(|_| ModelError::Inference(Reason::new("judge lock poisoned")))?;
            let sender = jobs.as_ref().ok_or_else(|| ModelError::Inference(Reason::new("judge is shut down")))?;
            sender.send(job).map_err(|_| ModelError::Inference(Reason::new("the llama.cpp thread stopped")))?;
        }
        rx.recv().map_err(|_| ModelError::Inference(Reason::new("llama.cpp call panicked; the KV cache was reset")))
    }

    /// Runs `f` on each item, in order, as one job on the worker thread; a failed job fails every
    /// item.
    fn call_each<T, R, F>(&self, items: Vec<T>, f: F) -> Vec<Result<R, ModelError>>
    where
        T: Send + 'static,
        R: Send + 'static,
        F: for<'m> Fn(&mut Engine<'m>, &T) -> Result<R, ModelError> + Send + 'static,
    {
        let n = items.len();
        match self.call(move |e| items.iter().map(|item| f(e, item)).collect::<Vec<_>>()) {
            Ok(results) => results,
            Err(err) => (0..n).map(|_| Err(err.clone())).collect(),
        }
    }

    /// The model file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Vocabulary size (length of [`Self::next_token_logits`]).
    pub fn n_vocab(&self) -> usize {
        self.info.n_vocab
    }

    /// Context length in tokens.
    pub fn n_ctx(&self) -> usize {
        self.info.n_ctx
    }

    /// Whether prompts use the file's chat template or the ChatML fallback.
    pub fn chat_format(&self) -> ChatFormat {
        self.info.chat_format.clone()
    }

    /// Prefill, reuse and call counters since load.
    pub fn stats(&self) -> LlamaStats {
        self.stats.lock().map(|s| *s).unwrap_or_default()
    }

    /// Drops the KV cache, so the next call starts from an empty context.
    pub fn clear_cache(&self) -> Result<(), ModelError> {
        self.call(|e| e.reset())
    }

    /// The exact text the model reads for `prompt` (template applied, prefix appended).
    pub fn render(&self, prompt: &Prompt) -> Result<String, ModelError> {
        let prompt = prompt.clone();
        self.call(move |e| e.render(&prompt))?
    }

    /// Token ids of `prompt` as it is fed to the model.
    pub fn prompt_tokens(&self, prompt: &Prompt) -> Result<Vec<i32>, ModelError> {
        let prompt = prompt.clone();
        self.call(move |e| e.prompt_tokens(&prompt).map(|t| t.iter().map(|t| t.0).collect()))?
    }

    /// Token ids of plain `text` (no BOS, no special-token parsing), as labels are tokenized.
    pub fn tokenize(&self, text: &str) -> Result<Vec<i32>, ModelError> {
        let text = text.to_string();
        self.call(move |e| e.tokenize(&text).iter().map(|t| t.0).collect())
    }

    /// The token ids `label` is scored by in [`Judge::label_probs`]: its bare and space-led
    /// forms that are single tokens, or [`ModelError::MultiTokenLabel`] when neither is.
    pub fn label_tokens(&self, label: &str) -> Result<Vec<i32>, ModelError> {
        let label = label.to_string();
        self.call(move |e| e.label_tokens(&label).map(|ts| ts.iter().map(|t| t.0).collect()))?
    }

    /// Raw next-token logits after a sequence of token ids (no template, no BOS added).
    pub fn logits_for_tokens(&self, ids: &[i32]) -> Result<Vec<f32>, ModelError> {
        let ids = ids.to_vec();
        self.call(move |e| e.logits_for_tokens(&ids))?
    }

    /// Raw next-token logits over the whole vocabulary after `prompt`.
    pub fn next_token_logits(&self, prompt: &Prompt) -> Result<Vec<f32>, ModelError> {
        let prompt = prompt.clone();
        self.call(move |e| e.next_token_logits(&prompt))?
    }
}

impl Judge for LlamaJudge {
    /// `llama:FILE_NAME:` and the first 16 hex digits of the file's sha256.
    fn identity(&self) -> String {
        self.identity.clone()
    }

    /// Greedy when `temperature` is 0, else seeded top-p / temperature sampling. Stops at an
    /// end-of-generation token or before a stop string (`finish_reason` `stop`), or after
    /// `max_tokens` or at the end of the context (`length`). A `grammar` (GBNF) constrains every
    /// sampled token; `json_schema` alone is not enforced.
    fn generate(&self, prompt: &Prompt, params: &GenParams) -> Result<Generation, ModelError> {
        let prompt = prompt.clone();
        let params = params.clone();
        self.call(move |e| e.generate(&prompt, &params))?
    }

    /// Softmax over the labels' next-token logits; each label must be one token.
    fn label_probs(&self, prompt: &Prompt, labels: &[String]) -> Result<LabelProbs, ModelError> {
        let prompt = prompt.clone();
        let labels = labels.to_vec();
        self.call(move |e| e.label_probs(&prompt, &labels))?
    }

    /// The whole batch is one job on the worker thread, run in request order: the requests of
    /// one caller stay together, so the KV prefix they share (a premise checked against several
    /// claims) is reused even while other threads call the same judge. A batch that panics
    /// fails as a whole (the worker resets the KV cache); otherwise one request's error is its own.
    fn label_probs_many(&self, requests: &[(Prompt, Vec<String>)]) -> Vec<Result<LabelProbs, ModelError>> {
        self.call_each(requests.to_vec(), |e, (p, l)| e.label_probs(p, l))
    }

    /// As [`Judge::label_probs_many`]: the batch runs as one job, in request order.
    fn generate_many(&self, requests: &[(Prompt, GenParams)]) -> Vec<Result<Generation, ModelError>> {
        self.call_each(requests.to_vec(), |e, (p, g)| e.generate(p, g))
    }

    fn usage(&self) -> Usage {
        let s = self.stats();
        Usage { calls: s.calls, prompt_tokens: s.prompt_tokens, completion_tokens: s.generated_tokens }
    }
}

impl Drop for LlamaJudge {
    fn drop(&mut self) {
        if let Ok(mut jobs) = self.jobs.lock() {
            jobs.take();
        }
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}
