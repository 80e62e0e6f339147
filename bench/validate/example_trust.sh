#!/usr/bin/env bash
# The Trust section for the bundled example, with labels made in the annotation page: a scripted
# annotator (bench/validate/label_in_page.py) labels, with the keyboard, the pairs the example's
# human labels cover, giving each its human label; then export, validate (lexical and CIU columns,
# the baselines, and the tournament judge's verdicts when out/tournament/labels.jsonl exists),
# report, and screenshots of the report.
# Usage: bash bench/validate/example_trust.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-bench/out/trust}
rm -rf "$OUT" && mkdir -p "$OUT"
cargo build --release -q -p ragjudge-cli
BIN=target/release/ragjudge
RUNS=(examples/runs/oracle.jsonl examples/runs/partial.jsonl examples/runs/abstain.jsonl examples/runs/wrong.jsonl)
"$BIN" annotate serve "${RUNS[@]}" --labels "$OUT/labels.json" --export "$OUT/labels" --addr 127.0.0.1:0 > "$OUT/serve.log" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q "open http" "$OUT/serve.log" && break; sleep 0.2; done
URL=$(sed -n 's/.*open \(http[^ ]*\).*/\1/p' "$OUT/serve.log")
python3 bench/validate/label_in_page.py --url "$URL" --annotator alice --reference examples/human/pairwise_labels.jsonl
kill $SERVER; wait $SERVER 2>/dev/null || true
"$BIN" annotate export --labels "$OUT/labels.json" -o "$OUT/labels"
"$BIN" score --input "${RUNS[@]}" --metrics lexical,ciu --output "$OUT/scores.csv" > /dev/null
JUDGE=()
[ -f out/tournament/labels.jsonl ] && JUDGE=(--judge ragchecker=out/tournament/labels.jsonl)
"$BIN" validate --labels "$OUT/labels.json" --runs "${RUNS[@]}" --scores "$OUT/scores.csv" "${JUDGE[@]}" -o "$OUT/validation.json"
"$BIN" report "$OUT/validation.json" "$OUT/labels/agreement.json" --output "$OUT/report.html"
bash scripts/report-screenshots.sh "$OUT/report.html" "$OUT/shots"
