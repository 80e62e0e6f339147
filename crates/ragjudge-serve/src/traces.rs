//! `POST /v1/traces`: OpenTelemetry traces over OTLP/HTTP (protobuf or JSON), scored in the
//! background and monitored for drift.
//!
//! The route only decodes and queues: spans go to a bounded queue (at most `queue` spans
//! waiting; a batch that does not fit is dropped and counted, the sender is never slowed) and
//! the route answers at once. One worker thread gathers spans into whole traces
//! ([`Assembler`]), turns each into a record (conversations remembered across traces), keeps the
//! sampled ones (`sample`, decided per conversation, else per trace, by a stable hash), scores
//! them with the server's metrics in batches, feeds every score to the [`Monitor`] (rolling
//! windows per system, model and route; CUSUM shift and floor alerts), and appends the scored
//! rows and the records to rotating files that `ragjudge report` reads. An alert is a JSON line on
//! stderr, a counter on `/metrics`, a line in `alerts.jsonl` and, when configured, a POST to a
//! webhook.

use crate::score::Scorer;
use ragjudge_core::Record;
use ragjudge_traces::assemble::Assembler;
use ragjudge_traces::monitor::{Alert, DriftSettings, GroupKey, Monitor, WindowStat};
use ragjudge_traces::otlp::{decode_json, decode_proto, raw_spans};
use ragjudge_traces::{convention, records_with_sessions, Sessions, Span};
use serde_json::Value;
use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How traces are received, scored and watched.
#[derive(Debug, Clone)]
pub struct TraceSettings {
    /// Fraction of conversations (traces without one) scored, in (0, 1].
    pub sample: f64,
    /// Spans waiting at most; a batch beyond is dropped.
    pub queue: usize,
    /// Quiet time after which a trace whose root has arrived is complete.
    pub settle: Duration,
    /// Longest wait for a trace's root.
    pub max_wait: Duration,
    /// Traces waiting at most (the oldest is taken early beyond).
    pub max_traces: usize,
    /// Conversations remembered for the history of later turns.
    pub sessions: usize,
    /// Records scored together.
    pub batch: usize,
    /// Folder of the scored rows, records and alerts (`None`: not written).
    pub output: Option<PathBuf>,
    /// Records per file before the next file.
    pub rotate: usize,
    /// Windows and alerts.
    pub drift: DriftSettings,
    /// Where alerts are POSTed as JSON.
    pub webhook: Option<String>,
}

impl Default for TraceSettings {
    fn default() -> Self {
        TraceSettings {
            sample: 1.0,
            queue: 100_000,
            settle: Duration::from_secs(1),
            max_wait: Duration::from_secs(30),
            max_traces: 10_000,
            sessions: 10_000,
            batch: 64,
            output: None,
            rotate: 10_000,
            drift: DriftSettings::default(),
            webhook: None,
        }
    }
}

impl TraceSettings {
    /// Fails on a setting that cannot work.
    pub fn check(&self) -> Result<(), String> {
        if !(self.sample > 0.0 && self.sample <= 1.0) {
            return Err(format!("--trace-sample must be in (0, 1], got {}", self.sample));
        }
        for (flag, n) in
            [("--trace-queue", self.queue), ("the scoring batch", self.batch), ("--trace-rotate", self.rotate)]
        {
            if n == 0 {
                return Err(format!("{flag} must be at least 1"));
            }
        }
        if self.max_wait < self.settle {
            return Err("--trace-max-wait must not be shorter than --trace-settle".into());
        }
        self.drift.check()
    }
}

/// Counters of the trace pipeline.
#[derive(Debug, Default)]
struct Counters {
    spans_received: AtomicU64,
    spans_dropped: AtomicU64,
    spans_invalid: AtomicU64,
    traces: AtomicU64,
    traces_evicted: AtomicU64,
    traces_skipped: AtomicU64,
    sampled_out: AtomicU64,
    records_scored: AtomicU64,
    records_failed: AtomicU64,
    webhook_failures: AtomicU64,
    waiting: AtomicU64,
}

/// The answer to one OTLP export.
#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    /// Spans queued.
    pub accepted: usize,
    /// Spans refused: unreadable, or dropped with the queue full.
    pub rejected: usize,
    /// Why, when some were refused.
    pub message: Option<String>,
}

/// The receiving end of `/v1/traces` and its worker.
#[derive(Debug)]
pub struct TraceIngest {
    sender: Mutex<Option<mpsc::Sender<Vec<Span>>>>,
    queued: Arc<AtomicUsize>,
    capacity: usize,
    counters: Arc<Counters>,
    monitor: Arc<Mutex<Monitor>>,
    alerts: Arc<Mutex<Alerts>>,
    worker: Mutex<Option<JoinHandle<()>>>,
}

/// Alerts kept in memory: counts by kind, group and column, and the latest [`KEPT_ALERTS`]
/// (all of them are in `alerts.jsonl` and on stderr), so that a long run's memory stays flat.
#[derive(Debug, Default)]
struct Alerts {
    counts: std::collections::BTreeMap<String, u64>,
    latest: std::collections::VecDeque<Alert>,
}

/// Alerts kept in memory.
const KEPT_ALERTS: usize = 100;

impl Alerts {
    fn push(&mut self, alert: Alert) {
        let kind = match alert.kind {
            ragjudge_traces::monitor::AlertKind::Shift => "shift",
            ragjudge_traces::monitor::AlertKind::Floor => "floor",
        };
        *self.counts.entry(format!("kind=\"{kind}\",{}", labels(&alert.group, &alert.column))).or_default() += 1;
        if self.latest.len() == KEPT_ALERTS {
            self.latest.pop_front();
        }
        self.latest.push_back(alert);
    }
}

impl TraceIngest {
    /// Starts the worker, scoring with `scorer`.
    pub fn start(scorer: Arc<Scorer>, settings: TraceSettings) -> Result<Self, String> {
        settings.check()?;
        let writer = settings.output.as_deref().map(|d| Rotating::open(d, settings.rotate)).transpose()?;
        let (sender, receiver) = mpsc::channel::<Vec<Span>>();
        let queued = Arc::new(AtomicUsize::new(0));
        let counters = Arc::new(Counters::default());
        let monitor = Arc::new(Mutex::new(Monitor::new(settings.drift.clone())));
        let alerts = Arc::new(Mutex::new(Alerts::default()));
        let mut worker = Worker {
            scorer,
            assembler: Assembler::new(settings.settle, settings.max_wait, settings.max_traces),
            sessions: Sessions::new(settings.sessions),
            queued: queued.clone(),
            counters: counters.clone(),
            monitor: monitor.clone(),
            alerts: alerts.clone(),
            writer,
            settings: settings.clone(),
        };
        let handle = std::thread::Builder::new()
            .name("ragjudge-traces".into())
            .spawn(move || worker.run(receiver))
            .map_err(|e| format!("cannot start the trace worker: {e}"))?;
        Ok(TraceIngest {
            sender: Mutex::new(Some(sender)),
            queued,
            capacity: settings.queue,
            counters,
            monitor,
            alerts,
            worker: Mutex::new(Some(handle)),
        })
    }

    /// Decodes one OTLP export (`json`: the OTLP/JSON mapping, else protobuf) and queues its
    /// spans; `Err` when the body is not an OTLP trace export at all.
    pub fn accept(&self, body: &[u8], json: bool) -> Result<Accepted, String> {
        let requests = if json {
            let text = std::str::from_utf8(body).map_err(|e| format!("body is not UTF-8: {e}"))?;
            decode_json(text).map_err(|(_, m)| m)?
        } else {
            decode_proto(body)?
        };
        let mut spans = Vec::new();
        let mut invalid = 0;
        let mut first_problem = None;
        for raw in requests.iter().flat_map(raw_spans) {
            let id = format!("trace {} span {}", raw.trace_id, raw.span_id);
            match convention::interpret(raw) {
                Ok(s) => spans.push(s),
                Err(e) => {
                    invalid += 1;
                    first_problem.get_or_insert(format!("{id}: {e}"));
                }
            }
        }
        let n = spans.len();
        self.counters.spans_received.fetch_add((n + invalid) as u64, Ordering::Relaxed);
        self.counters.spans_invalid.fetch_add(invalid as u64, Ordering::Relaxed);
        let mut dropped = 0;
        if n > 0 {
            let fits = self
                .queued
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |q| (q + n <= self.capacity).then_some(q + n))
                .is_ok();
            let sent = fits
                && self
                    .sender
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .as_ref()
                    .is_some_and(|s| s.send(spans).is_ok());
            if !sent {
                if fits {
                    self.queued.fetch_sub(n, Ordering::AcqRel);
                }
                dropped = n;
                self.counters.spans_dropped.fetch_add(n as u64, Ordering::Relaxed);
                first_problem.get_or_insert(format!("queue full ({} spans waiting): {n} spans dropped", self.capacity));
            }
        }
        Ok(Accepted { accepted: n - dropped, rejected: invalid + dropped, message: first_problem })
    }

    /// Stops receiving, scores every trace still waiting, and waits for the worker.
    pub fn finish(&self) {
        drop(self.sender.lock().unwrap_or_else(|p| p.into_inner()).take());
        if let Some(h) = self.worker.lock().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = h.join();
        }
    }

    /// The latest alerts (at most 100; every alert is in `alerts.jsonl` and on stderr).
    pub fn alerts(&self) -> Vec<Alert> {
        self.alerts.lock().unwrap_or_else(|p| p.into_inner()).latest.iter().cloned().collect()
    }

    /// The pipeline's counters and the monitor's windows in the Prometheus text format.
    pub fn render(&self, out: &mut String) {
        let c = &self.counters;
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let counters = [
            ("ragjudge_trace_spans_received_total", "Spans received on /v1/traces.", get(&c.spans_received)),
            ("ragjudge_trace_spans_dropped_total", "Spans dropped because the queue was full.", get(&c.spans_dropped)),
            (
                "ragjudge_trace_spans_invalid_total",
                "Spans refused as unreadable (ids, times, attributes).",
                get(&c.spans_invalid),
            ),
            ("ragjudge_traces_total", "Traces assembled.", get(&c.traces)),
            (
                "ragjudge_traces_evicted_total",
                "Traces taken before they were complete, to keep the bound.",
                get(&c.traces_evicted),
            ),
            ("ragjudge_traces_skipped_total", "Traces without a question or an answer.", get(&c.traces_skipped)),
            ("ragjudge_traces_sampled_out_total", "Records not scored by sampling.", get(&c.sampled_out)),
            ("ragjudge_trace_records_scored_total", "Records of traces scored.", get(&c.records_scored)),
            (
                "ragjudge_trace_records_failed_total",
                "Records of traces on which a metric failed.",
                get(&c.records_failed),
            ),
            ("ragjudge_alert_webhook_failures_total", "Alerts the webhook did not accept.", get(&c.webhook_failures)),
        ];
        for (name, help, v) in counters {
            family(out, name, "counter", help);
            let _ = writeln!(out, "{name} {v}");
        }
        family(out, "ragjudge_trace_queue_spans", "gauge", "Spans waiting in the queue.");
        let _ = writeln!(out, "ragjudge_trace_queue_spans {}", self.queued.load(Ordering::Relaxed));
        family(out, "ragjudge_trace_queue_capacity_spans", "gauge", "The queue's bound.");
        let _ = writeln!(out, "ragjudge_trace_queue_capacity_spans {}", self.capacity);
        family(out, "ragjudge_traces_waiting", "gauge", "Traces waiting for their last spans.");
        let _ = writeln!(out, "ragjudge_traces_waiting {}", get(&c.waiting));
        let stats = self.monitor.lock().unwrap_or_else(|p| p.into_inner()).stats();
        let gauges: [(&str, &str, StatValue); 4] = [
            ("ragjudge_window_mean", "Mean of the rolling window, by system, model, route and column.", |s| {
                Some(s.window_mean)
            }),
            ("ragjudge_baseline_mean", "Mean of the baseline scores.", |s| s.baseline_mean),
            ("ragjudge_cusum", "CUSUM statistic for a fall (alert above h).", |s| Some(s.cusum)),
            ("ragjudge_window_scores_total", "Scores seen.", |s| Some(s.scores as f64)),
        ];
        for (name, help, value) in gauges {
            family(out, name, if name.ends_with("_total") { "counter" } else { "gauge" }, help);
            for s in &stats {
                if let Some(v) = value(s) {
                    let _ = writeln!(out, "{name}{{{}}} {v}", labels(&s.group, &s.column));
                }
            }
        }
        family(out, "ragjudge_drift_alerts_total", "counter", "Drift alerts raised, by kind, group and column.");
        let counts = self.alerts.lock().unwrap_or_else(|p| p.into_inner()).counts.clone();
        for (l, n) in counts {
            let _ = writeln!(out, "ragjudge_drift_alerts_total{{{l}}} {n}");
        }
    }
}

/// One value of a window's state, when it has one.
type StatValue = fn(&WindowStat) -> Option<f64>;

fn family(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

/// Prometheus labels of a group and column, values escaped.
fn labels(g: &GroupKey, column: &str) -> String {
    let esc = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n");
    format!(
        "system=\"{}\",model=\"{}\",route=\"{}\",column=\"{}\"",
        esc(&g.system),
        esc(&g.model),
        esc(&g.route),
        esc(column)
    )
}

/// The group of a record: its system, `meta.model` and `meta.route`.
pub fn group_of(r: &Record) -> GroupKey {
    let meta = |k: &str| r.meta.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
    GroupKey { system: r.system.clone(), model: meta("model"), route: meta("route") }
}

/// Whether a record is scored under `rate`: by its conversation, else its trace.
fn sampled(r: &Record, rate: f64) -> bool {
    if rate >= 1.0 {
        return true;
    }
    let key = r.meta.get("session_id").and_then(Value::as_str).unwrap_or(&r.id);
    let h = ragjudge_core::stable_hash(&[key.as_bytes()]);
    (h as f64) < rate * u64::MAX as f64
}

struct Worker {
    scorer: Arc<Scorer>,
    assembler: Assembler,
    sessions: Sessions,
    queued: Arc<AtomicUsize>,
    counters: Arc<Counters>,
    monitor: Arc<Mutex<Monitor>>,
    alerts: Arc<Mutex<Alerts>>,
    writer: Option<Rotating>,
    settings: TraceSettings,
}

impl Worker {
    fn run(&mut self, receiver: mpsc::Receiver<Vec<Span>>) {
        let tick = (self.settings.settle / 4).clamp(Duration::from_millis(10), Duration::from_millis(250));
        let mut ready = Vec::new();
        loop {
            match receiver.recv_timeout(tick) {
                Ok(batch) => {
                    self.queued.fetch_sub(batch.len(), Ordering::AcqRel);
                    let now = Instant::now();
                    for span in batch {
                        if let Some(early) = self.assembler.add(span, now) {
                            ready.push(early);
                        }
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    ready.extend(self.assembler.drain());
                    self.process(std::mem::take(&mut ready));
                    return;
                }
            }
            ready.extend(self.assembler.ready(Instant::now()));
            self.counters.waiting.store(self.assembler.waiting() as u64, Ordering::Relaxed);
            self.counters.traces_evicted.store(self.assembler.evicted(), Ordering::Relaxed);
            if !ready.is_empty() {
                self.process(std::mem::take(&mut ready));
            }
        }
    }

    fn process(&mut self, traces: Vec<Vec<Span>>) {
        let mut records = Vec::new();
        for spans in traces {
            self.counters.traces.fetch_add(1, Ordering::Relaxed);
            let g = records_with_sessions(spans, None, &mut self.sessions);
            self.counters.traces_skipped.fetch_add(g.issues.len() as u64, Ordering::Relaxed);
            for r in g.records {
                if sampled(&r, self.settings.sample) {
                    records.push(r);
                } else {
                    self.counters.sampled_out.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        for chunk in records.chunks(self.settings.batch) {
            self.score(chunk.to_vec());
        }
    }

    fn score(&mut self, records: Vec<Record>) {
        let n = records.len() as u64;
        // What is needed of the records after scoring, taken before they move into the scorer
        // (no copy of the batch): each one's group, and its JSON line when records are written.
        let groups: Vec<GroupKey> = records.iter().map(group_of).collect();
        let lines: Vec<Vec<u8>> = match self.writer {
            Some(_) => records.iter().map(|r| serde_json::to_vec(r).unwrap_or_default()).collect(),
            None => Vec::new(),
        };
        let response = match self.scorer.score(records, false) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("traces: scoring {n} records failed: {e}");
                self.counters.records_failed.fetch_add(n, Ordering::Relaxed);
                return;
            }
        };
        self.counters.records_scored.fetch_add(n, Ordering::Relaxed);
        self.counters.records_failed.fetch_add(response.failed as u64, Ordering::Relaxed);
        let mut raised = Vec::new();
        {
            let mut monitor = self.monitor.lock().unwrap_or_else(|p| p.into_inner());
            for (row, group) in response.rows.iter().zip(&groups) {
                for column in &response.columns {
                    if let Some(x) = row.get(column).and_then(Value::as_f64) {
                        raised.extend(monitor.observe(group, column, x));
                    }
                }
            }
        }
        if let Some(w) = &mut self.writer {
            if let Err(e) = w.append(&response.rows, &lines, &raised) {
                eprintln!("traces: {e}");
            }
        }
        for alert in raised {
            let line = serde_json::to_string(&alert).unwrap_or_default();
            eprintln!("drift alert: {line}");
            if let Some(url) = self.settings.webhook.clone() {
                let failures = self.counters.clone();
                std::thread::spawn(move || {
                    let sent = ureq::post(&url)
                        .timeout(Duration::from_secs(5))
                        .set("Content-Type", "application/json")
                        .send_string(&line);
                    if let Err(e) = sent {
                        eprintln!("drift alert: webhook {url}: {e}");
                        failures.webhook_failures.fetch_add(1, Ordering::Relaxed);
                    }
                });
            }
            self.alerts.lock().unwrap_or_else(|p| p.into_inner()).push(alert);
        }
    }
}

/// Scored rows and records appended to `scores-NNNNNN.jsonl` and `records-NNNNNN.jsonl` (the
/// next number after any already in the folder, so nothing earlier is overwritten), a new pair
/// every `rotate` records; alerts appended to `alerts.jsonl`.
#[derive(Debug)]
struct Rotating {
    dir: PathBuf,
    rotate: usize,
    index: u64,
    in_file: usize,
    files: Option<(File, File)>,
}

impl Rotating {
    fn open(dir: &Path, rotate: usize) -> Result<Self, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot create the folder: {e}", dir.display()))?;
        let last = std::fs::read_dir(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().to_string();
                name.strip_prefix("scores-")?.strip_suffix(".jsonl")?.parse::<u64>().ok()
            })
            .max()
            .unwrap_or(0);
        Ok(Rotating { dir: dir.to_path_buf(), rotate, index: last, in_file: 0, files: None })
    }

    fn append(
        &mut self,
        rows: &[serde_json::Map<String, Value>],
        record_lines: &[Vec<u8>],
        alerts: &[Alert],
    ) -> Result<(), String> {
        let open = |name: String| {
            OpenOptions::new().create(true).append(true).open(&name).map_err(|e| format!("{name}: cannot open: {e}"))
        };
        for (row, record) in rows.iter().zip(record_lines) {
            if self.files.is_none() {
                self.index += 1;
                self.in_file = 0;
                let path = |kind: &str| self.dir.join(format!("{kind}-{:06}.jsonl", self.index)).display().to_string();
                self.files = Some((open(path("scores"))?, open(path("records"))?));
            }
            let Some((scores, recs)) = self.files.as_mut() else { continue };
            let mut line = serde_json::to_vec(row).map_err(|e| e.to_string())?;
            line.push(b'\n');
            scores.write_all(&line).map_err(|e| format!("scores: {e}"))?;
            recs.write_all(record).and_then(|_| recs.write_all(b"\n")).map_err(|e| format!("records: {e}"))?;
            self.in_file += 1;
            if self.in_file >= self.rotate {
                close_pair(self.files.take())?;
            }
        }
        if !alerts.is_empty() {
            let mut f = open(self.dir.join("alerts.jsonl").display().to_string())?;
            for a in alerts {
                let mut line = serde_json::to_vec(a).map_err(|e| e.to_string())?;
                line.push(b'\n');
                f.write_all(&line).map_err(|e| format!("alerts: {e}"))?;
            }
        }
        if let Some((s, r)) = self.files.as_mut() {
            s.flush().and_then(|_| r.flush()).map_err(|e| format!("flush: {e}"))?;
        }
        Ok(())
    }
}

/// Flushes and closes a pair of files.
fn close_pair(files: Option<(File, File)>) -> Result<(), String> {
    if let Some((mut s, mut r)) = files {
        s.flush().and_then(|_| r.flush()).map_err(|e| format!("flush: {e}"))?;
    }
    Ok(())
}
