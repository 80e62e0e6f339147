"""Writes N records made by cycling the bundled example runs with fresh ids (`ID-i`), so every
record is a realistic one: JSONL, or Parquet (with pyarrow) when PATH ends in `.parquet`.

    python3 bench/example_records.py N PATH
"""
import json
import sys

n, path = int(sys.argv[1]), sys.argv[2]
base = []
for s in ["oracle", "partial", "abstain", "wrong"]:
    with open(f"examples/runs/{s}.jsonl", encoding="utf-8") as f:
        base += [json.loads(line) for line in f if line.strip()]
rows = ({**base[i % len(base)], "id": f"{base[i % len(base)]['id']}-{i}"} for i in range(n))
if path.endswith(".parquet"):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = list(rows)
    cols = ["id", "system", "query", "answer", "reference", "contexts"]
    pq.write_table(pa.table({c: [r.get(c) for r in rows] for c in cols}), path)
else:
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
