//! `ragjudge serve`: the scoring server (`ragjudge_serve`) on an address, until SIGTERM or ctrl-c.

use anyhow::{bail, Context, Result};
use clap::Args;
use ragjudge_dice::meta::protocol::{Protocol, ProtocolSettings};
use ragjudge_dice::run::run_protocol;
use ragjudge_eval::families::{CiuSettings, LexicalSettings, MetricSettings, RetrievalSettings};
use ragjudge_eval::models::{backends, CacheChoice, EncoderSettings, JudgeSettings, ModelSettings};
use ragjudge_serve::{App, JudgeService, Limits, Scorer};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// `ragjudge serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Metric families of `POST /v1/score`, as for `score` (lexical, ciu, retrieval, hcat,
    /// safety, trec, semantic, fused:FILE); other families' options take their defaults.
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
    /// Sentence embedder of the embedding metrics: manifest name or model directory.
    #[arg(long, default_value = "minilm")]
    pub embedder: String,
    /// Cut-offs K for the retrieval metrics.
    #[arg(long = "k", value_delimiter = ',', default_value = "1,3,5")]
    pub ks: Vec<usize>,
    /// Stem tokens with the Porter stemmer before ROUGE.
    #[arg(long)]
    pub rouge_stemmer: bool,
    /// Judge: how a pair is judged, as in `tournament --protocol`: `dice`, `two-label`,
    /// `pointwise`, `claims` (needs the request's `reference`) or `ensemble`.
    #[arg(long, default_value = "dice", value_parser = run_protocol)]
    pub protocol: Protocol,
    /// Judge: sentences shown as the premise of each claim check (`--protocol claims`).
    #[arg(long, default_value_t = ragjudge_dice::claims::DEFAULT_PREMISE_SENTENCES)]
    pub premise_sentences: usize,
    /// Judge: skip stage I (the analysis) and score the verdict directly (`dice`).
    #[arg(long)]
    pub no_reasoning: bool,
    /// Judge: one order only (no position-bias averaging; `dice`).
    #[arg(long)]
    pub no_swap: bool,
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
    fn judge_settings(&self) -> JudgeSettings {
        JudgeSettings {
            spec: self.judge.clone().unwrap_or_else(|| JudgeSettings::default().spec),
            cache: match (&self.cache, self.no_cache) {
                (_, true) => CacheChoice::Disabled,
                (Some(p), false) => CacheChoice::Path(p.clone()),
                (None, false) => CacheChoice::Default,
            },
            threads: self.threads,
            concurrency: self.judge_concurrency,
            timeout: Duration::from_secs(self.judge_timeout),
            hard_labels: false,
        }
    }
}

/// Runs `ragjudge serve`.
pub fn run(args: &ServeArgs) -> Result<()> {
    let limits = args.limits()?;
    let settings = MetricSettings {
        lexical: LexicalSettings { rouge_stemmer: args.rouge_stemmer },
        ciu: CiuSettings::default(),
        retrieval: RetrievalSettings { ks: args.ks.clone(), ..RetrievalSettings::default() },
        ..MetricSettings::default()
    };
    let models = ModelSettings {
        embedder: args.embedder.clone(),
        encoder: EncoderSettings { threads: args.threads, ..EncoderSettings::default() },
        judge: args.judge_settings(),
        ..ModelSettings::default()
    };
    let scorer = Scorer::from_names(&args.metrics, settings, models, args.threads)?;
    // Every model loads now, once, rather than on the first request.
    for reason in scorer.warm_up()? {
        eprintln!("warning: warm-up record: {reason}");
    }
    let judge = match &args.judge {
        Some(_) => {
            if args.protocol != Protocol::Dice && (args.no_reasoning || args.no_swap) {
                bail!("--no-reasoning and --no-swap are options of the dice protocol, not `{}`", args.protocol.name());
            }
            let judge = Arc::from(backends::judge(&args.judge_settings())?);
            let settings = ragjudge_serve::JudgeSettings {
                reasoning: !args.no_reasoning,
                swap: !args.no_swap,
                tau: args.tau,
                protocol: args.protocol,
                protocol_settings: ProtocolSettings {
                    premise_sentences: args.premise_sentences,
                    ..ProtocolSettings::default()
                },
            };
            Some(JudgeService::new(judge, &settings)?)
        }
        None => None,
    };
    #[cfg(feature = "jemalloc")]
    ragjudge_serve::set_heap_probe(jemalloc_allocated);
    let app = App::new(scorer, judge, limits)?;
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the runtime")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(&args.addr)
            .await
            .with_context(|| format!("cannot listen on {}", args.addr))?;
        let addr = listener.local_addr()?;
        println!("ragjudge serve listening on http://{addr}");
        ragjudge_serve::serve(listener, app, ragjudge_serve::shutdown_signal()).await?;
        eprintln!("ragjudge serve: shut down");
        anyhow::Ok(())
    })?;
    // A job still running past the shutdown grace is abandoned, not waited for.
    runtime.shutdown_background();
    Ok(())
}

/// `value` seconds of `flag` as a duration: positive, finite and representable (1e-12 rounds to
/// zero and is refused).
fn seconds(flag: &str, value: f64) -> Result<Duration> {
    match Duration::try_from_secs_f64(value) {
        Ok(d) if !d.is_zero() => Ok(d),
        _ if value.is_finite() && value > 0.0 => bail!("{flag} is too large: {value:?} seconds"),
        _ => bail!("{flag} must be a positive number of seconds, got {value:?}"),
    }
}

/// jemalloc's `stats.allocated` (refreshed by advancing its epoch).
#[cfg(feature = "jemalloc")]
fn jemalloc_allocated() -> Option<u64> {
    tikv_jemalloc_ctl::epoch::advance().ok()?;
    tikv_jemalloc_ctl::stats::allocated::read().ok().map(|b| b as u64)
}
