#!/usr/bin/env bash
# Chinese end to end on the DICE paper's financial QA set (../shared/data/dice-zh, kept out of the
# repository): corpus and questions (prepare.py), retrieval alone by BM25 and by BM25 re-ranked with
# the multilingual encoder, the three baseline tiers (reference; BM25 + Qwen2.5-Coder-1.5B with the
# Chinese RAG prompt; the model alone), Chinese lexical metrics of the RAG answers against the
# references, retrieval metrics against `relevant_passage`, a tournament of the tiers with the
# default protocol (DICE, Chinese prompts), and the report.
# Usage: bash bench/zh/run.sh [DICE_ZH_DIR] [STEPS]   STEPS: any of retrieval tiers score tournament report
# (default all). Every model call is cached: an interrupted run resumes.
set -euo pipefail
cd "$(dirname "$0")/../.."
data="${1:-../shared/data/dice-zh}"
steps="${2:-retrieval tiers score tournament report}"
out=bench/out/zh
mkdir -p "$out/runs"
cargo build --release -q -p ragjudge-cli
bin="${CARGO_TARGET_DIR:-target}/release/ragjudge"
python3 bench/zh/prepare.py "$data" "$out"
q=(--questions "$out/questions.jsonl" --corpus "$out/corpus.jsonl")
has() { [[ " $steps " == *" $1 "* ]]; }

if has retrieval; then
    "$bin" collect "${q[@]}" --target retrieve --system bm25 --output "$out/runs/retrieve-bm25.jsonl"
    "$bin" collect "${q[@]}" --target retrieve --rerank multilingual-e5-small --system bm25-e5 \
        --output "$out/runs/retrieve-bm25-e5.jsonl"
    "$bin" score -i "$out/runs/retrieve-bm25.jsonl" "$out/runs/retrieve-bm25-e5.jsonl" --metrics retrieval \
        -o "$out/retrieval.csv"
fi
if has tiers; then
    for tier in high medium low; do
        "$bin" collect "${q[@]}" --tier "$tier" --output "$out/runs/$tier.jsonl"
    done
fi
if has score; then
    "$bin" score -i "$out/runs/high.jsonl" "$out/runs/medium.jsonl" "$out/runs/low.jsonl" \
        --metrics lexical,retrieval --lang zh -o "$out/scores.csv"
fi
if has tournament; then
    "$bin" tournament "$out/runs/high.jsonl" "$out/runs/medium.jsonl" "$out/runs/low.jsonl" \
        --format round-robin --output "$out/tournament"
fi
if has report; then
    "$bin" report "$out/scores.csv" "$out/tournament" --title "DICE 中文金融问答：三个基线层级" -o "$out/report.html"
fi
