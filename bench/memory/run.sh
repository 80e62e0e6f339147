#!/usr/bin/env bash
# Peak resident memory of `ragjudge score` over N records (default 1,000,000), streamed from disk.
# Usage: bash bench/memory/run.sh [N]
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-1000000}"
out=bench/out
mkdir -p "$out"
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (apt-get install time)" >&2; exit 1; }
cargo build --release -q -p ragjudge-cli
input="$out/records_$n.jsonl"
if [ ! -s "$input" ]; then
    python3 bench/example_records.py "$n" "$input"
fi
size=$(du -h "$input" | cut -f1)
/usr/bin/time -v target/release/ragjudge score --input "$input" --output "$out/scores_$n.csv" \
    --metrics lexical,ciu,retrieval --json > "$out/summary_$n.json" 2> "$out/time_$n.txt"
rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$out/time_$n.txt")
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$out/time_$n.txt")
records=$(python3 -c "import json;print(json.load(open('$out/summary_$n.json'))['records'])")
echo "records scored: $records (input $size)"
echo "peak RSS: $((rss_kb / 1024)) MiB"
echo "wall time: $wall"
