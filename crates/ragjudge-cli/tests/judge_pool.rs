//! A pool of two real judge servers: llama.cpp's `llama-server` (built by
//! `scripts/llama-server.sh`) serving SmolLM2-135M, each behind a loopback proxy that counts the
//! chat completions asked of it.
//!
//! - One server killed mid-run: every judgement completes, and the servers were asked nothing
//!   twice apart from the calls in flight on the killed one (at most its `--concurrency`).
//! - A tournament sharded over the pool, the shards' caches combined with `merge-caches`: one run
//!   over all records then asks nothing and gives the single run's leaderboard. (Round robin: every
//!   pair meets on every question, so the shards make exactly the single run's calls; a Swiss
//!   round's pairings depend on all earlier results, so shards of a Swiss run may leave calls for
//!   the final run to make.)

mod common;

use common::repo_root;
use ragjudge_store::CallCache;
use serde_json::Value;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// Calls each server may have in flight (`--concurrency`).
const CONCURRENCY: u64 = 2;

/// The `llama-server` binary, built on first use.
fn llama_server() -> PathBuf {
    let out = Command::new("bash")
        .arg(repo_root().join("scripts/llama-server.sh"))
        .stderr(Stdio::inherit())
        .output()
        .expect("run scripts/llama-server.sh");
    assert!(out.status.success(), "scripts/llama-server.sh failed");
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

fn smollm2() -> PathBuf {
    ragjudge_store::ensure("smollm2-135m").expect("install smollm2-135m").main_file().to_path_buf()
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// One `llama-server` on loopback; killed when dropped.
struct Server {
    child: Child,
}

impl Server {
    fn start(bin: &Path, model: &Path, log: &Path) -> (Self, u16) {
        let port = free_port();
        let log = std::fs::File::create(log).unwrap();
        let child = Command::new(bin)
            .args(["-m", model.to_str().unwrap(), "--host", "127.0.0.1", "--port", &port.to_string()])
            // One slot, one thread and no prompt reuse: each request is computed alone and from
            // scratch, so a judgement is the same bits whichever server makes it and whenever.
            .args(["-c", "4096", "-np", "1", "-t", "1", "--no-cache-prompt", "--no-webui"])
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("start llama-server");
        let mut me = Self { child };
        let deadline = Instant::now() + Duration::from_secs(180);
        while !healthy(port) {
            assert!(me.child.try_wait().unwrap().is_none(), "llama-server exited while loading");
            assert!(Instant::now() < deadline, "llama-server not healthy after 180 s");
            thread::sleep(Duration::from_millis(200));
        }
        (me, port)
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

fn healthy(port: u16) -> bool {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else { return false };
    let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
    if s.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").is_err() {
        return false;
    }
    let mut reply = String::new();
    let _ = s.read_to_string(&mut reply);
    reply.starts_with("HTTP/1.1 200")
}

/// A loopback TCP proxy to a server that counts the chat completions asked through it; stopped,
/// it refuses new connections and cuts the open ones.
struct Proxy {
    port: u16,
    asked: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    open: Arc<std::sync::Mutex<Vec<TcpStream>>>,
}

const REQUEST: &[u8] = b"POST /v1/chat/completions ";

impl Proxy {
    fn start(upstream: u16) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let (asked, stop) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicBool::new(false)));
        let open = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (a, s, o) = (asked.clone(), stop.clone(), open.clone());
        thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((client, _)) => {
                        client.set_nonblocking(false).unwrap();
                        let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else { continue };
                        o.lock().unwrap().extend([client.try_clone().unwrap(), server.try_clone().unwrap()]);
                        let (c2, s2) = (client.try_clone().unwrap(), server.try_clone().unwrap());
                        let count = a.clone();
                        thread::spawn(move || pipe(client, server, Some(count)));
                        thread::spawn(move || pipe(s2, c2, None));
                    }
                    Err(_) => thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Self { port, asked, stop, open }
    }

    fn asked(&self) -> u64 {
        self.asked.load(Ordering::SeqCst)
    }

    fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        for s in self.open.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }
}

/// Copies `from` to `to` until either closes; with `count`, counts request lines of chat
/// completions (a line split across two reads is still seen: the tail of each read is kept).
fn pipe(mut from: TcpStream, mut to: TcpStream, count: Option<Arc<AtomicU64>>) {
    let mut buf = [0u8; 16384];
    let mut tail: Vec<u8> = Vec::new();
    while let Ok(n) = from.read(&mut buf) {
        if n == 0 || to.write_all(&buf[..n]).is_err() {
            break;
        }
        if let Some(c) = &count {
            tail.extend_from_slice(&buf[..n]);
            let found = tail.windows(REQUEST.len()).filter(|w| *w == REQUEST).count();
            c.fetch_add(found as u64, Ordering::SeqCst);
            let keep = tail.len().min(REQUEST.len() - 1);
            tail.drain(..tail.len() - keep);
        }
    }
    let _ = to.shutdown(Shutdown::Both);
    let _ = from.shutdown(Shutdown::Both);
}

/// The first four questions of each example run, in `dir` (48 judge calls in a round robin).
fn small_runs(dir: &Path) -> Vec<String> {
    common::example_runs()
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            let head: String = text.lines().take(4).map(|l| format!("{l}\n")).collect();
            common::write(dir, Path::new(p).file_name().unwrap().to_str().unwrap(), head)
        })
        .collect()
}

/// `ragjudge tournament` over `runs` with the pool at `urls`, as a child process.
fn tournament(runs: &[String], urls: &[String], cache: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ragjudge"));
    cmd.arg("tournament")
        .args(runs)
        .args(["--judge", "openai:smollm2-135m", "--protocol", "two-label", "--format", "round-robin"])
        .args(["--concurrency", &CONCURRENCY.to_string(), "--json"])
        .arg("--cache")
        .arg(cache)
        .arg("--output")
        .arg(out)
        .args(extra)
        .env("OPENAI_BASE_URL", urls.join(","))
        .env("OPENAI_API_KEY", "unused")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn finish(child: Child) -> Value {
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "tournament failed: {stderr}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// What a tournament concluded: its leaderboard rows (rank, Elo, Bradley-Terry with interval,
/// wins / ties / losses), its matches and the judged calls, failures included.
fn leaderboard(doc: &Value) -> Value {
    assert!(doc["systems"].as_array().is_some_and(|s| s.len() == 4), "no leaderboard in {doc}");
    serde_json::json!({"systems": doc["systems"], "matches": doc["matches"], "judge_calls": doc["judge_calls"],
                       "failed": doc["failed"]})
}

#[test]
fn a_pool_of_two_llama_servers_survives_a_kill_and_shards_replay_as_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let (bin, model) = (llama_server(), smollm2());
    let runs = small_runs(dir.path());
    let (mut a, port_a) = Server::start(&bin, &model, &dir.path().join("a.log"));
    let (_b, port_b) = Server::start(&bin, &model, &dir.path().join("b.log"));
    let (pa, pb) = (Proxy::start(port_a), Proxy::start(port_b));
    let url = |p: &Proxy| format!("http://127.0.0.1:{}/v1", p.port);
    let pool = [url(&pa), url(&pb)];

    // 1. One run over the pool; server A killed once it has been asked six calls.
    let cache = dir.path().join("single.sqlite");
    let child = tournament(&runs, &pool, &cache, &dir.path().join("single"), &[]).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(600);
    while pa.asked() < 6 {
        assert!(Instant::now() < deadline, "server A was asked {} calls in 600 s", pa.asked());
        thread::sleep(Duration::from_millis(20));
    }
    a.kill();
    pa.stop();
    let asked_a = pa.asked();
    let single = finish(child);
    assert_eq!(single["failed"], 0, "a judgement failed: {}", single["failures"]);
    let calls = CallCache::open(&cache).unwrap().len().unwrap();
    let asked = asked_a + pb.asked();
    eprintln!("single run over the pool: {calls} judgements, asked {asked_a} of A (killed) and {} of B", pb.asked());
    assert!(calls > 0 && pb.asked() > 0);
    assert!(
        asked >= calls && asked - calls <= CONCURRENCY,
        "{calls} judgements, {asked} asked ({asked_a} of A, {} of B): only A's in-flight calls may be asked twice",
        pb.asked()
    );
    // Every judgement completed: the same run again asks nothing.
    let before = pb.asked();
    let again = finish(tournament(&runs, &pool, &cache, &dir.path().join("again"), &[]).spawn().unwrap());
    assert_eq!(pb.asked(), before, "a re-run asked the server");
    assert_eq!(leaderboard(&again), leaderboard(&single));

    // 2. Two shards over the pool (A still down), their caches combined, one run replaying them.
    let shard_caches: Vec<PathBuf> = (1..=2).map(|i| dir.path().join(format!("shard{i}.sqlite"))).collect();
    for (i, c) in shard_caches.iter().enumerate() {
        let shard = format!("{}/2", i + 1);
        finish(
            tournament(&runs, &pool, c, &dir.path().join(format!("s{}", i + 1)), &["--shard", &shard]).spawn().unwrap(),
        );
    }
    let combined = dir.path().join("combined.sqlite");
    let mut merge = Command::new(env!("CARGO_BIN_EXE_ragjudge"));
    merge.arg("merge-caches").args(&shard_caches).arg("--into").arg(&combined);
    assert!(merge.stdout(Stdio::null()).status().unwrap().success());
    let before = pb.asked();
    let replay = finish(tournament(&runs, &pool, &combined, &dir.path().join("replay"), &[]).spawn().unwrap());
    assert_eq!(pb.asked(), before, "the replay over the combined shard caches asked the server");
    assert_eq!(CallCache::open(&combined).unwrap().len().unwrap(), calls, "the shards made the single run's calls");
    assert_eq!(leaderboard(&replay), leaderboard(&single));
    let labels = |d: &str| std::fs::read_to_string(dir.path().join(d).join("labels.jsonl")).unwrap();
    assert_eq!(labels("replay"), labels("single"), "the per-question verdicts differ");
}
