//! Speed of the local llama.cpp judge: prefill and decode tokens/s, and a DICE-shaped
//! workload (8 questions x 6 answer pairs, label probabilities for each) with KV-cache
//! prefix reuse against a cache cleared before every call.
//!
//! Usage: `judge_bench NAME=MODEL.gguf [NAME=MODEL.gguf ...]` (see `bench/judge/run.sh`).
//! `RAGJUDGE_BENCH_THREADS` sets the thread count (default: all cores),
//! `RAGJUDGE_BENCH_QUESTIONS` the number of DICE questions (default 8, at most 8), and
//! `RAGJUDGE_BENCH_MODES` the modes (default `exact,fast`: exact is the judge's default, no
//! flash attention and an f32 KV cache; fast is llama.cpp's defaults).

use ragjudge_llama::{LlamaJudge, LlamaOptions};
use ragjudge_models::{GenParams, Judge, Prompt};
use std::path::{Path, PathBuf};
use std::time::Instant;

const TOPICS: [(&str, &str); 8] = [
    ("photosynthesis", "plants turn light, water and carbon dioxide into sugar and oxygen"),
    ("the water cycle", "water evaporates, condenses into clouds and falls again as rain or snow"),
    ("vaccines", "a weakened or partial pathogen trains the immune system to respond quickly"),
    ("inflation", "the general price level rises and each unit of money buys fewer goods"),
    ("plate tectonics", "the lithosphere is split into plates that drift over the mantle"),
    ("TCP", "a connection-oriented protocol gives reliable, ordered delivery of bytes"),
    ("the French Revolution", "a period from 1789 in which the monarchy fell and a republic rose"),
    ("black holes", "regions where gravity is so strong that not even light can escape"),
];

const SYSTEM: &str = "You are an impartial judge of answers produced by retrieval-augmented \
generation systems. You will see a question, a reference answer written by an expert, and two \
candidate answers, A and B. Judge which candidate answers the question better. Consider \
correctness with respect to the reference first, then completeness, then clarity and \
concision. Ignore the order in which the answers are shown and ignore their length unless \
extra length adds correct information. Do not reward answers that copy the question. Reply \
with a single letter: A if answer A is better, B if answer B is better, C if they are equally \
good or equally bad.";

const STYLES: [&str; 6] = [
    "In short, {fact}. This is the core idea and most textbooks describe it this way.",
    "{fact}; however, the details vary and several exceptions are discussed by experts.",
    "I am not sure, but I believe it has something to do with {fact}, as far as I remember.",
    "The key point is that {fact}. Two examples make this concrete for most readers.",
    "Many people think otherwise, yet {fact}. Measurements over decades support this view.",
    "Answer: {fact}. Put simply, that is all one needs to know for an exam question.",
];

fn reference(topic: &str, fact: &str) -> String {
    format!(
        "{topic} is a central idea in its field. In brief, {fact}. The process has been studied \
         for a long time, and its main steps are well understood. First, the initial conditions \
         set the stage; second, a sequence of intermediate steps follows; third, the outcome can \
         be observed and measured. Experts agree on these basics, although the finer details are \
         still debated. A common misconception is to confuse {topic} with related phenomena that \
         share a few surface features. Good explanations of {topic} mention the mechanism, a \
         concrete example, and why it matters in everyday life. For instance, teachers often \
         start with a simple example before giving the formal definition."
    )
}

fn answer(style: &str, fact: &str, i: usize) -> String {
    let base = style.replace("{fact}", fact);
    format!("{base} Remark {i}: this is kept brief on purpose; a longer answer would add history.")
}

fn dice_prompt(q: usize, pair: usize) -> Prompt {
    let (topic, fact) = TOPICS[q];
    let a = answer(STYLES[pair], fact, pair + 1);
    let b = answer(STYLES[(pair + 1) % STYLES.len()], fact, pair + 2);
    let mut p = Prompt::chat(
        SYSTEM,
        format!(
            "Question: What is {topic} and how does it work?\nReference answer: {}\n\n\
             Answer A: {a}\nAnswer B: {b}",
            reference(topic, fact)
        ),
    );
    p.assistant_prefix = Some("Verdict:".into());
    p
}

fn prefill_prompt() -> Prompt {
    let (topic, fact) = TOPICS[0];
    let mut text = reference(topic, fact);
    text.push(' ');
    text.push_str(&reference(TOPICS[1].0, TOPICS[1].1));
    Prompt::chat(SYSTEM, format!("{text}\nSummarise the text above."))
}

struct Row {
    calls: usize,
    name: String,
    mode: &'static str,
    prefill_tokens: usize,
    prefill_tps: f64,
    decode_tokens: u64,
    decode_tps: f64,
    prefix_tokens: usize,
    cold_s: f64,
    warm_s: f64,
    cold_evaluated: u64,
    warm_evaluated: u64,
    max_diff: f64,
}

fn bench(name: &str, path: &Path, opts: &LlamaOptions) -> Result<Row, Box<dyn std::error::Error>> {
    let t = Instant::now();
    let judge = LlamaJudge::load(path, opts)?;
    let mode = if opts.exact { "exact" } else { "fast" };
    eprintln!(
        "{name} ({mode}): loaded {} in {:.2} s ({:?})",
        judge.identity(),
        t.elapsed().as_secs_f64(),
        judge.chat_format()
    );
    if opts.exact {
        for label in ["A", " A", "B", " B", "C", "Tie", " Tie"] {
            eprintln!("  tokens of {label:?}: {:?}", judge.tokenize(label)?);
        }
    }

    // Prefill: best of 3 cold evaluations of a ~300-token prompt.
    let prompt = prefill_prompt();
    let prefill_tokens = judge.prompt_tokens(&prompt)?.len();
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        judge.clear_cache()?;
        let t = Instant::now();
        judge.next_token_logits(&prompt)?;
        best = best.min(t.elapsed().as_secs_f64());
    }
    let prefill_tps = prefill_tokens as f64 / best;

    // Decode: 64 greedy tokens after a prompt that is already in the cache.
    let story = Prompt::chat("", "Write a long story about a lighthouse keeper and a storm.");
    judge.next_token_logits(&story)?;
    let t = Instant::now();
    let g = judge.generate(&story, &GenParams { max_tokens: 64, ..GenParams::default() })?;
    let decode_s = t.elapsed().as_secs_f64();
    // The last sampled token is never decoded.
    let decode_tps = g.completion_tokens.saturating_sub(1) as f64 / decode_s;

    // DICE-shaped workload.
    let labels: Vec<String> = ["A", "B", "C"].iter().map(|s| s.to_string()).collect();
    let questions = env_usize("RAGJUDGE_BENCH_QUESTIONS").unwrap_or(8).clamp(1, TOPICS.len());
    let prompts: Vec<Prompt> = (0..questions).flat_map(|q| (0..6).map(move |p| dice_prompt(q, p))).collect();
    let prefix_tokens = {
        let a = judge.prompt_tokens(&prompts[0])?;
        let b = judge.prompt_tokens(&prompts[1])?;
        a.iter().zip(&b).take_while(|(x, y)| x == y).count()
    };
    let mut cold = Vec::new();
    let s0 = judge.stats();
    let t = Instant::now();
    for p in &prompts {
        judge.clear_cache()?;
        cold.push(judge.label_probs(p, &labels)?);
    }
    let cold_s = t.elapsed().as_secs_f64();
    let s1 = judge.stats();
    judge.clear_cache()?;
    let mut warm = Vec::new();
    let t = Instant::now();
    for p in &prompts {
        warm.push(judge.label_probs(p, &labels)?);
    }
    let warm_s = t.elapsed().as_secs_f64();
    let s2 = judge.stats();
    let max_diff = cold
        .iter()
        .zip(&warm)
        .flat_map(|(c, w)| c.probs.iter().zip(&w.probs).map(|(x, y)| (x - y).abs()))
        .fold(0.0, f64::max);
    let picked_a = warm.iter().filter(|w| w.probs[0] >= w.probs[1] && w.probs[0] >= w.probs[2]).count();
    let mass: f64 = warm.iter().filter_map(|w| w.label_mass).sum::<f64>() / warm.len() as f64;
    eprintln!(
        "  DICE: {} prompts of {}..{} tokens; verdict A in {picked_a}; mean label mass {mass:.3}",
        prompts.len(),
        judge.prompt_tokens(&prompts[0])?.len(),
        prompts.iter().map(|p| judge.prompt_tokens(p).map(|t| t.len()).unwrap_or(0)).max().unwrap_or(0),
    );
    Ok(Row {
        calls: prompts.len(),
        name: name.to_string(),
        mode,
        prefill_tokens,
        prefill_tps,
        decode_tokens: g.completion_tokens,
        decode_tps,
        prefix_tokens,
        cold_s,
        warm_s,
        cold_evaluated: s1.prefill_evaluated - s0.prefill_evaluated,
        warm_evaluated: s2.prefill_evaluated - s1.prefill_evaluated,
        max_diff,
    })
}

fn env_usize(key: &str) -> Option<usize> {
    std::env::var(key).ok().and_then(|v| v.parse().ok())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let models: Vec<(String, PathBuf)> = std::env::args()
        .skip(1)
        .map(|a| match a.split_once('=') {
            Some((n, p)) => (n.to_string(), PathBuf::from(p)),
            None => (a.clone(), PathBuf::from(&a)),
        })
        .collect();
    if models.is_empty() {
        return Err("usage: judge_bench NAME=MODEL.gguf [NAME=MODEL.gguf ...]".into());
    }
    let threads = env_usize("RAGJUDGE_BENCH_THREADS");
    let modes = std::env::var("RAGJUDGE_BENCH_MODES").unwrap_or_else(|_| "exact,fast".into());
    let opts = LlamaOptions { threads, ..LlamaOptions::default() };
    let mut rows = Vec::new();
    for (name, path) in &models {
        for exact in modes.split(',').filter_map(|m| match m.trim() {
            "exact" => Some(true),
            "fast" => Some(false),
            _ => None,
        }) {
            rows.push(bench(name, path, &LlamaOptions { exact, ..opts.clone() })?);
        }
    }
    let features = ragjudge_llama::cpu_features().unwrap_or_default();
    let on: Vec<&str> = features.iter().filter(|(_, v)| v == "1").map(|(n, _)| n.as_str()).collect();
    println!(
        "CPU backend: {}",
        if on.is_empty() { "plain x86-64 (no SIMD extension beyond SSE2)".to_string() } else { on.join(" ") }
    );
    println!("threads: {}; DICE calls per run: {}", opts.thread_count(), rows.first().map_or(0, |r| r.calls));
    println!(
        "| model | mode | prefill tok/s | decode tok/s | DICE, cache cleared | DICE, prefix reuse | saving | tokens evaluated (cleared / reuse) | shared prefix | max |dp| |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {} | {:.0} ({} tok) | {:.1} ({} tok) | {:.2} s | {:.2} s | {:.0}% | {} / {} | {} tok | {:.1e} |",
            r.name,
            r.mode,
            r.prefill_tps,
            r.prefill_tokens,
            r.decode_tps,
            r.decode_tokens,
            r.cold_s,
            r.warm_s,
            100.0 * (1.0 - r.warm_s / r.cold_s),
            r.cold_evaluated,
            r.warm_evaluated,
            r.prefix_tokens,
            r.max_diff,
        );
    }
    Ok(())
}
