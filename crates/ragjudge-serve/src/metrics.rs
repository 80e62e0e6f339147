//! The server's own counters, rendered in the Prometheus text exposition format (version 0.0.4):
//! requests by route and status, a request latency histogram per route, records scored and
//! failed, requests refused (429) and timed out, the jobs running and waiting per route, and,
//! when the binary registers a probe ([`set_heap_probe`]), the bytes its allocator holds live.

use crate::admission::Load;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// Bytes the process has allocated and not yet freed, as its allocator counts them.
pub type HeapProbe = fn() -> Option<u64>;

static HEAP_PROBE: OnceLock<HeapProbe> = OnceLock::new();

/// Registers the process's heap probe (a binary built with an allocator that keeps statistics,
/// such as jemalloc); `/metrics` then reports `ragjudge_heap_allocated_bytes`. Live bytes tell a
/// leak (growing) from an allocator that keeps freed pages (growing resident memory, flat heap).
/// The first registration wins.
pub fn set_heap_probe(probe: HeapProbe) {
    let _ = HEAP_PROBE.set(probe);
}

/// Upper bounds (seconds) of the latency histogram's buckets; `+Inf` follows.
pub const LATENCY_BUCKETS: [f64; 14] =
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];

#[derive(Debug, Default, Clone)]
struct Histogram {
    /// Non-cumulative counts per bucket, the last one for `+Inf`.
    counts: [u64; LATENCY_BUCKETS.len() + 1],
    sum: f64,
    count: u64,
}

#[derive(Debug, Default)]
struct Inner {
    requests: BTreeMap<(&'static str, u16), u64>,
    latency: BTreeMap<&'static str, Histogram>,
    records_scored: u64,
    records_failed: u64,
    judgements: u64,
    rejected: BTreeMap<&'static str, u64>,
    timeouts: BTreeMap<&'static str, u64>,
}

/// Counters of one server.
#[derive(Debug, Default)]
pub struct ServerMetrics {
    inner: Mutex<Inner>,
}

impl ServerMetrics {
    fn with<T>(&self, f: impl FnOnce(&mut Inner) -> T) -> T {
        // A panic while holding the lock leaves plain counters behind: still usable.
        let mut guard = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut guard)
    }

    /// Counts one answered request on `route` with `status` and its latency.
    pub fn request(&self, route: &'static str, status: u16, elapsed: Duration) {
        let secs = elapsed.as_secs_f64();
        self.with(|m| {
            *m.requests.entry((route, status)).or_default() += 1;
            let h = m.latency.entry(route).or_default();
            let bucket = LATENCY_BUCKETS.iter().position(|&b| secs <= b).unwrap_or(LATENCY_BUCKETS.len());
            h.counts[bucket] += 1;
            h.sum += secs;
            h.count += 1;
        });
    }

    /// Counts records scored, `failed` of them with at least one metric failure.
    pub fn scored(&self, records: u64, failed: u64) {
        self.with(|m| {
            m.records_scored += records;
            m.records_failed += failed;
        });
    }

    /// Counts one pair judged.
    pub fn judged(&self) {
        self.with(|m| m.judgements += 1);
    }

    /// Counts one request refused because the queue of `route` was full.
    pub fn rejected(&self, route: &'static str) {
        self.with(|m| *m.rejected.entry(route).or_default() += 1);
    }

    /// Counts one request on `route` that ran past its deadline.
    pub fn timed_out(&self, route: &'static str) {
        self.with(|m| *m.timeouts.entry(route).or_default() += 1);
    }

    /// Requests answered on `route` with `status` so far.
    pub fn requests(&self, route: &'static str, status: u16) -> u64 {
        self.with(|m| m.requests.get(&(route, status)).copied().unwrap_or(0))
    }

    /// The Prometheus text of every counter, with the current `loads` (route, load) as gauges.
    pub fn render(&self, loads: &[(&'static str, Load)]) -> String {
        let mut out = String::new();
        self.with(|m| {
            family(&mut out, "ragjudge_http_requests_total", "counter", "HTTP requests answered, by route and status.");
            for ((route, status), n) in &m.requests {
                let _ = writeln!(out, "ragjudge_http_requests_total{{route=\"{route}\",status=\"{status}\"}} {n}");
            }
            let name = "ragjudge_http_request_duration_seconds";
            family(&mut out, name, "histogram", "Time from request to response, by route.");
            for (route, h) in &m.latency {
                let mut cumulative = 0;
                for (i, c) in h.counts.iter().enumerate() {
                    cumulative += c;
                    let le = LATENCY_BUCKETS.get(i).map(|b| b.to_string()).unwrap_or_else(|| "+Inf".into());
                    let _ = writeln!(out, "{name}_bucket{{route=\"{route}\",le=\"{le}\"}} {cumulative}");
                }
                let _ = writeln!(out, "{name}_sum{{route=\"{route}\"}} {}", h.sum);
                let _ = writeln!(out, "{name}_count{{route=\"{route}\"}} {}", h.count);
            }
            family(&mut out, "ragjudge_records_scored_total", "counter", "Records scored by /v1/score.");
            let _ = writeln!(out, "ragjudge_records_scored_total {}", m.records_scored);
            family(
                &mut out,
                "ragjudge_records_failed_total",
                "counter",
                "Records scored on which at least one metric failed.",
            );
            let _ = writeln!(out, "ragjudge_records_failed_total {}", m.records_failed);
            family(&mut out, "ragjudge_judgements_total", "counter", "Pairs judged by /v1/judge.");
            let _ = writeln!(out, "ragjudge_judgements_total {}", m.judgements);
            family(
                &mut out,
                "ragjudge_rejected_total",
                "counter",
                "Requests refused with 429 because the queue was full.",
            );
            for (route, n) in &m.rejected {
                let _ = writeln!(out, "ragjudge_rejected_total{{route=\"{route}\"}} {n}");
            }
            family(&mut out, "ragjudge_timeouts_total", "counter", "Requests answered 503 after their deadline.");
            for (route, n) in &m.timeouts {
                let _ = writeln!(out, "ragjudge_timeouts_total{{route=\"{route}\"}} {n}");
            }
        });
        if let Some(bytes) = HEAP_PROBE.get().and_then(|probe| probe()) {
            family(&mut out, "ragjudge_heap_allocated_bytes", "gauge", "Heap bytes allocated and not yet freed.");
            let _ = writeln!(out, "ragjudge_heap_allocated_bytes {bytes}");
        }
        family(&mut out, "ragjudge_inflight_jobs", "gauge", "Jobs running, by route.");
        for (route, load) in loads {
            let _ = writeln!(out, "ragjudge_inflight_jobs{{route=\"{route}\"}} {}", load.running);
        }
        family(&mut out, "ragjudge_queue_depth", "gauge", "Requests waiting for a job slot, by route.");
        for (route, load) in loads {
            let _ = writeln!(out, "ragjudge_queue_depth{{route=\"{route}\"}} {}", load.waiting);
        }
        out
    }
}

fn family(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_are_cumulative() {
        let m = ServerMetrics::default();
        // 0.5 ms falls in le=0.001, 3 ms in le=0.005, 60 s only in +Inf.
        m.request("/v1/score", 200, Duration::from_micros(500));
        m.request("/v1/score", 200, Duration::from_millis(3));
        m.request("/v1/score", 429, Duration::from_secs(60));
        let text = m.render(&[("/v1/score", Load { running: 1, waiting: 2 })]);
        let line =
            |prefix: &str| text.lines().find(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("{prefix}\n{text}"));
        let d = "ragjudge_http_request_duration_seconds";
        assert_eq!(line(&format!("{d}_bucket{{route=\"/v1/score\",le=\"0.001\"}}")).rsplit(' ').next(), Some("1"));
        assert_eq!(line(&format!("{d}_bucket{{route=\"/v1/score\",le=\"0.0025\"}}")).rsplit(' ').next(), Some("1"));
        assert_eq!(line(&format!("{d}_bucket{{route=\"/v1/score\",le=\"0.005\"}}")).rsplit(' ').next(), Some("2"));
        assert_eq!(line(&format!("{d}_bucket{{route=\"/v1/score\",le=\"30\"}}")).rsplit(' ').next(), Some("2"));
        assert_eq!(line(&format!("{d}_bucket{{route=\"/v1/score\",le=\"+Inf\"}}")).rsplit(' ').next(), Some("3"));
        assert_eq!(line(&format!("{d}_count{{route=\"/v1/score\"}}")).rsplit(' ').next(), Some("3"));
        assert!(text.contains("ragjudge_http_requests_total{route=\"/v1/score\",status=\"200\"} 2\n"));
        assert!(text.contains("ragjudge_http_requests_total{route=\"/v1/score\",status=\"429\"} 1\n"));
        assert!(text.contains("ragjudge_queue_depth{route=\"/v1/score\"} 2\n"));
        assert!(text.contains("ragjudge_inflight_jobs{route=\"/v1/score\"} 1\n"));
    }
}
