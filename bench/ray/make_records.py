"""N records for bench/ray as Parquet: the example runs cycled, four systems per question id."""

import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq

n, path = int(sys.argv[1]), sys.argv[2]
systems = ["oracle", "partial", "abstain", "wrong"]
base = {}
for s in systems:
    with open(f"examples/runs/{s}.jsonl", encoding="utf-8") as f:
        base[s] = [json.loads(line) for line in f if line.strip()]
# Every key in every row: pyarrow infers the columns from the first row alone.
keys = sorted({k for s in systems for r in base[s] for k in r})
base = {s: [{k: r.get(k) for k in keys} for r in rows] for s, rows in base.items()}
schema = pa.Table.from_pylist([r for s in systems for r in base[s]]).schema
writer = pq.ParquetWriter(path, schema, compression="snappy")
chunk = 100_000
for start in range(0, n, chunk):
    rows = []
    for i in range(start, min(n, start + chunk)):
        s = systems[i % 4]
        r = dict(base[s][(i // 4) % len(base[s])])
        r["id"] = f"q{i // 4}"
        rows.append(r)
    writer.write_table(pa.Table.from_pylist(rows, schema=schema))
writer.close()
print(f"{n} records: {path}")
