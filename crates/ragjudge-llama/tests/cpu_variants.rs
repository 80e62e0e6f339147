//! The CPU backend picked at run time (feature `cpu-variants`). With only the plain x86-64
//! library on offer, as on a CPU without AVX, the judge still loads and answers; the features it
//! reports are then the baseline's. A test file of its own: the backend loads once per process.
#![cfg(all(feature = "cpu-variants", target_arch = "x86_64", target_os = "linux"))]

use ragjudge_llama::{cpu_features, LlamaJudge, LlamaOptions, BACKENDS_ENV};
use ragjudge_models::{Judge, Prompt};

#[test]
fn the_plain_x86_64_backend_alone_still_runs() {
    let exe = std::env::current_exe().unwrap();
    let plain = exe.parent().unwrap().join("libggml-cpu-x64.so");
    assert!(
        plain.is_file(),
        "the build places the CPU backends beside the test binary: {} is missing",
        plain.display()
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(&plain, dir.path().join("libggml-cpu-x64.so")).unwrap();
    std::env::set_var(BACKENDS_ENV, dir.path());

    let model = match std::env::var_os("RAGJUDGE_SMOLLM2") {
        Some(p) => std::path::PathBuf::from(p),
        None => ragjudge_store::ensure("smollm2-135m").unwrap().main_file().to_path_buf(),
    };
    let judge = LlamaJudge::load(&model, &LlamaOptions { n_ctx: 512, ..LlamaOptions::default() }).unwrap();
    let features = cpu_features().expect("a CPU backend is registered");
    let on = |name: &str| features.iter().any(|(n, v)| n == name && v == "1");
    assert!(!on("AVX") && !on("AVX2") && !on("AVX512"), "the x64 library has no AVX: {features:?}");
    let mut prompt = Prompt::chat("Answer with A or B.", "Is water wet? A: yes, B: no");
    prompt.assistant_prefix = Some("Answer:".into());
    let probs = judge.label_probs(&prompt, &["A".to_string(), "B".to_string()]).unwrap();
    let total: f64 = probs.probs.iter().sum();
    assert!((total - 1.0).abs() < 1e-6 && probs.probs.iter().all(|p| p.is_finite()), "{probs:?}");
}

#[test]
fn an_empty_backend_folder_is_a_clear_error() {
    // Runs in the same process as the test above only if that one has not loaded yet; the
    // error text is what matters, so check it through a child process.
    let exe = std::env::current_exe().unwrap();
    if std::env::var_os("RAGJUDGE_CPU_VARIANTS_CHILD").is_some() {
        let model = std::env::var_os("RAGJUDGE_CPU_VARIANTS_MODEL").unwrap();
        let err = LlamaJudge::load(std::path::Path::new(&model), &LlamaOptions::default()).err().unwrap();
        println!("ERROR: {err}");
        return;
    }
    let model = match std::env::var_os("RAGJUDGE_SMOLLM2") {
        Some(p) => std::path::PathBuf::from(p),
        None => ragjudge_store::ensure("smollm2-135m").unwrap().main_file().to_path_buf(),
    };
    let empty = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(exe)
        .args(["an_empty_backend_folder_is_a_clear_error", "--exact", "--nocapture", "--test-threads=1"])
        .env("RAGJUDGE_CPU_VARIANTS_CHILD", "1")
        .env("RAGJUDGE_CPU_VARIANTS_MODEL", &model)
        .env(BACKENDS_ENV, empty.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let want = format!(
        "no llama.cpp CPU backend (libggml-cpu-*.so) could be loaded from {} (from {BACKENDS_ENV})",
        empty.path().display()
    );
    assert!(text.contains(&want), "child said: {text}");
}
