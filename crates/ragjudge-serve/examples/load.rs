//! A load client for `ragjudge serve` (used by `bench/serve/run.sh`).
//!
//! ```text
//! load --url http://127.0.0.1:8080 --input examples/runs/*.jsonl --requests 1000 --concurrency 16
//!      [--records-per-request 1] [--soak SECS --pid PID] [--json]
//! ```
//!
//! Sends `/v1/score` requests built from the input records (cycled) from `concurrency` workers
//! over keep-alive connections, then prints throughput, latency percentiles of the answered
//! (200) requests, and the count of every status. With `--soak SECS` it sends for that long
//! instead and samples the server's resident memory (`VmRSS` of `/proc/PID/status`) and, when
//! its `/metrics` reports one, its live heap (`ragjudge_heap_allocated_bytes`) every 10 s.

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Debug)]
struct Options {
    url: String,
    inputs: Vec<String>,
    requests: usize,
    concurrency: usize,
    per_request: usize,
    soak: Option<u64>,
    pid: Option<u32>,
    json: bool,
}

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        url: "http://127.0.0.1:8080".into(),
        inputs: Vec::new(),
        requests: 1000,
        concurrency: 16,
        per_request: 1,
        soak: None,
        pid: None,
        json: false,
    };
    let mut args = std::env::args().skip(1).peekable();
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        let number = |v: String, name: &str| v.parse::<u64>().map_err(|_| format!("{name}: not a number: {v}"));
        match a.as_str() {
            "--url" => o.url = value("--url")?,
            "--requests" => o.requests = number(value("--requests")?, "--requests")? as usize,
            "--concurrency" => o.concurrency = number(value("--concurrency")?, "--concurrency")? as usize,
            "--records-per-request" => o.per_request = number(value(&a)?, &a)? as usize,
            "--soak" => o.soak = Some(number(value("--soak")?, "--soak")?),
            "--pid" => o.pid = Some(number(value("--pid")?, "--pid")? as u32),
            "--json" => o.json = true,
            "--input" => {
                o.inputs.push(value("--input")?);
                while let Some(next) = args.peek().filter(|n| !n.starts_with("--")) {
                    o.inputs.push(next.clone());
                    args.next();
                }
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if o.inputs.is_empty() {
        return Err("--input FILE... is required".into());
    }
    if o.concurrency == 0 || o.per_request == 0 {
        return Err("--concurrency and --records-per-request must be at least 1".into());
    }
    Ok(o)
}

/// Request bodies: the input records, `per` to a request, cycled.
fn bodies(inputs: &[String], per: usize) -> Result<Vec<Bytes>, String> {
    let mut records = Vec::new();
    for path in inputs {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let v: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("{path}:{}: {e}", i + 1))?;
            records.push(v);
        }
    }
    if records.is_empty() {
        return Err("no records in the inputs".into());
    }
    Ok(records
        .chunks(per)
        .map(|c| Bytes::from(serde_json::json!({ "records": c, "detail": false }).to_string()))
        .collect())
}

#[derive(Default)]
struct Tally {
    latencies: Vec<Duration>,
    statuses: BTreeMap<String, usize>,
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// `ragjudge_heap_allocated_bytes` from the server's `/metrics`, when it reports one.
async fn heap_bytes<C>(client: &Client<C, Full<Bytes>>, url: &str) -> Option<u64>
where
    C: hyper_util::client::legacy::connect::Connect + Clone + Send + Sync + 'static,
{
    let req = hyper::Request::get(url).body(Full::new(Bytes::new())).ok()?;
    let body = client.request(req).await.ok()?.into_body().collect().await.ok()?.to_bytes();
    let text = String::from_utf8_lossy(&body);
    let line = text.lines().find(|l| l.starts_with("ragjudge_heap_allocated_bytes "))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// First, last and largest of a sampled series, with the samples.
fn series(samples: impl Iterator<Item = (u64, Option<u64>)>) -> serde_json::Value {
    let samples: Vec<(u64, Option<u64>)> = samples.collect();
    let values: Vec<u64> = samples.iter().filter_map(|x| x.1).collect();
    serde_json::json!({
        "first": values.first(), "last": values.last(), "max": values.iter().max(),
        "samples": samples.iter().map(|(t, v)| serde_json::json!([t, v])).collect::<Vec<_>>(),
    })
}

fn percentile(sorted: &[Duration], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    // Nearest rank.
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1].as_secs_f64() * 1000.0
}

#[tokio::main]
async fn main() {
    let o = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let bodies = match bodies(&o.inputs, o.per_request) {
        Ok(b) => Arc::new(b),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let client: Client<_, Full<Bytes>> =
        Client::builder(TokioExecutor::new()).pool_max_idle_per_host(o.concurrency).build_http();
    let url = format!("{}/v1/score", o.url.trim_end_matches('/'));
    let next = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let tally = Arc::new(Mutex::new(Tally::default()));
    let limit = if o.soak.is_some() { usize::MAX } else { o.requests };

    let sampler = match (o.soak, o.pid) {
        (Some(secs), Some(pid)) => {
            let stop = stop.clone();
            let (client, metrics_url) = (client.clone(), format!("{}/metrics", o.url.trim_end_matches('/')));
            Some(tokio::spawn(async move {
                let start = Instant::now();
                let mut samples = vec![(0u64, rss_kib(pid), heap_bytes(&client, &metrics_url).await)];
                while start.elapsed() < Duration::from_secs(secs) {
                    tokio::time::sleep(Duration::from_secs(10).min(Duration::from_secs(secs))).await;
                    let s = (start.elapsed().as_secs(), rss_kib(pid), heap_bytes(&client, &metrics_url).await);
                    let shown = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or("?".into());
                    eprintln!("t={:>4}s rss={} KiB heap={} B", s.0, shown(s.1), shown(s.2));
                    samples.push(s);
                }
                stop.store(true, Ordering::SeqCst);
                samples
            }))
        }
        (Some(secs), None) => {
            let stop = stop.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_secs(secs)).await;
                stop.store(true, Ordering::SeqCst);
            });
            None
        }
        _ => None,
    };

    let start = Instant::now();
    let mut workers = Vec::new();
    for _ in 0..o.concurrency {
        let (client, url, bodies, next, stop, tally) =
            (client.clone(), url.clone(), bodies.clone(), next.clone(), stop.clone(), tally.clone());
        workers.push(tokio::spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= limit || stop.load(Ordering::SeqCst) {
                    break;
                }
                let body = bodies[i % bodies.len()].clone();
                let req = hyper::Request::post(&url)
                    .header("content-type", "application/json")
                    .body(Full::new(body))
                    .expect("a valid request");
                let sent = Instant::now();
                let status = match client.request(req).await {
                    Ok(res) => {
                        let status = res.status().as_u16();
                        match res.into_body().collect().await {
                            Ok(_) => status.to_string(),
                            Err(_) => "body-error".to_string(),
                        }
                    }
                    Err(_) => "connect-error".to_string(),
                };
                let elapsed = sent.elapsed();
                let mut t = tally.lock().unwrap();
                if status == "200" {
                    t.latencies.push(elapsed);
                }
                *t.statuses.entry(status).or_default() += 1;
            }
        }));
    }
    for w in workers {
        let _ = w.await;
    }
    let wall = start.elapsed().as_secs_f64();
    let samples = match sampler {
        Some(s) => s.await.ok(),
        None => None,
    };

    let mut t = tally.lock().unwrap();
    t.latencies.sort();
    let sent: usize = t.statuses.values().sum();
    let ok = t.latencies.len();
    let report = serde_json::json!({
        "requests": sent,
        "concurrency": o.concurrency,
        "records_per_request": o.per_request,
        "wall_s": wall,
        "throughput_rps": sent as f64 / wall,
        "ok_rps": ok as f64 / wall,
        "records_per_s": (ok * o.per_request) as f64 / wall,
        "p50_ms": percentile(&t.latencies, 0.50),
        "p90_ms": percentile(&t.latencies, 0.90),
        "p99_ms": percentile(&t.latencies, 0.99),
        "max_ms": t.latencies.last().map(|d| d.as_secs_f64() * 1000.0),
        "statuses": t.statuses,
        "rss_kib": samples.as_ref().map(|s| series(s.iter().map(|x| (x.0, x.1)))),
        "heap_bytes": samples.as_ref().map(|s| series(s.iter().map(|x| (x.0, x.2)))),
    });
    if o.json {
        println!("{report}");
    } else {
        println!(
            "{sent} requests at concurrency {} in {wall:.2} s: {:.1} req/s ({:.1} answered 200/s, {:.1} records/s)",
            o.concurrency,
            sent as f64 / wall,
            ok as f64 / wall,
            (ok * o.per_request) as f64 / wall
        );
        println!(
            "latency of 200s: p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            percentile(&t.latencies, 0.5),
            percentile(&t.latencies, 0.9),
            percentile(&t.latencies, 0.99),
            t.latencies.last().map(|d| d.as_secs_f64() * 1000.0).unwrap_or(f64::NAN)
        );
        let statuses: Vec<String> = t.statuses.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        println!("statuses: {}", statuses.join(", "));
        if let Some(r) = report["rss_kib"].as_object() {
            println!("server RSS (KiB): first {} last {} max {}", r["first"], r["last"], r["max"]);
        }
        if let Some(r) = report["heap_bytes"].as_object().filter(|r| !r["first"].is_null()) {
            println!("server live heap (bytes): first {} last {} max {}", r["first"], r["last"], r["max"]);
        }
    }
}
