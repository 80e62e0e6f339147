#!/usr/bin/env bash
# Load test of `ragjudge serve` from a second process on loopback (the Rust client
# crates/ragjudge-serve/examples/load.rs, so nothing needs installing).
#
#   bash bench/serve/run.sh                 # lexical,ciu: below and above the queue bound; fused
#   bash bench/serve/run.sh --soak 600      # 10-minute soak: server RSS every 10 s
#   JEMALLOC=1 bash bench/serve/run.sh --soak 600   # the same with jemalloc: RSS and live heap
#
# Environment: N (requests, default 1000), C (concurrency below the bound, default 16),
# C_OVER (above it, default 256), INFLIGHT (default 2), QUEUE (default 32).
set -euo pipefail
cd "$(dirname "$0")/../.."
soak=""
if [ "${1:-}" = "--soak" ]; then soak="${2:-600}"; fi
n="${N:-1000}"; c="${C:-16}"; c_over="${C_OVER:-256}"; inflight="${INFLIGHT:-2}"; queue="${QUEUE:-32}"
out=bench/out/serve
mkdir -p "$out"
target="${CARGO_TARGET_DIR:-target}"
# lexical, CIU and fused scores need no model backend: build without them (faster).
features=()
if [ -n "${JEMALLOC:-}" ]; then features=(--features jemalloc); fi
cargo build --release -q -p ragjudge-cli --no-default-features "${features[@]}"
cargo build --release -q -p ragjudge-serve --example load
bin="$target/release/ragjudge"
load="$target/release/examples/load"
inputs=(examples/runs/oracle.jsonl examples/runs/partial.jsonl examples/runs/abstain.jsonl examples/runs/wrong.jsonl)

pid=""
stop() { if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=""; fi; }
trap stop EXIT

# Starts the server with "$@" and sets $pid and $url from the address it prints.
start() {
    local log="$out/server.log"
    "$bin" serve --addr 127.0.0.1:0 --max-inflight "$inflight" --queue "$queue" "$@" > "$log" 2>&1 &
    pid=$!
    for _ in $(seq 1 600); do
        url=$(sed -n 's/^ragjudge serve listening on \(http:[^ ]*\)$/\1/p' "$log")
        [ -n "$url" ] && return 0
        kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
        sleep 0.1
    done
    echo "server did not start" >&2; exit 1
}

if [ -n "$soak" ]; then
    start --metrics lexical,ciu
    echo "== soak: ${soak} s at concurrency $c, lexical,ciu"
    "$load" --url "$url" --input "${inputs[@]}" --concurrency "$c" --soak "$soak" --pid "$pid" | tee "$out/soak.txt"
    exit 0
fi

start --metrics lexical,ciu
echo "== lexical,ciu: $n requests of 1 record at concurrency $c (bound: $inflight running + $queue waiting)"
"$load" --url "$url" --input "${inputs[@]}" --requests "$n" --concurrency "$c" | tee "$out/below.txt"
echo "== lexical,ciu: $n requests of 10 records at concurrency $c"
"$load" --url "$url" --input "${inputs[@]}" --requests "$n" --concurrency "$c" --records-per-request 10 | tee "$out/below10.txt"
echo "== lexical,ciu: $n requests at concurrency $c_over (above the bound: 429s expected)"
"$load" --url "$url" --input "${inputs[@]}" --requests "$n" --concurrency "$c_over" | tee "$out/above.txt"
curl -s "$url/metrics" > "$out/metrics.txt" 2>/dev/null || true
stop

# A fused score: a least-squares model over lexical and CIU columns, fitted on the bundled
# human usefulness ratings, then served as one more metric.
"$bin" score --input "${inputs[@]}" --metrics lexical,ciu --output "$out/scores.csv" --bootstrap 1 > /dev/null
"$bin" fuse fit --scores "$out/scores.csv" --labels examples/human/ratings.csv --label-col usefulness \
    --inputs bleu,rougeL_f,token_f1,ciu --model linear --save "$out/fused.json" > "$out/fuse_fit.txt"
start --metrics "lexical,ciu,fused:$out/fused.json"
echo "== lexical,ciu,fused: $n requests of 1 record at concurrency $c"
"$load" --url "$url" --input "${inputs[@]}" --requests "$n" --concurrency "$c" | tee "$out/fused.txt"
