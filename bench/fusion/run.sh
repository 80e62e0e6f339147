#!/usr/bin/env bash
# Fused score on live-traffic volumes: fits MoE-CIU on the Topical-Chat ratings from the lexical
# and CIU columns, then scores N records (default 1,000,000) with `score --metrics fused:MODEL` on
# one thread, streamed from disk, and reports records/s and peak resident memory, side by side
# with the same run without the fused column (the input metrics alone), so the ratio is the cost
# of the fusion itself.
# Usage: bash bench/fusion/run.sh [N] [DATA_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-1000000}"
data="${2:-../shared/data/usr-topical-chat}"
out=bench/out/fusion
mkdir -p "$out"
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (apt-get install time)" >&2; exit 1; }
cargo build --release -q -p ragjudge-cli
bin=target/release/ragjudge

"$bin" score --input "$data/records.jsonl" --metrics lexical,ciu --output "$out/train_scores.csv" > /dev/null
"$bin" fuse fit --scores "$out/train_scores.csv" --labels "$data/ratings.csv" --label-col overall \
    --inputs bleu,meteor,rougeL_f,ciu,token_f1,chrf --model moe --save "$out/moe.json" > "$out/fit.txt"

input="$out/records_$n.jsonl"
if [ ! -s "$input" ]; then
    python3 - "$n" "$input" "$data/records.jsonl" <<'PY'
import json, sys
n, path, src = int(sys.argv[1]), sys.argv[2], sys.argv[3]
base = [json.loads(l) for l in open(src, encoding="utf-8") if l.strip()]
with open(path, "w", encoding="utf-8") as f:
    for i in range(n):
        r = dict(base[i % len(base)])
        r["id"] = f"{r['id']}-{i}"
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
PY
fi

run() { # name, metrics
    /usr/bin/time -v "$bin" score --input "$input" --metrics "$2" --threads 1 --output "$out/$1.csv" --json \
        > "$out/$1.json" 2> "$out/$1.time"
    local rss wall secs
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$out/$1.time")
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$out/$1.time")
    secs=$(python3 -c "p='$wall'.split(':');print(sum(float(x)*60**i for i,x in enumerate(reversed(p))))")
    echo "$1 $secs $((rss / 1024))"
}
a=$(run inputs lexical,ciu)
b=$(run fused "fused:$out/moe.json")
python3 - "$n" "$a" "$b" <<'PY'
import sys
n = int(sys.argv[1])
(na, sa, ra), (nb, sb, rb) = (x.split() for x in sys.argv[2:4])
sa, sb = float(sa), float(sb)
print(f"records: {n:,}, one thread")
print(f"input metrics alone (lexical,ciu):      {n/sa:,.0f} records/s, peak RSS {ra} MiB, {sa:.0f} s")
print(f"fused:moe.json (inputs + MoE-CIU):     {n/sb:,.0f} records/s, peak RSS {rb} MiB, {sb:.0f} s")
print(f"time ratio fused / inputs alone: {sb/sa:.3f}")
PY
