#!/usr/bin/env bash
# A simulated user on rag-pairs-dev (RAGChecker's human-labelled long-form answer pairs, the
# development half): label 40 random pairs, let `ragjudge validate` pick a scorer, and measure
# every candidate on the 100 pairs held out; and the coverage of the PPI win-rate interval.
# Usage: bash bench/validate/run.sh [DATA_DIR] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
DATA=${1:-../shared/data/rag-pairs-dev}
OUT=${2:-bench/out/validate}
mkdir -p "$OUT"
cargo build --release -q -p ragjudge-cli
BIN=target/release/ragjudge
"$BIN" score --input "$DATA/model1.jsonl" "$DATA/model2.jsonl" --metrics lexical,ciu --output "$OUT/scores.csv" >/dev/null
# scipy (pinned) computes the held-out Spearman correlations.
if [ ! -x "$OUT/venv/bin/python" ]; then
    python3 -m venv "$OUT/venv"
    "$OUT/venv/bin/pip" install -q scipy==1.16.3
fi
"$OUT/venv/bin/python" bench/validate/simulate.py --bin "$BIN" --data "$DATA" --scores "$OUT/scores.csv" --out "$OUT"
