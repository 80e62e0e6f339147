#!/usr/bin/env bash
# Speed of the local llama.cpp judge (crates/ragjudge-llama/examples/judge_bench.rs):
# prefill and decode tokens/s, and a DICE-shaped workload with and without KV-cache prefix reuse.
#
# Models: SmolLM2-135M ($RAGJUDGE_SMOLLM2, else $RAGJUDGE_HOME/models/smollm2-135m/model.gguf)
# and Qwen2.5-0.5B ($RAGJUDGE_HOME/models/qwen2.5-0.5b/model.gguf), skipped when not pulled.
#
# llama.cpp is built for this CPU (RUSTFLAGS=-C target-cpu=native, which turns on GGML_NATIVE)
# into its own target folder, so the portable build is not thrown away. RAGJUDGE_NATIVE=0 uses
# the portable build instead. RAGJUDGE_BENCH_THREADS sets the thread count (default: all cores).
set -euo pipefail
cd "$(dirname "$0")/../.."

home="${RAGJUDGE_HOME:-$HOME/.cache/ragjudge}"
smol="${RAGJUDGE_SMOLLM2:-$home/models/smollm2-135m/model.gguf}"
qwen="$home/models/qwen2.5-0.5b/model.gguf"

models=()
if [[ -f "$smol" ]]; then
    models+=("smollm2-135m=$smol")
else
    echo "SmolLM2 not found at $smol: run \`ragjudge models pull smollm2-135m\`" >&2
    exit 1
fi
if [[ -f "$qwen" ]]; then
    models+=("qwen2.5-0.5b=$qwen")
else
    echo "qwen2.5-0.5b not found at $qwen: skipped" >&2
fi

target="${CARGO_TARGET_DIR:-target}"
if [[ "${RAGJUDGE_NATIVE:-1}" != "0" ]]; then
    export RUSTFLAGS="${RUSTFLAGS:-} -C target-cpu=native"
    target="$target/native-cpu"
    echo "build: llama.cpp with GGML_NATIVE (target-cpu=native) in $target" >&2
else
    echo "build: portable llama.cpp in $target" >&2
fi
CARGO_TARGET_DIR="$target" cargo run --release -q -p ragjudge-llama --example judge_bench -- "${models[@]}"
