#!/usr/bin/env bash
# CIU fidelity: ablation of CIU (discounts, RAKE selection, C_char, tokenisation) against the
# content-word overlap count, BLEU and ROUGE-L, correlated with the USR Topical-Chat ratings.
# Run from anywhere: bash bench/ciu-fidelity/run.sh [DATA_DIR]
# DATA_DIR holds records.jsonl and ratings.csv (default: $USR_TOPICAL_CHAT, else
# /work/shared/data/usr-topical-chat). Writes bench/out/ciu_ablation.csv and
# bench/out/ciu_fidelity.md (the tables of docs/ciu-fidelity.md).
# Python: scipy 1.17.1, numpy 2.4.6 (pinned; installed into bench/.venv when python3 lacks them).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
DATA="${1:-${USR_TOPICAL_CHAT:-/work/shared/data/usr-topical-chat}}"
OUT=bench/out
mkdir -p "$OUT"
for f in records.jsonl ratings.csv; do
    [ -f "$DATA/$f" ] || { echo "run.sh: $DATA/$f not found (pass the data folder as the first argument)" >&2; exit 1; }
done

PY=python3
if ! "$PY" -c 'import scipy, numpy, sys; sys.exit(not (scipy.__version__ == "1.17.1" and numpy.__version__ == "2.4.6"))' 2>/dev/null; then
    VENV=bench/.venv
    [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet scipy==1.17.1 numpy==2.4.6
    PY="$VENV/bin/python"
fi

cargo build --release --quiet -p ragjudge-lexical --example ciu_ablation
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
"$TARGET_DIR/release/examples/ciu_ablation" "$DATA/records.jsonl" "$OUT/ciu_ablation.csv"
"$PY" bench/ciu-fidelity/spearman.py "$OUT/ciu_ablation.csv" "$DATA/ratings.csv" | tee "$OUT/ciu_fidelity.md"
