#!/usr/bin/env bash
# Speed of the local llama.cpp judge (crates/ragjudge-llama/examples/judge_bench.rs): prefill and
# decode tokens/s, and a DICE-shaped workload with and without KV-cache prefix reuse, for each
# build of llama.cpp side by side:
#   default   the default build (feature cpu-variants): the CPU backend is built once per feature
#             level and the best one this CPU runs is loaded at start;
#   x64-only  the same binary offered only the plain x86-64 backend library (RAGJUDGE_GGML_BACKENDS),
#             what a CPU without AVX gets: it still runs;
#   previous  the previous default (--no-default-features), in its own target folder: llama.cpp
#             linked in, with ggml's defaults for a non-native build (AVX2, FMA, F16C; so not
#             portable to older CPUs, and no AVX-512);
#   native    with RAGJUDGE_NATIVE=1 also GGML_NATIVE (-C target-cpu=native, linked in), in its own
#             target folder: the ceiling, for binaries that run where they are built.
# Then the prefill and decode ratios of each build to the previous one.
#
# Models: SmolLM2-135M ($RAGJUDGE_SMOLLM2, else $RAGJUDGE_HOME/models/smollm2-135m/model.gguf)
# and Qwen2.5-0.5B ($RAGJUDGE_HOME/models/qwen2.5-0.5b/model.gguf), skipped when not pulled.
# RAGJUDGE_BENCH_THREADS sets the thread count (default: all cores), RAGJUDGE_BENCH_MODES the
# judge modes (default here: exact, the judge's default; `exact,fast` for both),
# RAGJUDGE_BENCH_QUESTIONS the DICE questions per run (default here 2 of 8: the plain x86-64
# builds are slow, and tokens/s do not depend on it).
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
builds=(default x64-only previous)
[[ "${RAGJUDGE_NATIVE:-0}" == "1" ]] && builds+=(native)

for build in "${builds[@]}"; do
    echo "== $build" >&2
    case "$build" in
        default)
            CARGO_TARGET_DIR="$target" cargo build --release -q -p ragjudge-llama --example judge_bench
            CARGO_TARGET_DIR="$target" cargo run --release -q -p ragjudge-llama --example judge_bench -- "${models[@]}" ;;
        x64-only)
            only="$out/x64-only"
            rm -rf "$only" && mkdir -p "$only"
            cp "$target/release/libggml-cpu-x64.so" "$only/"
            RAGJUDGE_GGML_BACKENDS="$only" CARGO_TARGET_DIR="$target" \
                cargo run --release -q -p ragjudge-llama --example judge_bench -- "${models[@]}" ;;
        previous)
            CARGO_TARGET_DIR="$target/linked-llama" cargo run --release -q -p ragjudge-llama \
                --no-default-features --example judge_bench -- "${models[@]}" ;;
        native)
            RUSTFLAGS="${RUSTFLAGS:-} -C target-cpu=native" CARGO_TARGET_DIR="$target/native-cpu" cargo run \
                --release -q -p ragjudge-llama --no-default-features --example judge_bench -- "${models[@]}" ;;
    esac > "$out/$build.md"
    cat "$out/$build.md"
done

echo
echo "| build | model | mode | prefill tok/s | x previous | decode tok/s | x previous |"
echo "|---|---|---|---|---|---|---|"
for build in "${builds[@]}"; do
    awk -v build="$build" -F'|' 'FNR == NR && /^\| [a-z]/ && $2 !~ /model/ { split($4, p, " "); split($5, d, " ");
            key = $2 "|" $3; pp[key] = p[1]; pd[key] = d[1]; next }
        /^\| [a-z]/ && $2 !~ /model/ { split($4, p, " "); split($5, d, " "); key = $2 "|" $3;
            printf "| %s |%s|%s| %s | %.2f | %s | %.2f |\n", build, $2, $3, p[1], p[1] / pp[key], d[1], d[1] / pd[key] }' \
        "$out/previous.md" "$out/$build.md"
done
