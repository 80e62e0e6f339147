#!/usr/bin/env bash
# Repeats run.sh's comparison REPS times on a busy machine: ragjudge-candle and sentence-transformers
# alternate on the same sentences, and the median ratio is printed with the load average.
#
# Usage: bench/embed/repeat.sh [N] [MIX] [REPS]   (defaults: 500 mixed 3)
# Env: as run.sh (RAGJUDGE_MINILM_DIR, PYTHON, CARGO_TARGET_DIR, PROFILE); EMBED_BENCH: a prebuilt
#      embed_bench binary to time instead of building one (e.g. an older build, for before/after);
#      PRECISION (`f32`, the default, or `bf16`).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
n="${1:-500}"
mix="${2:-mixed}"
reps="${3:-3}"
precision="${PRECISION:-f32}"
echo "precision: $precision"
model="${RAGJUDGE_MINILM_DIR:-${RAGJUDGE_HOME:-$HOME/.cache/ragjudge}/models/minilm}"
python="${PYTHON:-$root/bench/.venv-embed/bin/python}"
target="${CARGO_TARGET_DIR:-$root/target}"
profile="${PROFILE:-release}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

bin="${EMBED_BENCH:-}"
if [ -z "$bin" ]; then
    (cd "$root" && CARGO_TARGET_DIR="$target" cargo build --profile "$profile" -q -p ragjudge-candle --example embed_bench)
    outdir="$profile"; [ "$profile" = dev ] && outdir=debug
    bin="$target/$outdir/examples/embed_bench"
fi
"$python" "$here/bench_st.py" gen "$n" "$work/sentences.txt" "$mix"
ratios=()
for i in $(seq "$reps"); do
    line="$(RAYON_NUM_THREADS=2 "$bin" "$model" "$work/sentences.txt" "$work/ours.f32" 2 32 "$precision")"
    rate="$(echo "$line" | sed -E 's/.* ([0-9.]+) sentences\/s$/\1/')"
    table="$("$python" "$here/bench_st.py" st "$model" "$work/sentences.txt" "$work/ours.f32" "$rate" 2>/dev/null)"
    st_rate="$(echo "$table" | sed -nE 's/^\| sentence-transformers \| ([0-9.]+) \|$/\1/p')"
    ratio="$(echo "$table" | sed -nE 's/^ratio .*: ([0-9.]+)$/\1/p')"
    cosine="$(echo "$table" | sed -nE 's/^min cosine between outputs: ([0-9.]+);.*/\1/p')"
    echo "run $i: ragjudge-candle $rate/s, sentence-transformers $st_rate/s, ratio $ratio, min cosine $cosine, load $(cut -d' ' -f1-3 /proc/loadavg)"
    ratios+=("$ratio")
done
median="$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}')"
echo "$n $mix sentences, precision $precision, $reps runs: median ratio ragjudge / sentence-transformers $median"
