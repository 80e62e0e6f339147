#!/usr/bin/env bash
# Speed of the local llama.cpp judge (crates/ragjudge-llama/examples/judge_bench.rs): prefill and
# decode tokens/s, and a DICE-shaped workload with and without KV-cache prefix reuse, for each
# build of llama.cpp side by side:
#   default   the default build: llama.cpp linked in and compiled for this machine's CPU
#             (GGML_NATIVE, from the workspace's `-C target-cpu=native` in .cargo/config.toml);
#   portable  the build for any x86-64 CPU (`RUSTFLAGS=`, feature cpu-variants, in its own target
#             folder): the CPU backend built once per feature level, the best one loaded at start
#             (the default before native builds);
#   x64-only  the portable binary offered only the plain x86-64 backend library
#             (RAGJUDGE_GGML_BACKENDS), what a CPU without AVX gets: it still runs;
#   generic   llama.cpp linked in with ggml's defaults for a non-native build (`RUSTFLAGS=`, no
#             feature; AVX2, FMA, F16C), in its own target folder.
# Then the prefill and decode ratios of each build to the portable one.
#
# Models: SmolLM2-135M ($RAGJUDGE_SMOLLM2, else $RAGJUDGE_HOME/models/smollm2-135m/model.gguf)
# and Qwen2.5-0.5B ($RAGJUDGE_HOME/models/qwen2.5-0.5b/model.gguf), skipped when not pulled.
# RAGJUDGE_BENCH_THREADS sets the thread count (default: all cores), RAGJUDGE_BENCH_MODES the
# judge modes (default here: exact, the judge's default; `exact,fast` for both),
# RAGJUDGE_BENCH_QUESTIONS the DICE questions per run (default here 2 of 8: the plain x86-64
# builds are slow, and tokens/s do not depend on it). RAGJUDGE_BENCH_BUILDS picks the builds
# (default: default,portable,x64-only,generic).
set -euo pipefail
cd "$(dirname "$0")/../.."

home="${RAGJUDGE_HOME:-$HOME/.cache/ragjudge}"
smol="${RAGJUDGE_SMOLLM2:-$home/models/smollm2-135m/model.gguf}"
qwen="$home/models/qwen2.5-0.5b/model.gguf"
export RAGJUDGE_BENCH_MODES="${RAGJUDGE_BENCH_MODES:-exact}"
export RAGJUDGE_BENCH_QUESTIONS="${RAGJUDGE_BENCH_QUESTIONS:-2}"

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
out=bench/out/judge
mkdir -p "$out"
IFS=, read -r -a builds <<< "${RAGJUDGE_BENCH_BUILDS:-default,portable,x64-only,generic}"

for build in "${builds[@]}"; do
    echo "== $build" >&2
    case "$build" in
        default)
            CARGO_TARGET_DIR="$target" cargo run --release -q -p ragjudge-llama --example judge_bench -- "${models[@]}" ;;
        portable)
            RUSTFLAGS= CARGO_TARGET_DIR="$target/portable" cargo run --release -q -p ragjudge-llama \
                --features cpu-variants --example judge_bench -- "${models[@]}" ;;
        x64-only)
            only="$out/x64-only"
            rm -rf "$only" && mkdir -p "$only"
            RUSTFLAGS= CARGO_TARGET_DIR="$target/portable" cargo build --release -q -p ragjudge-llama \
                --features cpu-variants --example judge_bench
            cp "$target/portable/release/libggml-cpu-x64.so" "$only/"
            RAGJUDGE_GGML_BACKENDS="$only" RUSTFLAGS= CARGO_TARGET_DIR="$target/portable" \
                cargo run --release -q -p ragjudge-llama --features cpu-variants --example judge_bench -- "${models[@]}" ;;
        generic)
            RUSTFLAGS= CARGO_TARGET_DIR="$target/generic" cargo run --release -q -p ragjudge-llama \
                --example judge_bench -- "${models[@]}" ;;
    esac > "$out/$build.md"
    cat "$out/$build.md"
done

echo
echo "| build | model | mode | prefill tok/s | x portable | decode tok/s | x portable |"
echo "|---|---|---|---|---|---|---|"
for build in "${builds[@]}"; do
    awk -v build="$build" -F'|' 'FNR == NR && /^\| [a-z]/ && $2 !~ /model/ { split($4, p, " "); split($5, d, " ");
            key = $2 "|" $3; pp[key] = p[1]; pd[key] = d[1]; next }
        /^\| [a-z]/ && $2 !~ /model/ { split($4, p, " "); split($5, d, " "); key = $2 "|" $3;
            printf "| %s |%s|%s| %s | %.2f | %s | %.2f |\n", build, $2, $3, p[1], p[1] / pp[key], d[1], d[1] / pd[key] }' \
        "$out/portable.md" "$out/$build.md"
done
