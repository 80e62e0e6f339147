//! Local GGUF judge of ragjudge, on llama.cpp (through the `llama-cpp-2` bindings).
//!
//! [`LlamaJudge`] implements [`ragjudge_models::Judge`]: it renders prompts with the model's
//! own chat template (ChatML when the file has none), generates greedily or with seeded
//! sampling, and scores single-token verdict labels from the full next-token logits. The KV
//! cache is reused across calls that share a prompt prefix, which makes judging many answers
//! to one question cheap (DICE pairwise judging, docs/architecture.md).
//!
//! # Exact mode
//! By default ([`LlamaOptions::exact`]) flash attention is off and the KV cache is f32. With
//! llama.cpp's defaults (flash attention, f16 cache) the logits of a prompt depended on how it
//! was split between cached and new tokens: on SmolLM2-135M Q4_1 they moved by up to 0.5
//! (label probabilities by ~0.01) between a cold prompt and the same prompt decoded on top
//! of a cached prefix. In exact mode they were bitwise equal in every split we tried, so
//! prefix reuse never changes a verdict. Tokens decoded one at a time during generation are
//! dropped from the cache afterwards (their KV entries are not bitwise those of a batched
//! prefill); a follow-up prompt that contains the generated text prefills it in one batch.
//!
//! # Labels
//! A label is scored in both the forms a BPE tokenizer writes it: bare and after one space. In
//! SmolLM2 `"A"` is token 49 and `" A"` token 330, and the label's probability is the mass of
//! both. End assistant prefixes without a trailing space (`"Verdict:"`): BPE tokenizers fold the
//! space into the next word, so a prompt ending in a bare space is an unusual split; after
//! `"Verdict (A, B or C for a tie): "` Qwen2.5-1.5B put a median 0.2% of its mass on the labels.
//! Forms that are not one token are skipped (`"Tie"` is two tokens, `" Tie"` one); a label with
//! no single-token form is refused.
//!
//! # Build
//! llama.cpp is compiled from the sources bundled with `llama-cpp-sys-2` (needs `cmake`, a C++
//! compiler and `libclang`), always as a CMake `Release` build, also under `cargo test`.
//! By default llama.cpp is linked in and compiled for the build machine's CPU (`GGML_NATIVE`,
//! which the workspace's `-C target-cpu=native` in `.cargo/config.toml` turns on): one CPU
//! backend with every instruction set the CPU has, in one short build. With the feature
//! `cpu-variants` (the CLI's `portable`) its CPU backend is built once per CPU feature level and
//! the best one this CPU runs is loaded at start (see [`cpu_features`] and [`BACKENDS_ENV`]):
//! portable binaries, a longer build. The binary then links `libllama.so` and `libggml*.so`,
//! which the build puts beside it. Without either, llama.cpp is compiled with ggml's default
//! instruction set for a non-native build (AVX2, FMA, F16C).

#![deny(missing_docs)]
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

mod cpu;
mod engine;
mod exit;
mod hash;
mod judge;
mod options;
mod template;

pub use cpu::{cpu_features, BACKENDS_ENV};
pub use engine::ModelInfo;
pub use exit::exit_now;
pub use hash::{sha256_file, sidecar_path, weights_sha256};
pub use judge::{LlamaJudge, LOG_ENV};
pub use options::{LlamaOptions, LlamaStats};
pub use template::{chatml, ChatFormat};
