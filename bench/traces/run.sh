#!/usr/bin/env bash
# Trace ingestion of `ragjudge serve --traces` (docs/traces.md): spans/s, export latency, the
# instrumented application's latency with export on vs off, spans dropped below the queue bound,
# the delay of a drift alert after a planted fall, and a soak with the server's memory sampled.
#
#   bash bench/traces/run.sh              # throughput, latency, alert delay (~3 min)
#   bash bench/traces/run.sh --soak 600   # ... then 600 s of continuous traffic, RSS every 10 s
#   bash bench/traces/run.sh --soak-only 600
#
# Needs the Python OpenTelemetry SDK (scripts/setup.sh installs it). Results in bench/out/traces.
set -euo pipefail
cd "$(dirname "$0")/../.."
soak=""
only_soak=false
if [ "${1:-}" = "--soak" ]; then soak="${2:-600}"; fi
if [ "${1:-}" = "--soak-only" ]; then soak="${2:-600}"; only_soak=true; fi
out=bench/out/traces
mkdir -p "$out"
target="${CARGO_TARGET_DIR:-target}"
cargo build --release -q -p ragjudge-cli
bin="$target/release/ragjudge"
toy=crates/ragjudge-cli/tests/otel/toy_rag.py

pid=""
stop() { if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=""; fi; }
trap stop EXIT
start() { # start LOG ARGS...: sets $pid and $url
    local log="$1"; shift
    "$bin" serve --addr 127.0.0.1:0 --metrics ciu --traces "$@" > "$log" 2>&1 &
    pid=$!
    for _ in $(seq 1 600); do
        url=$(sed -n 's/^ragjudge serve listening on \(http:[^ ]*\)$/\1/p' "$log")
        [ -n "$url" ] && return 0
        kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
        sleep 0.1
    done
    echo "server did not start" >&2; exit 1
}
metric() { curl -s "$url/metrics" | awk -v m="$1" '$1 == m {print $2}'; }
wait_scored() { # wait_scored N: until N records are scored; prints the seconds waited
    local t0; t0=$(date +%s.%N)
    for _ in $(seq 1 3000); do
        local n; n=$(metric ragjudge_trace_records_scored_total)
        [ "${n:-0}" -ge "$1" ] && break
        sleep 0.1
    done
    python3 -c "import time; print(round(time.time() - $t0, 2))"
}

if ! $only_soak; then
echo "== ingestion: 400 exports of 50 traces (60,000 spans) from 2 threads, lexical-free CIU scoring"
start "$out/server-blast.log" --trace-settle 0.5 --trace-output "$out/blast"
python3 bench/traces/blast.py --endpoint "$url/v1/traces" --exports 400 --traces 50 --threads 2 | tee "$out/blast.json"
echo "scoring drained $(wait_scored 20000) s after the last export"
for m in ragjudge_trace_spans_received_total ragjudge_trace_spans_dropped_total ragjudge_trace_spans_invalid_total \
    ragjudge_traces_total ragjudge_trace_records_scored_total; do echo "$m $(metric $m)"; done | tee "$out/blast-metrics.txt"
stop

echo "== application latency, 2000 questions with 5 ms of simulated work: export off, then on"
start "$out/server-latency.log" --trace-settle 0.5
python3 "$toy" --questions 2000 --work-ms 5 --export none --latencies "$out/lat-off.json"
python3 "$toy" --endpoint "$url/v1/traces" --questions 2000 --work-ms 5 --export otlp --latencies "$out/lat-on.json"
python3 bench/traces/latency.py "5 ms work, ragjudge" "$out/lat-off.json" "$out/lat-on.json" | tee "$out/latency.txt"
echo "== the same exporting to a receiver that discards everything (the SDK's own cost)"
python3 bench/traces/null_receiver.py 4319 & null=$!
sleep 1
python3 "$toy" --endpoint "http://127.0.0.1:4319/v1/traces" --questions 2000 --work-ms 5 --export otlp --latencies "$out/lat-null.json"
kill "$null"
python3 bench/traces/latency.py "5 ms work, null receiver" "$out/lat-off.json" "$out/lat-null.json" | tee -a "$out/latency.txt"
echo "== the same with 100 ms of simulated work (a fast RAG call), 400 questions"
python3 "$toy" --questions 400 --work-ms 100 --export none --latencies "$out/lat-off-100.json"
python3 "$toy" --endpoint "$url/v1/traces" --questions 400 --work-ms 100 --export otlp --latencies "$out/lat-on-100.json"
python3 bench/traces/latency.py "100 ms work, ragjudge" "$out/lat-off-100.json" "$out/lat-on-100.json" | tee -a "$out/latency.txt"
echo "dropped: $(metric ragjudge_trace_spans_dropped_total)"
stop

echo "== alert delay: 300 answers, grounded until the 200th (baseline 100, window 50, k 0.5, h 10)"
rm -rf "$out/drift"
start "$out/server-drift.log" --trace-settle 0.2 --drift-columns ciu --trace-output "$out/drift"
python3 "$toy" --endpoint "$url/v1/traces" --questions 300 --drop-after 200
wait_scored 300 > /dev/null
stop
python3 - "$out" <<'PY' | tee "$out/drift.txt"
import json, sys
alerts = [json.loads(l) for l in open(f"{sys.argv[1]}/drift/alerts.jsonl")]
first = alerts[0]
print(f"alerts: {len(alerts)}; first at answer {first['scores']} ({first['kind']}): delay {first['scores'] - 200} answers after the fall; "
      f"baseline mean {first['baseline_mean']:.3f}, window mean {first['window_mean']:.3f}")
PY
fi

if [ -n "$soak" ]; then
    echo "== soak: $soak s of continuous exports, server RSS every 10 s"
    start "$out/server-soak.log" --trace-settle 0.5 --trace-output "$out/soak"
    end=$(( $(date +%s) + soak ))
    ( while [ "$(date +%s)" -lt "$end" ]; do
        python3 bench/traces/blast.py --endpoint "$url/v1/traces" --exports 20 --traces 50 --threads 1 > /dev/null
      done ) &
    client=$!
    : > "$out/soak-rss.txt"
    while kill -0 "$client" 2>/dev/null; do
        echo "$(date +%s) $(awk '/VmRSS/ {print $2}' /proc/$pid/status) $(metric ragjudge_trace_records_scored_total) $(metric ragjudge_trace_spans_dropped_total)" >> "$out/soak-rss.txt"
        sleep 10
    done
    rm -rf "$out/soak"
    python3 - "$out" <<'PY' | tee "$out/soak.txt"
import sys
rows = [l.split() for l in open(f"{sys.argv[1]}/soak-rss.txt") if len(l.split()) == 4]
rss = [int(r[1]) / 1024 for r in rows]
n = len(rss); first = rss[: max(1, n // 5)]; last = rss[-max(1, n // 5):]
print(f"samples {n}; RSS MiB: min {min(rss):.1f}, max {max(rss):.1f}; mean of first fifth {sum(first)/len(first):.1f}, "
      f"of last fifth {sum(last)/len(last):.1f}; records scored {rows[-1][2]}, spans dropped {rows[-1][3]}")
PY
fi
