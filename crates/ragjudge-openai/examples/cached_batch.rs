//! Runs label-probability calls one after another through `CachedJudge<OpenAiJudge>`, for the
//! crash-resume test (and as a small example of the cached HTTP judge).
//!
//! Usage: `cached_batch BASE_URL CACHE_FILE [N]` (N defaults to 40). Prompt `i` asks
//! `prompt i`; each finished call is printed as `done i A=<p>`. Exits non-zero on the first error.

use ragjudge_models::{Judge, Prompt};
use ragjudge_openai::{OpenAiConfig, OpenAiJudge};
use ragjudge_store::{CachedJudge, CallCache};
use std::time::Duration;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: cached_batch BASE_URL CACHE_FILE [N]");
        std::process::exit(2);
    }
    let n: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(40);
    let cache = match CallCache::open(&args[2]) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let cfg = OpenAiConfig {
        base_url: args[1].clone(),
        timeout: Duration::from_secs(5),
        max_retries: 2,
        backoff_base: Duration::from_millis(20),
        backoff_max: Duration::from_millis(200),
        ..OpenAiConfig::new("test-model")
    };
    let judge = CachedJudge::new(OpenAiJudge::new(cfg), cache);
    let labels = vec!["A".to_string(), "B".to_string()];
    for i in 0..n {
        let prompt = Prompt::chat("You are a judge. Answer A or B.", format!("prompt {i}"));
        match judge.label_probs(&prompt, &labels) {
            Ok(p) => println!("done {i} A={:.4}", p.probs[0]),
            Err(e) => {
                eprintln!("error on prompt {i}: {e}");
                std::process::exit(1);
            }
        }
    }
    println!("finished: {} calls, {} cache hits", judge.usage().calls, judge.cache_hits());
}
