#!/usr/bin/env bash
# Fusion across data sets: `fuse study --transfer` on two human-rated sets, lexical inputs only.
#  - rag-pairs-dev: per question the score difference model2 - model1 of each input against the
#    mean human `overall` preference, each of the 10 domains (`meta.dataset`) held out once;
#  - usr-topical-chat: the responses whose knowledge fact is `_nofact` against the others, fitted on
#    one and tested on the other, both directions; label `overall`.
# Inputs: bleu, meteor, rougeL_f, ciu, token_f1, chrf (as bench/fusion). Each study runs with seeds
# 0..4 (MoE initialisation, inner folds of the shrinkage); tables go to
# bench/out/fusion-transfer/{rag-pairs,topical-chat}/seed-N/transfer.{md,csv,json}, and
# summary.py prints each method's mean difference to the best single input per seed and overall.
# Usage: bash bench/fusion-transfer/run.sh [SHARED_DATA_DIR] [SEEDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
data="${1:-../shared/data}"
seeds="${2:-0 1 2 3 4}"
out=bench/out/fusion-transfer
inputs=bleu,meteor,rougeL_f,ciu,token_f1,chrf
mkdir -p "$out/rag-pairs" "$out/topical-chat"
cargo build --release -q -p ragjudge-cli
bin="${CARGO_TARGET_DIR:-target}/release/ragjudge"

rp="$data/rag-pairs-dev"
for m in model1 model2; do
    "$bin" score -i "$rp/$m.jsonl" --metrics lexical,ciu -o "$out/rag-pairs/$m.csv" > /dev/null
done
python3 bench/fusion-transfer/prepare.py rag-pairs "$rp" "$out/rag-pairs/model1.csv" "$out/rag-pairs/model2.csv" \
    "$inputs" "$out/rag-pairs/diff.csv"
for seed in $seeds; do
    "$bin" fuse study --transfer --scores "$out/rag-pairs/diff.csv" --labels "$rp/human.csv" --label-col overall \
        --inputs "$inputs" --group-by dataset --seed "$seed" -o "$out/rag-pairs/seed-$seed" > /dev/null
done

tc="$data/usr-topical-chat"
"$bin" score -i "$tc/records.jsonl" --metrics lexical,ciu -o "$out/topical-chat/scores.csv" > /dev/null
python3 bench/fusion-transfer/prepare.py topical-chat "$tc" "$out/topical-chat/scores.csv" \
    "$out/topical-chat/fact.csv" "$out/topical-chat/nofact.csv"
for seed in $seeds; do
    "$bin" fuse study --transfer --scores "$out/topical-chat/fact.csv" --transfer-test "$out/topical-chat/nofact.csv" \
        --labels "$tc/ratings.csv" --label-col overall --inputs "$inputs" --seed "$seed" \
        -o "$out/topical-chat/seed-$seed" > /dev/null
done
python3 bench/fusion-transfer/summary.py "$out/rag-pairs" "$out/topical-chat"
