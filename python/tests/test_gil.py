"""Scoring releases the GIL: a second Python thread keeps counting while the engine works."""

import json
import threading
import time

import ragjudge
from ragjudge import _native
from conftest import RUNS


def test_a_second_thread_runs_while_records_are_scored():
    lines = [line for p in RUNS for line in p.read_text().splitlines() if line.strip()]
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.0005)

    # Grow the work until one call lasts long enough to see ticks inside it (the call itself is
    # native: the JSON lines are ready before it starts).
    records = lines
    while True:
        t = threading.Thread(target=count)
        t.start()
        try:
            t0 = time.perf_counter()
            options = _native.ScoreOptions(metrics=["lexical", "ciu"], bootstrap=2000, threads=1)
            out = _native.score(records=records, options=options)
            t1 = time.perf_counter()
        finally:
            stop.set()
            t.join()
        stop.clear()
        if t1 - t0 >= 0.3 or len(records) > 100_000:
            break
        records = records * 4
        ticks.clear()
    assert len(out["id"]) == len(records)
    margin = 0.05 * (t1 - t0)
    inside = [x for x in ticks if t0 + margin < x < t1 - margin]
    # With the GIL held for the whole call the counter could not run at all inside it; sleeping
    # 0.5 ms per tick it manages hundreds of ticks per 0.3 s when the GIL is free.
    assert len(inside) >= 50, (len(inside), t1 - t0)
