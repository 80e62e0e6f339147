"""Prints p50 and p99 of two latency files (JSON lists of ms) and their ratio.

    python latency.py LABEL OFF.json ON.json
"""
import json
import sys


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


label, off, on = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
for q in (0.5, 0.99):
    a, b = pct(off, q), pct(on, q)
    print(f"{label}, p{int(q * 100)}: off {a:.3f} ms, on {b:.3f} ms, on/off {b / a:.4f}")
