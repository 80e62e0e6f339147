#!/usr/bin/env bash
# Fills fuzz/corpus/TARGET/ with seed inputs: the small seeds committed in fuzz/seeds/TARGET/ and
# slices of the examples (a few records of each run, the Open RAG Eval CSV's first rows, the human
# ratings and labels). Inputs already in a corpus are kept, so that a corpus grows across runs.
#
#   bash bench/fuzz/seeds.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
corpus=fuzz/corpus

seed() { # seed TARGET NAME < content
    mkdir -p "$corpus/$1"
    cat > "$corpus/$1/$2"
}

for dir in fuzz/seeds/*/; do
    t="$(basename "$dir")"
    mkdir -p "$corpus/$t"
    cp -n "$dir"* "$corpus/$t/" 2>/dev/null || true
done

for run in examples/runs/*.jsonl examples/zh/runs.jsonl; do
    name="$(basename "$(dirname "$run")")-$(basename "$run")"
    for t in records_jsonl records_auto run_file; do
        head -n 3 "$run" | seed "$t" "$name"
    done
done
head -n 5 examples/questions.jsonl | seed qrels questions.jsonl
head -n 5 examples/questions.jsonl | seed records_jsonl questions.jsonl
head -n 7 examples/openrag/results_input.csv | seed records_openrag results_input.csv
head -n 7 examples/openrag/results_input.csv | seed records_auto results_input.csv
head -n 8 examples/human/ratings.csv | seed ratings ratings.csv
head -n 8 examples/human/pairwise_labels.jsonl | seed labels pairwise_labels.jsonl
mkdir -p "$corpus/traces"
cp -n crates/ragjudge-traces/tests/fixtures/*.pb crates/ragjudge-traces/tests/fixtures/*.json "$corpus/traces/"
cp -n fuzz/seeds/records_csv/* fuzz/seeds/records_ragas/* "$corpus/records_auto/"
for t in $(ls fuzz/fuzz_targets | sed 's/\.rs$//'); do
    mkdir -p "$corpus/$t"
done
