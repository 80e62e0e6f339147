#!/usr/bin/env python3
"""Figures of `bench/testgen/quality.sh` from each set's summary.json, and 15 kept questions per set
drawn at random (random.Random(35)) with their references and sources, to read.

Usage: quality.py OUT_DIR SET...
"""
import json
import random
import sys
from pathlib import Path

out = Path(sys.argv[1])
for s in sys.argv[2:]:
    qpath = out / s / "questions.jsonl"
    side = out / s / "questions.testgen"
    summary = json.loads((side / "summary.json").read_text(encoding="utf-8"))
    chunks = {}
    for line in (side / "chunks.jsonl").read_text(encoding="utf-8").splitlines():
        c = json.loads(line)
        chunks[c["id"]] = c["text"]
    qs = [json.loads(l) for l in qpath.read_text(encoding="utf-8").splitlines() if l.strip()]
    q = summary["quality"]
    print(f"== {s}: {len(qs)} kept of {summary['tasks']} tasks")
    for name, c in q["checks"].items():
        print(f"  {name:15} {c}")
    print("  letters", q["answer_letters"], "p", q["answer_letters_p"], "yes/no", q.get("yes_no_answers"))
    types = {}
    for r in qs:
        t = r["meta"]["query_type"]
        types[t] = types.get(t, 0) + 1
    print("  kept per type", types)
    print("  near-duplicate rate", q["near_duplicate_rate"])
    for i, r in enumerate(random.Random(35).sample(qs, min(15, len(qs))), 1):
        m = r["meta"]
        print(f"\n[{s}{i}] {m['query_type']}: {r['query']}")
        print(f"   reference: {r['reference']}")
        print(f"   judge: {m['checks'].get('judge_answer')} (agreement {m['checks'].get('answer_agreement')})")
        for sid in m["source_ids"]:
            print(f"   source {sid}: {chunks.get(sid, '?')[:700]}")
