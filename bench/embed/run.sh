#!/usr/bin/env bash
# Embedding throughput: ragjudge-candle (release example, 2 threads) against sentence-transformers
# (torch, 2 threads, batch 32) on the same N sentences; prints sentences/s, their ratio and the
# minimum cosine between the two outputs.
#
# Usage: bench/embed/run.sh [N] [MIX]   (default 2000 mixed; MIX `short` = 6 to 20 words each)
# Env: RAGJUDGE_MINILM_DIR (model dir; default $RAGJUDGE_HOME/models/minilm), PYTHON (a Python with
#      sentence-transformers; default: a venv bench/.venv-embed made here), CARGO_TARGET_DIR, RUSTFLAGS (e.g. "-C target-cpu=native"),
#      PROFILE (cargo profile of the example; default release; `dev` reuses the test build, whose
#      dependencies are optimised too), PRECISION (`f32`, the default, or `bf16`: the precision of
#      ragjudge-candle's matrix products).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
n="${1:-2000}"
mix="${2:-mixed}"
precision="${PRECISION:-f32}"
echo "precision: $precision"
model="${RAGJUDGE_MINILM_DIR:-${RAGJUDGE_HOME:-$HOME/.cache/ragjudge}/models/minilm}"
python="${PYTHON:-}"
if [ -z "$python" ]; then
    # The reference, installed once into a venv beside the benchmarks (torch comes with it).
    venv="$root/bench/.venv-embed"
    if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import sentence_transformers" 2>/dev/null; then
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet sentence-transformers==6.2.0
    fi
    python="$venv/bin/python"
fi
target="${CARGO_TARGET_DIR:-$root/target}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ ! -f "$model/model.safetensors" ]; then
    echo "no MiniLM model at $model: run \`ragjudge models pull minilm\` or set RAGJUDGE_MINILM_DIR" >&2
    exit 1
fi

"$python" "$here/bench_st.py" gen "$n" "$work/sentences.txt" "$mix"
profile="${PROFILE:-release}"
(cd "$root" && CARGO_TARGET_DIR="$target" cargo build --profile "$profile" -q -p ragjudge-candle --example embed_bench)
outdir="$profile"; [ "$profile" = dev ] && outdir=debug
line="$(RAYON_NUM_THREADS=2 "$target/$outdir/examples/embed_bench" "$model" "$work/sentences.txt" "$work/ours.f32" 2 32 "$precision")"
echo "$line"
rate="$(echo "$line" | sed -E 's/.* ([0-9.]+) sentences\/s$/\1/')"
"$python" "$here/bench_st.py" st "$model" "$work/sentences.txt" "$work/ours.f32" "$rate"
