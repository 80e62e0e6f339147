#!/usr/bin/env bash
# Benchmark ragjudge's lexical metrics against the Python references on the same pairs.
# Run from the repository root: bash bench/lexical/run.sh [N_PAIRS]
set -euo pipefail

N="${1:-10000}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
VENV=bench/.venv
OUT=bench/out
PY_SCRIPT=bench/lexical/bench_lexical.py
mkdir -p "$OUT"

# Reference versions (same as the parity fixture in crates/ragjudge-lexical/tests/fixtures).
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import rouge_score, sacrebleu" 2>/dev/null; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet rouge-score==0.1.2 sacrebleu==2.6.0 nltk==3.10.4
fi

"$VENV/bin/python" "$PY_SCRIPT" generate "$OUT/pairs.jsonl" "$N"

cargo build --release --quiet -p ragjudge-lexical --example lexical_bench
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
"$TARGET_DIR/release/examples/lexical_bench" "$OUT/pairs.jsonl" "$OUT/ragjudge_scores.jsonl" \
    > "$OUT/ragjudge_time.json"
"$VENV/bin/python" "$PY_SCRIPT" score "$OUT/pairs.jsonl" "$OUT/python_scores.jsonl" \
    > "$OUT/python_time.json"

"$VENV/bin/python" "$PY_SCRIPT" compare "$OUT/pairs.jsonl" \
    "$OUT/python_scores.jsonl" "$OUT/python_time.json" \
    "$OUT/ragjudge_scores.jsonl" "$OUT/ragjudge_time.json" | tee "$OUT/lexical_report.txt"
