"""The Ray side of bench/ray/run.sh: score the Parquet records on a local 2-CPU cluster, compare
with the CLI's rows and summary, and measure worker memory and the Python heap per block."""

import json
import os
import sys
import threading
import time
import tracemalloc

import pyarrow as pa
import pyarrow.parquet as pq
import ray

import ragjudge
import ragjudge.ray as rr

path, out, metrics, cli_wall = sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4]


def seconds(text):
    parts = [float(p) for p in text.split(":")]
    return sum(p * 60 ** i for i, p in enumerate(reversed(parts)))


def worker_rss(peaks, stop):
    """Samples the resident memory of every ScoreBatches worker process (by its title): all of it,
    and its private part (RssAnon; the rest is mostly Ray's shared object store mapped in)."""
    while not stop.is_set():
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    title = f.read().replace(b"\0", b" ").decode(errors="replace")
                if "ScoreBatches" not in title:
                    continue
                with open(f"/proc/{pid}/status") as f:
                    status = {line.split(":")[0]: line.split()[1] for line in f if line.startswith(("VmRSS", "RssAnon"))}
                rss, anon = int(status["VmRSS"]), int(status["RssAnon"])
                old = peaks.get(pid, (0, 0))
                peaks[pid] = (max(old[0], rss), max(old[1], anon))
            except (OSError, KeyError, ValueError):
                pass
        time.sleep(0.5)


# The Python heap one block costs: Arrow in, Arrow out, against the list-of-dicts face.
block = pq.read_table(path).slice(0, 100_000)
scorer = rr.ScoreBatches(metrics=metrics)
tracemalloc.start()
rows = scorer(block)
_, arrow_peak = tracemalloc.get_traced_memory()
tracemalloc.stop()
records = block.to_pylist()
tracemalloc.start()
ragjudge.score(records, metrics=metrics, bootstrap=1)
_, dict_peak = tracemalloc.get_traced_memory()
tracemalloc.stop()
del records
print(f"Python heap for a block of {block.num_rows} records: Arrow face peak {arrow_peak / 1024:.1f} KiB "
      f"({arrow_peak / block.num_rows:.3f} bytes per record); ragjudge.score(list of dicts) peak "
      f"{dict_peak / 2**20:.1f} MiB (input dicts not counted)")

ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
peaks, stop = {}, threading.Event()
sampler = threading.Thread(target=worker_rss, args=(peaks, stop), daemon=True)
sampler.start()
t0 = time.time()
ds = ray.data.read_parquet(path)
# Two workers of half a CPU each (one scoring thread each): the other CPU is left to the read
# and write tasks, which would otherwise wait forever for a CPU the workers hold.
scores = rr.score(ds, metrics=metrics, concurrency=2, num_cpus=0.5, threads=1, batch_size=4096)
scores.write_parquet(f"{out}/ray_scores")
t1 = time.time()
stop.set()
sampler.join()
summary = rr.summarize(ray.data.read_parquet(f"{out}/ray_scores"))
t2 = time.time()
ray.shutdown()

ray_wall, cli = t1 - t0, seconds(cli_wall)
n = pq.ParquetFile(path).metadata.num_rows
print(f"Ray Data, 2 workers: scored and written in {ray_wall:.1f} s ({n / ray_wall:,.0f} records/s); "
      f"one score process {cli:.1f} s ({n / cli:,.0f} records/s); throughput ratio Ray/CLI {cli / ray_wall:.2f}")
print(f"summary over the written rows: {t2 - t1:.1f} s")
print("peak RSS per worker (private part): "
      + ", ".join(f"{rss / 1024:.0f} MB ({anon / 1024:.0f} MB)" for rss, anon in sorted(peaks.values())))

# Rows: the same as sets; summary: counts and means exact, intervals within 1e-12 relative.
key = ["id", "system"]
a = pq.read_table(f"{out}/cli.parquet").sort_by([(k, "ascending") for k in key])
b = pa.concat_tables(
    [pq.read_table(os.path.join(f"{out}/ray_scores", f)) for f in sorted(os.listdir(f"{out}/ray_scores"))]
).sort_by([(k, "ascending") for k in key])
b = b.select(a.column_names).cast(a.schema)
# pandas' equals treats missing values in the same places as equal.
rows_equal = a.num_rows == b.num_rows and a.to_pandas().equals(b.to_pandas())
want = json.load(open(f"{out}/cli.json"))
got = summary.report
means_equal, worst = True, 0.0
for sw in want["systems"]:
    sg = next(s for s in got["systems"] if s["system"] == sw["system"])
    means_equal &= (sw["records"], sw["failed"]) == (sg["records"], sg["failed"])
    for mw, mg in zip(sw["metrics"], sg["metrics"]):
        means_equal &= (mw["n"], mw["mean"]) == (mg["n"], mg["mean"])
        for k in ("std", "ci_low", "ci_high"):
            if mw[k] is not None:
                worst = max(worst, abs(mw[k] - mg[k]) / max(1.0, abs(mw[k])))
print(f"rows identical as sets: {rows_equal}; summary counts and means identical: {means_equal}; "
      f"largest relative difference of std / interval ends: {worst:.2e}")
ok = rows_equal and means_equal and worst <= 1e-12
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
