#!/usr/bin/env bash
# Kill anywhere, lose nothing: kills `score` and `collect` (a command target) with SIGKILL at a
# random moment N times each (default 50), runs the command again after every kill, and checks:
#   - the output path never holds a half-written file: after a kill it holds the previous
#     complete output, byte for byte;
#   - the run after the kill gives exactly the output of an uninterrupted run, and leaves no
#     partial file behind;
#   - collect asks its target again only what was in flight: over all runs the target answers at
#     most the questions plus, per kill, the questions in flight (--concurrency).
# Usage: bash bench/reliability/kill-loop.sh [N]   (RAGJUDGE_BIN: the binary, default
# target/release/ragjudge). Prints one line per kind and exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="$(realpath "${RAGJUDGE_BIN:-target/release/ragjudge}")"
n="${1:-50}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

# score: 20,000 records, a few seconds of lexical and CIU scoring.
python3 - <<'PY'
import json
with open("runs.jsonl", "w") as f:
    for i in range(20000):
        f.write(json.dumps({"id": f"q{i}", "system": "s", "query": f"What releases water vapour {i}?",
            "answer": f"Plants release water vapour through pores in their leaves ({i}).",
            "reference": "Transpiration releases water vapour through small pores in the leaves.",
            "contexts": [{"id": f"d{i}", "text": "Plants release water vapour through small pores.", "relevance": 2}]}) + "\n")
PY
"$bin" score --input runs.jsonl --metrics lexical,ciu --output ref.csv > /dev/null
cp ref.csv out.csv
started=$(date +%s.%N)
"$bin" score --input runs.jsonl --metrics lexical,ciu --output timed.csv > /dev/null
span=$(python3 -c "import time; print(max(0.2, time.time() - $started))")
for i in $(seq 1 "$n"); do
    "$bin" score --input runs.jsonl --metrics lexical,ciu --output out.csv > /dev/null 2>&1 &
    pid=$!
    sleep "$(python3 -c "import random; print(round(random.uniform(0.0, $span), 3))")"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    cmp -s out.csv ref.csv || { echo "score kill $i: the output path changed after a kill" >&2; exit 1; }
    "$bin" score --input runs.jsonl --metrics lexical,ciu --output out.csv > /dev/null
    cmp -s out.csv ref.csv || { echo "score run $i: differs from the uninterrupted run" >&2; exit 1; }
    if ls -A | grep -q '\.partial$'; then echo "score run $i: a partial file was left" >&2; exit 1; fi
done
echo "score: $n of $n kills lost nothing (kill points uniform in 0-${span%.*} s)"

# collect: 40 questions, a target that takes 50 ms an answer and logs each call.
python3 - <<'PY'
import json
with open("questions.jsonl", "w") as f:
    for i in range(40):
        f.write(json.dumps({"id": f"q{i:02d}", "query": f"Question {i}?"}) + "\n")
PY
cat > target.sh <<'SH'
#!/bin/sh
read -r line
id=$(printf '%s' "$line" | sed 's/.*"id": *"\([^"]*\)".*/\1/')
echo "$id" >> calls.log
sleep 0.05
printf '{"answer": "the answer to %s"}\n' "$id"
SH
chmod +x target.sh
collect() { "$bin" collect --questions questions.jsonl --target "cmd:./target.sh" --system s --concurrency 4 --cache "$1" --output "$2" > /dev/null 2>&1; }
collect ref-cache.sqlite collect-ref.jsonl
: > calls.log
kills=0
for i in $(seq 1 "$n"); do
    rm -f cache.sqlite collected.jsonl
    : > calls.log
    "$bin" collect --questions questions.jsonl --target "cmd:./target.sh" --system s --concurrency 4 --cache cache.sqlite \
        --output collected.jsonl > /dev/null 2>&1 &
    pid=$!
    sleep "$(python3 -c "import random; print(round(random.uniform(0.0, 0.6), 3))")"
    kill -9 "$pid" 2>/dev/null && kills=1 || kills=0
    wait "$pid" 2>/dev/null || true
    if [[ -e collected.jsonl ]] && ! cmp -s collected.jsonl collect-ref.jsonl; then
        echo "collect kill $i: a half-written output" >&2; exit 1
    fi
    collect cache.sqlite collected.jsonl
    cmp -s collected.jsonl collect-ref.jsonl || { echo "collect run $i: differs from the uninterrupted run" >&2; exit 1; }
    calls=$(wc -l < calls.log)
    if (( calls > 40 + 4 * kills )); then echo "collect run $i: $calls target calls for 40 questions" >&2; exit 1; fi
done
echo "collect: $n of $n kills lost nothing and repeated only calls in flight"
