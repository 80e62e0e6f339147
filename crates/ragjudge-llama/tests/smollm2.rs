//! End-to-end tests of `LlamaJudge` on SmolLM2-135M-Instruct (Q4_1 GGUF).
//!
//! The model is `$RAGJUDGE_SMOLLM2` (a .gguf file), else the installed `smollm2-135m` model,
//! pulled into `$RAGJUDGE_HOME/models` on first use (as `ragjudge models pull smollm2-135m` does).

use ragjudge_llama::{ChatFormat, LlamaJudge, LlamaOptions};
use ragjudge_models::{GenParams, Judge, ModelError, ProbSource, Prompt};
use std::path::PathBuf;

fn model_path() -> PathBuf {
    if let Some(p) = std::env::var_os("RAGJUDGE_SMOLLM2") {
        return PathBuf::from(p);
    }
    match ragjudge_store::ensure("smollm2-135m") {
        Ok(m) => m.main_file().to_path_buf(),
        Err(e) => panic!("cannot install the SmolLM2 model: {e}"),
    }
}

fn load() -> LlamaJudge {
    let path = model_path();
    assert!(path.is_file(), "SmolLM2 model not found at {} (RAGJUDGE_SMOLLM2 names a .gguf file)", path.display());
    let opts = LlamaOptions { n_ctx: 2048, ..LlamaOptions::default() };
    LlamaJudge::load(&path, &opts).unwrap()
}

fn labels() -> Vec<String> {
    ["A", "B", "C"].iter().map(|s| s.to_string()).collect()
}

const SYSTEM: &str = "You are a strict judge. Compare two answers to a question using the reference \
answer. Reply with A if answer A is better, B if answer B is better, C if they are equally good.";

fn verdict_prompt(question: &str, reference: &str, a: &str, b: &str) -> Prompt {
    let mut p =
        Prompt::chat(SYSTEM, format!("Question: {question}\nReference: {reference}\n\nAnswer A: {a}\nAnswer B: {b}"));
    p.assistant_prefix = Some("Verdict: ".into());
    p
}

fn paris() -> Prompt {
    verdict_prompt(
        "What is the capital of France?",
        "Paris is the capital of France.",
        "The capital of France is Paris.",
        "It is Lyon.",
    )
}

#[test]
fn identity_names_file_and_hash() {
    let judge = load();
    let id = judge.identity();
    let name = model_path().file_name().unwrap().to_string_lossy().into_owned();
    let hash = id.strip_prefix(&format!("llama:{name}:")).expect(&id);
    assert_eq!(hash.len(), 16);
    assert!(hash.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
    assert_eq!(&ragjudge_llama::sha256_file(judge.path()).unwrap()[..16], hash);
}

#[test]
fn prompt_uses_model_template_and_prefix() {
    let judge = load();
    assert_eq!(judge.chat_format(), ChatFormat::Model);
    let text = judge.render(&paris()).unwrap();
    // SmolLM2's template is ChatML-shaped.
    assert!(text.contains("<|im_start|>system\nYou are a strict judge."), "{text}");
    assert!(text.ends_with("<|im_end|>\n<|im_start|>assistant\nVerdict: "), "{text}");
    // Template markers become single special tokens, not text.
    let tokens = judge.prompt_tokens(&paris()).unwrap();
    let im_start = judge.tokenize("<|im_start|>").unwrap();
    assert!(im_start.len() > 1, "plain tokenization must not parse special tokens");
    assert!(tokens.len() < text.len() / 2);
}

#[test]
fn label_probs_are_softmax_of_label_logits() {
    let judge = load();
    let lp = judge.label_probs(&paris(), &labels()).unwrap();
    assert_eq!(lp.labels, labels());
    assert_eq!(lp.source, ProbSource::Logits);
    assert!((lp.probs.iter().sum::<f64>() - 1.0).abs() < 1e-9);

    // Recompute from the full logits, independently of the crate's softmax.
    let logits = judge.next_token_logits(&paris()).unwrap();
    assert_eq!(logits.len(), judge.n_vocab());
    // Each label counts in its bare and space-led forms: in SmolLM2 "A" is 49, " A" 330.
    assert_eq!(judge.label_tokens("A").unwrap(), vec![49, 330]);
    let own: Vec<f64> = labels()
        .iter()
        .map(|l| {
            let ids = judge.label_tokens(l).unwrap();
            assert_eq!(ids.len(), 2, "{l}: {ids:?}");
            ids.iter().map(|&i| f64::from(logits[i as usize]).exp()).sum::<f64>().ln()
        })
        .collect();
    let z: f64 = own.iter().map(|l| l.exp()).sum();
    for (k, l) in own.iter().enumerate() {
        assert!((lp.logits[k] - l).abs() < 1e-9);
        assert!((lp.probs[k] - l.exp() / z).abs() < 1e-9, "{:?} vs {}", lp.probs, l.exp() / z);
    }
    let full: f64 = logits.iter().map(|&l| f64::from(l).exp()).sum();
    let mass = own.iter().map(|l| l.exp()).sum::<f64>() / full;
    assert!((lp.label_mass.unwrap() - mass).abs() < 1e-9);
    assert!(mass > 0.0 && mass <= 1.0);
}

#[test]
fn label_probs_are_repeatable_across_calls_and_loads() {
    let first = load();
    let a = first.label_probs(&paris(), &labels()).unwrap();
    let b = first.label_probs(&paris(), &labels()).unwrap();
    assert_eq!(a, b);
    let second = load();
    let c = second.label_probs(&paris(), &labels()).unwrap();
    assert_eq!(a, c);
    assert_eq!(first.identity(), second.identity());
}

#[test]
fn multi_token_label_is_refused() {
    let judge = load();
    let long = "Supercalifragilistic".to_string();
    let err = judge.label_probs(&paris(), &["A".to_string(), long.clone()]).unwrap_err();
    match &err {
        ModelError::MultiTokenLabel { label, tokens } => {
            assert_eq!(label, &long);
            assert!(*tokens > 1);
        }
        other => panic!("expected MultiTokenLabel, got {other:?}"),
    }
    assert!(err.to_string().contains("single tokens"), "{err}");
    // Nothing was evaluated for the refused call.
    assert_eq!(judge.stats().calls, 0);
}

#[test]
fn greedy_generation_is_deterministic_and_bounded() {
    let judge = load();
    let prompt = Prompt::chat("", "List the days of the week, separated by commas.");
    let params = GenParams { max_tokens: 24, ..GenParams::default() };
    let g1 = judge.generate(&prompt, &params).unwrap();
    let g2 = judge.generate(&prompt, &params).unwrap();
    assert_eq!(g1, g2);
    let fresh = load().generate(&prompt, &params).unwrap();
    assert_eq!(g1, fresh);
    assert!(g1.completion_tokens <= 24);
    assert!(g1.prompt_tokens > 5);
    if g1.finish_reason == "length" {
        assert_eq!(g1.completion_tokens, 24);
    }

    let short = judge.generate(&prompt, &GenParams { max_tokens: 3, ..params.clone() }).unwrap();
    assert_eq!(short.completion_tokens, 3);
    assert_eq!(short.finish_reason, "length");
    assert!(g1.text.starts_with(&short.text));

    // Stop before a string taken from the middle of the free-running output.
    let chars: Vec<char> = g1.text.chars().collect();
    assert!(chars.len() >= 8, "{:?}", g1.text);
    let stop: String = chars[chars.len() / 2..chars.len() / 2 + 3].iter().collect();
    let at = g1.text.find(&stop).unwrap();
    let stopped = judge.generate(&prompt, &GenParams { stop: vec![stop.clone()], ..params }).unwrap();
    assert_eq!(stopped.finish_reason, "stop");
    assert_eq!(stopped.text, g1.text[..at], "stop {stop:?}");
    assert!(stopped.completion_tokens < g1.completion_tokens);
}

#[test]
fn seeded_sampling_is_repeatable() {
    let judge = load();
    let prompt = Prompt::chat("", "Write one sentence about the sea.");
    let params = GenParams { max_tokens: 16, temperature: 0.9, top_p: 0.95, seed: 7, ..GenParams::default() };
    let a = judge.generate(&prompt, &params).unwrap();
    let b = judge.generate(&prompt, &params).unwrap();
    assert_eq!(a, b);
    assert!(a.completion_tokens > 0);
}

#[test]
fn prefix_reuse_matches_cold_context_and_saves_work() {
    let judge = load();
    let question = "Which gas do plants take up for photosynthesis, and what do they release?";
    let reference = "Plants take up carbon dioxide and release oxygen during photosynthesis, \
                     using light energy captured by chlorophyll in their leaves.";
    let p1 = verdict_prompt(question, reference, "Carbon dioxide in, oxygen out.", "Nitrogen.");
    let p2 = verdict_prompt(question, reference, "Oxygen in, carbon dioxide out.", "CO2; they give off O2.");
    let n2 = judge.prompt_tokens(&p2).unwrap().len() as u64;

    judge.label_probs(&p1, &labels()).unwrap();
    let before = judge.stats();
    let warm = judge.label_probs(&p2, &labels()).unwrap();
    let after = judge.stats();
    let evaluated = after.prefill_evaluated - before.prefill_evaluated;
    let reused = after.prefill_reused - before.prefill_reused;
    assert_eq!(evaluated + reused, n2);
    assert!(reused > n2 / 2, "reused {reused} of {n2}");
    assert!(evaluated < n2 / 2, "evaluated {evaluated} of {n2}");

    judge.clear_cache().unwrap();
    let before = judge.stats();
    let cold = judge.label_probs(&p2, &labels()).unwrap();
    let after = judge.stats();
    assert_eq!(after.prefill_evaluated - before.prefill_evaluated, n2);
    assert_eq!(after.prefill_reused, before.prefill_reused);
    let fresh = load().label_probs(&p2, &labels()).unwrap();
    assert_eq!(cold, fresh);
    for k in 0..3 {
        assert!((warm.probs[k] - cold.probs[k]).abs() < 1e-4, "{:?} vs {:?}", warm.probs, cold.probs);
    }
    // Exact mode (the default) makes them bitwise equal.
    assert_eq!(warm, cold);

    // Counters feed the Judge usage.
    let usage = judge.usage();
    assert_eq!(usage.calls, 3);
    assert_eq!(usage.completion_tokens, 0);
}

#[test]
fn oversized_prompt_is_an_error_not_a_panic() {
    let path = model_path();
    assert!(path.is_file(), "run `ragjudge models pull smollm2-135m`");
    let judge = LlamaJudge::load(&path, &LlamaOptions { n_ctx: 64, n_batch: 16, ..LlamaOptions::default() }).unwrap();
    let long = Prompt::chat("", "word ".repeat(600));
    assert!(matches!(judge.label_probs(&long, &labels()), Err(ModelError::Inference(_))));
    // The judge still works afterwards, with prompts decoded in several batches.
    let ok = judge.label_probs(&Prompt::chat("", "Say A."), &labels()).unwrap();
    assert!((ok.probs.iter().sum::<f64>() - 1.0).abs() < 1e-9);
}

#[test]
fn missing_file_is_a_clear_error() {
    let err = LlamaJudge::load(std::path::Path::new("no/such/model.gguf"), &LlamaOptions::default()).unwrap_err();
    assert!(err.to_string().contains("no such model file"), "{err}");
}

#[test]
fn verdict_after_generated_reasoning_reuses_the_generation() {
    let judge = load();
    let mut prompt = paris();
    prompt.assistant_prefix = None;
    let reasoning = judge.generate(&prompt, &GenParams { max_tokens: 12, ..GenParams::default() }).unwrap();
    let mut verdict = prompt.clone();
    verdict.assistant_prefix = Some(format!("{}\nVerdict:", reasoning.text));
    let n = judge.prompt_tokens(&verdict).unwrap().len() as u64;
    let before = judge.stats();
    let warm = judge.label_probs(&verdict, &labels()).unwrap();
    let after = judge.stats();
    let reused = after.prefill_reused - before.prefill_reused;
    assert!(reused >= reasoning.prompt_tokens, "reused {reused} of {n}");
    judge.clear_cache().unwrap();
    let cold = judge.label_probs(&verdict, &labels()).unwrap();
    assert_eq!(warm, cold);
}

#[test]
fn fast_mode_loads_and_scores() {
    let path = model_path();
    assert!(path.is_file(), "run `ragjudge models pull smollm2-135m`");
    let judge = LlamaJudge::load(&path, &LlamaOptions { exact: false, ..LlamaOptions::default() }).unwrap();
    let lp = judge.label_probs(&paris(), &labels()).unwrap();
    assert!((lp.probs.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    // Same model, other kernels: close to exact mode, not necessarily equal.
    let exact = load().label_probs(&paris(), &labels()).unwrap();
    for k in 0..3 {
        assert!((lp.probs[k] - exact.probs[k]).abs() < 0.1, "{:?} vs {:?}", lp.probs, exact.probs);
    }
}

#[test]
fn a_grammar_constrains_every_token() {
    let judge = load();
    // A question the free-running model answers in prose; the grammar allows only a JSON object
    // with one "answer" field of "yes" or "no".
    let prompt = Prompt::chat("", "Is the sea salty? Explain in detail.");
    let grammar = r#"root ::= "{\"answer\": \"" ("yes" | "no") "\"}""#;
    let free = judge.generate(&prompt, &GenParams { max_tokens: 24, ..GenParams::default() }).unwrap();
    assert!(!free.text.starts_with("{\"answer\""), "{:?}", free.text);
    for (temperature, seed) in [(0.0, 1), (0.9, 2), (0.9, 3)] {
        let params =
            GenParams { max_tokens: 32, temperature, seed, grammar: Some(grammar.into()), ..GenParams::default() };
        let g = judge.generate(&prompt, &params).unwrap();
        assert!(g.text == r#"{"answer": "yes"}"# || g.text == r#"{"answer": "no"}"#, "{:?}", g.text);
        assert_eq!(g.finish_reason, "stop");
    }
    let bad = GenParams { grammar: Some("root ::= (".into()), ..GenParams::default() };
    assert!(judge.generate(&prompt, &bad).unwrap_err().to_string().contains("grammar"));
}

/// With `cpu-variants` the loader picks the best CPU backend this machine runs: one with AVX2
/// exactly when the CPU has it (and the same for AVX-512).
#[cfg(all(feature = "cpu-variants", target_arch = "x86_64"))]
#[test]
fn the_cpu_backend_matches_this_cpu() {
    let _judge = load();
    let features = ragjudge_llama::cpu_features().expect("a CPU backend is registered");
    let on = |name: &str| features.iter().any(|(n, v)| n == name && v == "1");
    assert_eq!(on("AVX2"), std::arch::is_x86_feature_detected!("avx2"), "{features:?}");
    assert_eq!(on("AVX512"), std::arch::is_x86_feature_detected!("avx512f"), "{features:?}");
}

#[test]
fn a_batch_keeps_its_shared_prefix_while_another_thread_calls() {
    // Two callers, each with a batch of checks sharing a long prefix. Each batch runs as one job,
    // so each prefix is run through the model at most once per batch, whatever the interleaving
    // of the two threads; one request at a time could re-run a prefix for every check.
    let judge = std::sync::Arc::new(load());
    let batch = |topic: &str| -> Vec<(Prompt, Vec<String>)> {
        let reference = format!("{topic} ").repeat(40);
        (0..4).map(|i| (verdict_prompt(topic, &reference, &format!("claim {i}"), "none"), labels())).collect()
    };
    let (a, b) = (batch("photosynthesis"), batch("volcanoes"));
    let prompt_tokens: u64 = a.iter().chain(&b).map(|(p, _)| judge.prompt_tokens(p).unwrap().len() as u64).sum();
    let first_of_each =
        (judge.prompt_tokens(&a[0].0).unwrap().len() + judge.prompt_tokens(&b[0].0).unwrap().len()) as u64;
    let before = judge.stats();
    let (ja, jb) = (judge.clone(), judge.clone());
    let ta = std::thread::spawn(move || ja.label_probs_many(&a));
    let tb = std::thread::spawn(move || jb.label_probs_many(&b));
    let (ra, rb) = (ta.join().unwrap(), tb.join().unwrap());
    assert!(ra.iter().chain(&rb).all(Result::is_ok));
    let after = judge.stats();
    let evaluated = after.prefill_evaluated - before.prefill_evaluated;
    assert_eq!(evaluated + after.prefill_reused - before.prefill_reused, prompt_tokens);
    // At most both batches' first prompts in full, then about the differing tail of each other
    // check (a few tokens each): far below all eight prompts in full.
    assert!(
        evaluated < first_of_each + 6 * 20,
        "evaluated {evaluated} of {prompt_tokens} (first prompts {first_of_each})"
    );
    // The same results as one request at a time.
    let single =
        judge.label_probs(&verdict_prompt("volcanoes", &"volcanoes ".repeat(40), "claim 2", "none"), &labels());
    assert_eq!(single.unwrap(), rb[2].clone().unwrap());
}
