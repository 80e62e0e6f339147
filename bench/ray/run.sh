#!/usr/bin/env bash
# ragjudge.ray at scale: N synthetic records (default 1,000,000: the example records cycled with
# fresh question ids) scored with lexical + CIU by one `ragjudge score` process and by Ray Data on
# a local 2-CPU cluster (two ScoreBatches workers); compares rows and summaries, reports the
# throughput ratio, the peak memory of each worker, and the Python heap a block costs.
# Usage: bash bench/ray/run.sh [N]   (RAGJUDGE_BIN=path uses a prebuilt binary; RAGJUDGE_VENV
# names a Python environment with ragjudge, pyarrow and ray installed, as python/test.sh makes)
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-1000000}"
out=bench/out/ray
mkdir -p "$out"
bin="${RAGJUDGE_BIN:-target/release/ragjudge}"
[ -n "${RAGJUDGE_BIN:-}" ] || cargo build --release -q -p ragjudge-cli
py="${RAGJUDGE_VENV:-target/python-venv}/bin/python"
input="$out/records_$n.parquet"
[ -s "$input" ] || "$py" bench/ray/make_records.py "$n" "$input"
metrics=lexical,ciu
/usr/bin/time -v -o "$out/cli.time" "$bin" score --input "$input" --metrics "$metrics" \
    --output "$out/cli.parquet" --json > "$out/cli.json"
cli_wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$out/cli.time")
cli_rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$out/cli.time")
echo "one score process: wall $cli_wall, peak RSS $((cli_rss / 1024)) MB"
"$py" bench/ray/bench.py "$input" "$out" "$metrics" "$cli_wall"
