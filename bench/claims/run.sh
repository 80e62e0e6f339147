#!/usr/bin/env bash
# Speed of claim-level judging on answer pairs, the two reference-based protocols of compare /
# tournament side by side, with the same judge on the same pairs, each from an empty call cache:
#   claims       each answer sentence against the few most similar reference sentences, each
#                reference sentence against the few most similar answer sentences (one yes/no
#                call each, every call its own premise);
#   ragchecker   RAGChecker's checks: each answer claim against the whole reference, each
#                reference claim against the whole answer, the checks of one premise sent
#                together (the local judge reads a premise once), lexically hopeless ones skipped.
# Prints pairs, judge calls (claims checked), prompt tokens per pair, seconds, seconds per pair
# and claims checked per second for each.
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
row() {
    local name=$1 seconds=$2
    python3 - "$name" "$(wc -l < "$work/a.jsonl")" "$seconds" "$work/$name.json" <<'PY'
import json, sys
name, pairs, seconds, report = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
usage = json.load(open(report))["usage"]
calls, tokens = usage["calls"], usage["prompt_tokens"]
print(f"| {name} | {pairs} | {calls} | {tokens / pairs:.0f} | {seconds:.1f} | {seconds / pairs:.1f} | {calls / seconds:.2f} |")
PY
}
echo "| protocol | pairs | judge calls | prompt tokens per pair | seconds | s/pair | claims/s |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for protocol in claims ragchecker; do
    start=$(date +%s.%N)
    "$bin" compare "$work/a.jsonl" "$work/b.jsonl" --protocol "$protocol" --output "$work/$protocol" \
        --cache "$work/$protocol.sqlite" --threads "$threads" --json "${judge_args[@]}" > "$work/$protocol.json"
    row "$protocol" "$(echo "$(date +%s.%N) - $start" | bc)"
done
