#!/usr/bin/env bash
# The quality of generated test questions on two collections (docs/testgen.md, "Measured"):
# examples/corpus (English) and the DICE paper's 50 Chinese financial news sources
# (../shared/data/dice-zh, kept out of the repository), with the default judge and the default
# encoder of each language; three multiple-choice questions in eight, to test the answer letters.
# Prints the quality report's figures, 15 kept questions of each set drawn at random (seed 35),
# 15 more answerable ones (seed 36) and every kept unanswerable one, with their sources, to read.
# Every model call is cached: a second run is quick.
#
#   bash bench/testgen/quality.sh [DICE_ZH_DIR] [SETS]     SETS: any of en zh (default both)
set -euo pipefail
cd "$(dirname "$0")/../.."
data="${1:-../shared/data/dice-zh}"
sets="${2:-en zh}"
out=bench/out/testgen-quality
mkdir -p "$out"
cargo build --release -q -p ragjudge-cli
bin="${CARGO_TARGET_DIR:-target}/release/ragjudge"
types=factual,multiple_choice,multi_hop,multiple_choice,inference,yes_no,multiple_choice,unanswerable
for s in $sets; do
    case "$s" in
        en) corpus=examples/corpus/docs.jsonl; size=(--sample 51 --per-chunk 3) ;;
        zh)
            corpus="$out/zh-sources.jsonl"
            python3 -c '
import json, sys
with open(sys.argv[2], "w", encoding="utf-8") as f:
    for line in open(sys.argv[1], encoding="utf-8"):
        if line.strip():
            d = json.loads(line)
            f.write(json.dumps({"id": str(d["content_id"]), "text": d["content"]}, ensure_ascii=False) + "\n")
' "$data/sources50.jsonl" "$corpus"
            size=(--sample 296) ;;
        *) echo "unknown set $s (en or zh)" >&2; exit 2 ;;
    esac
    /usr/bin/time -f "$s: %e s" "$bin" testgen --corpus "$corpus" --types "$types" --seed 7 --threads 2 "${size[@]}" \
        -o "$out/$s/questions.jsonl" > "$out/$s.log" 2>&1 || { tail -5 "$out/$s.log" >&2; exit 1; }
    tail -1 "$out/$s.log"
done
python3 bench/testgen/quality.py "$out" $sets
