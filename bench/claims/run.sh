#!/usr/bin/env bash
# Speed of claim-level judging on answer pairs, the two ways ragjudge does it, side by side with
# the same judge on the same pairs, each from an empty call cache:
#   claims       the `claims` protocol of compare / tournament (each answer sentence against the
#                reference, each reference sentence against the answer; one yes/no call each);
#   ragchecker   `score --metrics ragchecker` (every claim of answer and reference against the
#                other text and every retrieved passage; lexically hopeless checks skipped).
# Prints pairs, judge calls, seconds, seconds per pair and calls per second for each.
#
#   bash bench/claims/run.sh A.jsonl B.jsonl [PAIRS] [JUDGE]
#
# A.jsonl and B.jsonl hold one answer per question (same ids, e.g. two systems' runs with a
# `reference`); the first PAIRS ids (default 10) are judged. JUDGE defaults to the default local
# judge (Qwen2.5-Coder-1.5B). RAGJUDGE_BENCH_THREADS sets --threads (default 2).
set -euo pipefail
cd "$(dirname "$0")/../.."
a="$1"; b="$2"; pairs="${3:-10}"; judge="${4:-}"
threads="${RAGJUDGE_BENCH_THREADS:-2}"
bin=target/release/ragjudge
[ -x "$bin" ] || cargo build --release -p ragjudge-cli
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$a" "$b" "$pairs" "$work" <<'PY'
import json, sys
a, b, n, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
rows_a = [json.loads(l) for l in open(a) if l.strip()]
ids_b = {json.loads(l)["id"]: l for l in open(b) if l.strip()}
keep = [r for r in rows_a if r["id"] in ids_b][:n]
with open(f"{work}/a.jsonl", "w") as f:
    f.writelines(json.dumps(r) + "\n" for r in keep)
with open(f"{work}/b.jsonl", "w") as f:
    f.writelines(ids_b[r["id"]] if ids_b[r["id"]].endswith("\n") else ids_b[r["id"]] + "\n" for r in keep)
PY
judge_args=()
[ -n "$judge" ] && judge_args=(--judge "$judge")
calls() { python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from calls').fetchone()[0])" "$1"; }
row() {
    local name=$1 cache=$2 seconds=$3
    local n; n=$(calls "$cache")
    python3 -c "import sys; name, p, c, s = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]); print(f'| {name} | {p} | {c} | {s:.1f} | {s / p:.1f} | {c / s:.2f} |')" \
        "$name" "$(wc -l < "$work/a.jsonl")" "$n" "$seconds"
}
echo "| method | pairs | judge calls | seconds | s/pair | calls/s |"
echo "|---|---:|---:|---:|---:|---:|"
start=$(date +%s.%N)
"$bin" compare "$work/a.jsonl" "$work/b.jsonl" --protocol claims --output "$work/claims" \
    --cache "$work/claims.sqlite" --threads "$threads" "${judge_args[@]}" > /dev/null
row claims "$work/claims.sqlite" "$(echo "$(date +%s.%N) - $start" | bc)"
start=$(date +%s.%N)
"$bin" score -i "$work/a.jsonl" "$work/b.jsonl" --metrics ragchecker --output "$work/rc.jsonl" \
    --cache "$work/rc.sqlite" --threads "$threads" "${judge_args[@]}" > /dev/null
row ragchecker "$work/rc.sqlite" "$(echo "$(date +%s.%N) - $start" | bc)"
