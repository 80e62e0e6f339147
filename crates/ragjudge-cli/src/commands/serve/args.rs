//! `ragjudge serve`'s options: the server's bounds, the metrics and the judge of `/v1/judge`.

use crate::commands::judge_protocol::ProtocolArgs;
use crate::commands::score::{LangArg, ZhRougeArg};
use anyhow::{bail, Result};
use clap::Args;
use ragjudge_eval::models::{CacheChoice, JudgeSettings};
use ragjudge_serve::Limits;
use std::path::PathBuf;
use std::time::Duration;

/// `ragjudge serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Metric families of `POST /v1/score`, as for `score` (lexical, ciu, retrieval, hcat,
    /// safety, trec, ragchecker, semantic, agent, conversation, fused:FILE); other families'
    /// options take their defaults.
    #[arg(long, value_delimiter = ',', default_value = "lexical,ciu")]
    pub metrics: Vec<String>,
    /// Judge of `POST /v1/judge` (`local:MODEL` or `openai:MODEL`); without it that route answers 501.
    #[arg(long)]
    pub judge: Option<String>,
    /// Address to listen on (port 0: any free port; the bound address is printed).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: String,
    /// Largest request body, in bytes (larger: 413).
    #[arg(long, default_value_t = 8 << 20, value_name = "BYTES")]
    pub max_body: usize,
    /// Jobs running at once, per route.
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub max_inflight: usize,
    /// Requests waiting for a job slot, per route; beyond them requests get 429 with Retry-After.
    #[arg(long, default_value_t = 64, value_name = "N")]
    pub queue: usize,
    /// Deadline of one request in seconds, waiting included (past it: 503).
    #[arg(long, default_value_t = 30.0, value_name = "SECS")]
    pub timeout: f64,
    /// Seconds a refused client is told to wait (Retry-After).
    #[arg(long, default_value_t = 1, value_name = "SECS")]
    pub retry_after: u64,
    /// Seconds a connection may take to send a request header (also the idle keep-alive
    /// timeout); past it the connection is closed.
    #[arg(long, default_value_t = 10.0, value_name = "SECS")]
    pub header_timeout: f64,
    /// Seconds a job route waits for the whole request body (past it: 408).
    #[arg(long, default_value_t = 15.0, value_name = "SECS")]
    pub body_timeout: f64,
    /// Connections open at once; more wait, unaccepted, until one closes.
    #[arg(long, default_value_t = 512, value_name = "N")]
    pub max_connections: usize,
    /// On SIGTERM or ctrl-c, seconds the requests in flight may take before the server exits anyway.
    #[arg(long, default_value_t = 10.0, value_name = "SECS")]
    pub shutdown_grace: f64,
    /// Worker threads of the scoring engine and a local judge (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Sentence embedder of the embedding metrics: manifest name or model directory [default:
    /// minilm with --lang en, multilingual-e5-small with zh or auto].
    #[arg(long)]
    pub embedder: Option<String>,
    /// Language of the lexical and CIU tokenisers, as for `score`: en, zh, or auto (per record).
    #[arg(long, value_enum, default_value_t = LangArg::En, value_name = "LANG")]
    pub lang: LangArg,
    /// Tokens of Chinese ROUGE: jieba words, or characters (no segmenter).
    #[arg(long, value_enum, default_value_t = ZhRougeArg::Jieba, value_name = "TOKENS")]
    pub zh_rouge: ZhRougeArg,
    /// Cut-offs K for the retrieval metrics.
    #[arg(long = "k", value_delimiter = ',', default_value = "1,3,5")]
    pub ks: Vec<usize>,
    /// Stem tokens with the Porter stemmer before ROUGE.
    #[arg(long)]
    pub rouge_stemmer: bool,
    /// How `/v1/judge` judges a pair (as the DICE commands; the request's `reference` is needed
    /// by `claims`).
    #[command(flatten)]
    pub judging: ProtocolArgs,
    /// Judge: margin below which a verdict is scored softly.
    #[arg(long, default_value_t = 0.1)]
    pub tau: f64,
    /// Judge: call cache file (default: $RAGJUDGE_HOME/cache.sqlite).
    #[arg(long, value_name = "PATH")]
    pub cache: Option<PathBuf>,
    /// Judge: do not read or write the call cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Judge: concurrent requests to an HTTP judge.
    #[arg(long, default_value_t = 8)]
    pub judge_concurrency: usize,
    /// Judge: per-call timeout of an HTTP judge, in seconds.
    #[arg(long, default_value_t = 120)]
    pub judge_timeout: u64,
    /// Traces received on `/v1/traces`.
    #[command(flatten)]
    pub traces: super::trace_args::TraceArgs,
}

impl ServeArgs {
    /// The server's bounds, checked.
    pub fn limits(&self) -> Result<Limits> {
        let limits = Limits {
            max_body: self.max_body,
            max_inflight: self.max_inflight,
            queue: self.queue,
            timeout: seconds("--timeout", self.timeout)?,
            retry_after: self.retry_after,
            header_timeout: seconds("--header-timeout", self.header_timeout)?,
            body_timeout: seconds("--body-timeout", self.body_timeout)?,
            max_connections: self.max_connections,
            shutdown_grace: seconds("--shutdown-grace", self.shutdown_grace)?,
        };
        limits.check()?;
        Ok(limits)
    }

    /// The judge settings (for `hcat` NLI and `/v1/judge`).
    pub(super) fn judge_settings(&self) -> JudgeSettings {
        JudgeSettings {
            spec: self.judge.clone().unwrap_or_else(|| JudgeSettings::default().spec),
            cache: CacheChoice::from_flags(self.cache.as_deref(), self.no_cache),
            threads: self.threads,
            concurrency: self.judge_concurrency,
            timeout: Duration::from_secs(self.judge_timeout),
            hard_labels: false,
        }
    }
}

/// `value` seconds of `flag` as a duration: positive, finite and representable (1e-12 rounds to
/// zero and is refused).
pub(super) fn seconds(flag: &str, value: f64) -> Result<Duration> {
    match Duration::try_from_secs_f64(value) {
        Ok(d) if !d.is_zero() => Ok(d),
        _ if value.is_finite() && value > 0.0 => bail!("{flag} is too large: {value:?} seconds"),
        _ => bail!("{flag} must be a positive number of seconds, got {value:?}"),
    }
}
