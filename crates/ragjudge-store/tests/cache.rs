//! The SQLite call cache and the cached / dry-run judges.

use ragjudge_models::{GenParams, Generation, Judge, LabelProbs, ModelError, ProbSource, Prompt, Usage};
use ragjudge_store::{cache_key, CachedJudge, CallCache, DryRunJudge};
use serde_json::json;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// A judge that counts its calls and fails on prompts containing "fail".
#[derive(Default)]
struct Counting {
    calls: AtomicU64,
    many_batches: Mutex<Vec<usize>>,
}

impl Judge for Counting {
    fn identity(&self) -> String {
        "counting:v1".into()
    }
    fn generate(&self, prompt: &Prompt, _params: &GenParams) -> Result<Generation, ModelError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let text = &prompt.messages.last().unwrap().content;
        if text.contains("fail") {
            return Err(ModelError::Http { status: 503, message: "down".into() });
        }
        Ok(Generation {
            text: format!("echo {text}"),
            prompt_tokens: 3,
            completion_tokens: 2,
            finish_reason: "stop".into(),
        })
    }
    fn label_probs(&self, prompt: &Prompt, labels: &[String]) -> Result<LabelProbs, ModelError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if prompt.messages.last().unwrap().content.contains("fail") {
            return Err(ModelError::Timeout(1));
        }
        let mut logits = vec![f64::NEG_INFINITY; labels.len()];
        logits[0] = -0.25;
        let mut probs = vec![0.0; labels.len()];
        probs[0] = 1.0;
        Ok(LabelProbs {
            labels: labels.to_vec(),
            probs,
            logits,
            label_mass: Some(0.78),
            source: ProbSource::TopLogprobs,
        })
    }
    fn label_probs_many(&self, requests: &[(Prompt, Vec<String>)]) -> Vec<Result<LabelProbs, ModelError>> {
        self.many_batches.lock().unwrap().push(requests.len());
        requests.iter().map(|(p, l)| self.label_probs(p, l)).collect()
    }
    fn usage(&self) -> Usage {
        Usage { calls: self.calls.load(Ordering::SeqCst), prompt_tokens: 0, completion_tokens: 0 }
    }
}

fn labels() -> Vec<String> {
    vec!["A".into(), "B".into()]
}

#[test]
fn put_get_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/cache.sqlite");
    {
        let c = CallCache::open(&path).unwrap();
        assert!(c.get("k").is_none());
        c.put("k", &json!({"a": [1, 2.5, "x"]})).unwrap();
        c.put("k", &json!({"a": "replaced"})).unwrap();
        assert_eq!(c.get("k"), Some(json!({"a": "replaced"})));
        assert_eq!(c.len().unwrap(), 1);
        let s = c.stats();
        assert_eq!((s.hits, s.misses, s.writes), (1, 1, 2));
    }
    let c = CallCache::open(&path).unwrap();
    assert_eq!(c.get("k"), Some(json!({"a": "replaced"})));
    assert!(c.contains("k") && !c.contains("other"));
}

#[test]
fn newer_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.sqlite");
    drop(CallCache::open(&path).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", 99).unwrap();
    drop(conn);
    let err = CallCache::open(&path).unwrap_err();
    assert!(matches!(err, ModelError::Cache(ref m) if m.contains("newer")), "{err}");
}

#[test]
fn disabled_cache_stores_nothing() {
    let c = CallCache::disabled();
    c.put("k", &json!(1)).unwrap();
    assert!(c.get("k").is_none());
    assert!(!c.is_enabled());
    let j = CachedJudge::new(Counting::default(), CallCache::disabled());
    let p = Prompt::chat("", "q");
    j.generate(&p, &GenParams::default()).unwrap();
    j.generate(&p, &GenParams::default()).unwrap();
    assert_eq!(j.inner().calls.load(Ordering::SeqCst), 2);
}

#[test]
fn second_identical_call_is_a_hit_and_failures_are_not_cached() {
    let dir = tempfile::tempdir().unwrap();
    let j = CachedJudge::new(Counting::default(), CallCache::open(dir.path().join("c.sqlite")).unwrap());
    let p = Prompt::chat("sys", "question");
    let g1 = j.generate(&p, &GenParams::default()).unwrap();
    let g2 = j.generate(&p, &GenParams::default()).unwrap();
    assert_eq!(g1, g2);
    assert_eq!(j.usage().calls, 1);
    // Other parameters are another call.
    j.generate(&p, &GenParams { seed: 7, ..GenParams::default() }).unwrap();
    assert_eq!(j.usage().calls, 2);
    // Label probabilities with -inf logits round-trip through the cache.
    let l1 = j.label_probs(&p, &labels()).unwrap();
    let l2 = j.label_probs(&p, &labels()).unwrap();
    assert_eq!(l1, l2);
    assert_eq!(l2.logits[1], f64::NEG_INFINITY);
    assert_eq!(j.usage().calls, 3);
    assert_eq!(j.cache_hits(), 2);
    // Failures reach the inner judge every time.
    let bad = Prompt::chat("sys", "please fail");
    assert!(j.generate(&bad, &GenParams::default()).is_err());
    assert!(j.generate(&bad, &GenParams::default()).is_err());
    assert!(j.label_probs(&bad, &labels()).is_err());
    assert!(j.label_probs(&bad, &labels()).is_err());
    assert_eq!(j.usage().calls, 7);
    assert_eq!(j.cache().len().unwrap(), 3);
}

#[test]
fn many_calls_only_misses_in_chunks_and_keeps_order() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Arc::new(CallCache::open(dir.path().join("c.sqlite")).unwrap());
    let reqs: Vec<(Prompt, Vec<String>)> = (0..10).map(|i| (Prompt::chat("", format!("q{i}")), labels())).collect();
    let first = CachedJudge::new(Counting::default(), Arc::clone(&cache)).with_chunk_size(3);
    let r: Vec<_> = first.label_probs_many(&reqs[..5]);
    assert!(r.iter().all(|x| x.is_ok()));
    assert_eq!(*first.inner().many_batches.lock().unwrap(), vec![3, 2]);

    let second = CachedJudge::new(Counting::default(), cache).with_chunk_size(4);
    let mut mixed = reqs.clone();
    mixed.push((Prompt::chat("", "fail me"), labels()));
    let r = second.label_probs_many(&mixed);
    assert_eq!(r.len(), 11);
    assert!(r[..10].iter().all(|x| x.as_ref().unwrap().labels == labels()));
    assert!(matches!(r[10], Err(ModelError::Timeout(1))));
    assert_eq!(second.cache_hits(), 5);
    assert_eq!(second.inner().calls.load(Ordering::SeqCst), 6);
    assert_eq!(*second.inner().many_batches.lock().unwrap(), vec![4, 2]);
}

#[test]
fn many_threads_share_one_cache() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.sqlite");
    let cache = Arc::new(CallCache::open(&path).unwrap());
    std::thread::scope(|s| {
        for t in 0..4 {
            let cache = Arc::clone(&cache);
            s.spawn(move || {
                for i in 0..50 {
                    cache.put(&format!("t{t}-{i}"), &json!({"t": t, "i": i})).unwrap();
                    cache.put("shared", &json!(t)).unwrap();
                    assert!(cache.get(&format!("t{t}-{i}")).is_some());
                }
            });
        }
    });
    assert_eq!(cache.len().unwrap(), 201);
}

#[test]
fn two_connections_write_one_file_concurrently() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.sqlite");
    std::thread::scope(|s| {
        for t in 0..3 {
            let path = path.clone();
            s.spawn(move || {
                // Each thread opens its own connection, as separate processes do.
                let cache = CallCache::open(&path).unwrap();
                for i in 0..100 {
                    cache.put(&format!("{t}:{i}"), &json!(i)).unwrap();
                    cache.put("same", &json!(t)).unwrap();
                }
            });
        }
    });
    assert_eq!(CallCache::open(&path).unwrap().len().unwrap(), 301);
}

const CHILD_ENV: &str = "RAGJUDGE_CACHE_TEST_CHILD";

/// Writer run in a child process by `two_processes_write_one_file`; does nothing otherwise.
#[test]
fn child_process_writer() {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return;
    };
    let (path, tag) = spec.split_once('|').unwrap();
    let cache = CallCache::open(path).unwrap();
    for i in 0..150 {
        cache.put(&format!("{tag}:{i}"), &json!({"i": i})).unwrap();
        cache.put("same", &json!(tag)).unwrap();
    }
}

#[test]
fn two_processes_write_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.sqlite");
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = ["p1", "p2"]
        .iter()
        .map(|tag| {
            std::process::Command::new(&exe)
                .args(["--exact", "child_process_writer", "--test-threads", "1"])
                .env(CHILD_ENV, format!("{}|{tag}", path.display()))
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let cache = CallCache::open(&path).unwrap();
    assert_eq!(cache.len().unwrap(), 301);
    assert_eq!(cache.get("p2:149"), Some(json!({"i": 149})));
}

#[test]
fn key_depends_on_identity_kind_and_payload() {
    let p = Prompt::chat("s", "u");
    let a = cache_key("id", "generate", &(&p, &GenParams::default()));
    assert_eq!(a, cache_key("id", "generate", &(&p.clone(), &GenParams::default())));
    assert_ne!(a, cache_key("id2", "generate", &(&p, &GenParams::default())));
    assert_ne!(a, cache_key("id", "generate", &(&Prompt::chat("s", "u2"), &GenParams::default())));
}

#[test]
fn dry_run_through_read_only_cache_counts_only_misses() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Arc::new(CallCache::open(dir.path().join("c.sqlite")).unwrap());
    let real = CachedJudge::new(Counting::default(), Arc::clone(&cache));
    let p1 = Prompt::chat("", "one");
    real.label_probs(&p1, &labels()).unwrap();

    let dry = CachedJudge::new(DryRunJudge::new(real.identity()), Arc::clone(&cache)).read_only();
    dry.label_probs(&p1, &labels()).unwrap();
    let placeholder = dry.label_probs(&Prompt::chat("", "twelve chars"), &labels()).unwrap();
    assert_eq!(placeholder.probs, vec![0.5, 0.5]);
    // "twelve chars" = 12 characters -> 3 tokens.
    assert_eq!(dry.usage(), Usage { calls: 1, prompt_tokens: 3, completion_tokens: 0 });
    assert_eq!(cache.len().unwrap(), 1);
}
