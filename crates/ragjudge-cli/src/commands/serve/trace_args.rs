//! `ragjudge serve`'s trace options: `/v1/traces`, sampling, the queue, rotating outputs and
//! drift alerts (docs/traces.md).

use super::args::seconds;
use anyhow::{bail, Context, Result};
use clap::Args;
use ragjudge_serve::TraceSettings;
use ragjudge_traces::monitor::DriftSettings;
use std::path::PathBuf;

/// Trace options of `ragjudge serve`.
#[derive(Debug, Args)]
pub struct TraceArgs {
    /// Receive OpenTelemetry traces on POST /v1/traces (OTLP/HTTP, protobuf or JSON) and score
    /// them in the background with the server's metrics.
    #[arg(long)]
    pub traces: bool,
    /// Traces: fraction of conversations (else traces) scored, in (0, 1].
    #[arg(long, default_value_t = 1.0, value_name = "P")]
    pub trace_sample: f64,
    /// Traces: spans waiting at most; an export beyond is dropped and counted.
    #[arg(long, default_value_t = 100_000, value_name = "SPANS")]
    pub trace_queue: usize,
    /// Traces: seconds without a new span after which a trace whose root came is complete.
    #[arg(long, default_value_t = 1.0, value_name = "SECS")]
    pub trace_settle: f64,
    /// Traces: longest wait, in seconds, for a trace's root span.
    #[arg(long, default_value_t = 30.0, value_name = "SECS")]
    pub trace_max_wait: f64,
    /// Traces: folder of the scored rows and records (scores-NNNNNN.jsonl, records-NNNNNN.jsonl,
    /// alerts.jsonl), which `ragjudge report` reads.
    #[arg(long, value_name = "DIR")]
    pub trace_output: Option<PathBuf>,
    /// Traces: records per output file before the next one.
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    pub trace_rotate: usize,
    /// Traces: scores per rolling window (per system, model, route and column).
    #[arg(long, default_value_t = 50, value_name = "N")]
    pub drift_window: usize,
    /// Traces: first scores of each group and column that make its baseline.
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub drift_baseline: usize,
    /// Traces: CUSUM reference value k, in baseline standard deviations.
    #[arg(long, default_value_t = 0.5)]
    pub drift_k: f64,
    /// Traces: CUSUM threshold h, in baseline standard deviations (10: a false alarm about
    /// every 141,000 scores of an unchanged stream, a fall of one deviation caught in ~20).
    #[arg(long, default_value_t = 10.0)]
    pub drift_h: f64,
    /// Traces: columns watched for drift (default: every column).
    #[arg(long, value_delimiter = ',', value_name = "COLUMNS")]
    pub drift_columns: Option<Vec<String>>,
    /// Traces: alert when a window's mean of COLUMN falls below VALUE (repeatable).
    #[arg(long, value_name = "COLUMN=VALUE")]
    pub alert_below: Vec<String>,
    /// Traces: URL each drift alert is POSTed to as JSON.
    #[arg(long, value_name = "URL")]
    pub alert_webhook: Option<String>,
}

impl TraceArgs {
    /// The trace settings, checked; `None` without `--traces`.
    pub fn settings(&self) -> Result<Option<TraceSettings>> {
        if !self.traces {
            if self.trace_output.is_some() || self.alert_webhook.is_some() || !self.alert_below.is_empty() {
                bail!("--trace-output, --alert-below and --alert-webhook need --traces");
            }
            return Ok(None);
        }
        let floors = self
            .alert_below
            .iter()
            .map(|s| {
                let (col, v) =
                    s.split_once('=').with_context(|| format!("--alert-below {s:?}: expected COLUMN=VALUE"))?;
                let v: f64 = v.trim().parse().with_context(|| format!("--alert-below {s:?}: {v:?} is not a number"))?;
                anyhow::Ok((col.trim().to_string(), v))
            })
            .collect::<Result<Vec<_>>>()?;
        let settings = TraceSettings {
            sample: self.trace_sample,
            queue: self.trace_queue,
            settle: seconds("--trace-settle", self.trace_settle)?,
            max_wait: seconds("--trace-max-wait", self.trace_max_wait)?,
            output: self.trace_output.clone(),
            rotate: self.trace_rotate,
            drift: DriftSettings {
                window: self.drift_window,
                baseline: self.drift_baseline,
                k: self.drift_k,
                h: self.drift_h,
                floors,
                columns: self.drift_columns.clone(),
            },
            webhook: self.alert_webhook.clone(),
            ..TraceSettings::default()
        };
        settings.check().map_err(anyhow::Error::msg)?;
        Ok(Some(settings))
    }
}
