#!/usr/bin/env bash
# Fan-out check at scale: N synthetic records (default 100,000) scored once, and as 4 shards
# (`score --shard i/4`) merged with `ragjudge merge`; compares the per-record rows (as sets), the
# summaries (means bit for bit; std and interval ends within 1e-12 relative) and wall times.
# Usage: bash bench/shard/run.sh [N]   (RAGJUDGE_BIN=path uses a prebuilt binary)
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-100000}"
out=bench/out/shard
mkdir -p "$out"
bin="${RAGJUDGE_BIN:-target/release/ragjudge}"
[ -n "${RAGJUDGE_BIN:-}" ] || cargo build --release -q -p ragjudge-cli
input="$out/records_$n.jsonl"
if [ ! -s "$input" ]; then
    # The bundled example records cycled with fresh question ids: 4 systems answer each question.
    python3 - "$n" "$input" <<'PY'
import json, sys
n, path = int(sys.argv[1]), sys.argv[2]
base = {}
for s in ["oracle", "partial", "abstain", "wrong"]:
    with open(f"examples/runs/{s}.jsonl", encoding="utf-8") as f:
        base[s] = [json.loads(l) for l in f if l.strip()]
with open(path, "w", encoding="utf-8") as f:
    for i in range(n):
        s = ["oracle", "partial", "abstain", "wrong"][i % 4]
        r = dict(base[s][(i // 4) % len(base[s])])
        r["id"] = f"q{i // 4}"
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
PY
fi
metrics=lexical,ciu,retrieval
t0=$(date +%s.%N)
"$bin" score --input "$input" --metrics "$metrics" --output "$out/single.csv" --json > "$out/single.json"
t1=$(date +%s.%N)
for i in 1 2 3 4; do
    "$bin" score --input "$input" --metrics "$metrics" --shard "$i/4" --output "$out/shard$i.csv" --json \
        > "$out/shard$i.json"
done
t2=$(date +%s.%N)
"$bin" merge "$out"/shard{1,2,3,4}.csv --output "$out/merged.csv" --json > "$out/merged.json"
t3=$(date +%s.%N)
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
def rows(p):
    with open(p, encoding="utf-8") as f:
        lines = f.read().splitlines()
    return lines[0], sorted(lines[1:])
h1, r1 = rows(f"{out}/single.csv")
h2, r2 = rows(f"{out}/merged.csv")
assert h1 == h2, "headers differ"
print(f"rows: {len(r1)} single, {len(r2)} merged, identical as sets: {r1 == r2}")
sizes = [json.load(open(f"{out}/shard{i}.json"))["records"] for i in range(1, 5)]
print(f"records per shard: {sizes}")
a, b = json.load(open(f"{out}/single.json")), json.load(open(f"{out}/merged.json"))
for k in ["records", "skipped", "failed"]:
    assert a[k] == b[k], k
means_equal, worst = True, {"std": 0.0, "ci_low": 0.0, "ci_high": 0.0}
for sa in a["systems"]:
    sb = next(s for s in b["systems"] if s["system"] == sa["system"])
    for ma, mb in zip(sa["metrics"], sb["metrics"]):
        means_equal &= ma["mean"] == mb["mean"] and ma["n"] == mb["n"]
        for k in worst:
            if ma[k] is not None:
                worst[k] = max(worst[k], abs(ma[k] - mb[k]) / max(1.0, abs(ma[k])))
print(f"summary means identical: {means_equal}; largest relative difference: "
      + ", ".join(f"{k} {v:.2e}" for k, v in worst.items()))
ok = r1 == r2 and means_equal and max(worst.values()) <= 1e-12
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" 'BEGIN {
    printf "wall: single run %.1f s; 4 shards one after another %.1f s (%.1f s per shard); merge %.1f s\n", b-a, c-b, (c-b)/4, d-c }'
