#!/usr/bin/env python3
"""Figures of `bench/testgen/quality.sh` from each set's summary.json, the kept questions' nearest
earlier kept question (cosine under the encoder the run used: MiniLM for English,
multilingual-e5-small for Chinese, through `ragjudge embed`), and 15 kept questions per set drawn
at random (random.Random(35)) with their references and sources, to read; then a second draw of 15
answerable ones from the rest (random.Random(36)), and every kept unanswerable question.

Usage: quality.py OUT_DIR SET...   (RAGJUDGE_BIN: the binary, default target/release/ragjudge)
"""
import json
import math
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

out = Path(sys.argv[1])
binary = os.environ.get("RAGJUDGE_BIN", "target/release/ragjudge")
ENCODER = {"en": "minilm", "zh": "multilingual-e5-small"}


def nearest_earlier(questions, model):
    """For each question after the first, its largest cosine with an earlier one."""
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "q.txt", Path(tmp) / "v.jsonl"
        src.write_text("".join(q.replace("\n", " ") + "\n" for q in questions), encoding="utf-8")
        subprocess.run([binary, "embed", "--model", model, "-i", str(src), "-o", str(dst)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        vectors = [json.loads(l)["vector"] for l in dst.read_text(encoding="utf-8").splitlines() if l.strip()]
    assert len(vectors) == len(questions), (len(vectors), len(questions))
    unit = [[x / math.sqrt(sum(y * y for y in v)) for x in v] for v in vectors]
    return [max(sum(a * b for a, b in zip(unit[i], unit[j])) for j in range(i)) for i in range(1, len(unit))]

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
    print("  near-duplicate replies regenerated", q["near_duplicate_rate"])
    stems = [r["query"].split("\nA)")[0] for r in qs]
    near = nearest_earlier(stems, ENCODER.get(s, "minilm"))
    for bar in (0.92, 0.85):
        print(f"  kept with an earlier kept question at cosine >= {bar}: {sum(c >= bar for c in near)} of {len(qs)}")
    first = random.Random(35).sample(qs, min(15, len(qs)))
    drawn = {id(r) for r in first}
    rest = [r for r in qs if id(r) not in drawn and r["meta"]["query_type"] != "unanswerable"]
    second = random.Random(36).sample(rest, min(15, len(rest)))
    unanswerable = [r for r in qs if r["meta"]["query_type"] == "unanswerable"]
    for label, draw in (("", first), ("b", second), ("u", unanswerable)):
        for i, r in enumerate(draw, 1):
            m = r["meta"]
            print(f"\n[{s}-{label}{i}] {m['query_type']}: {r['query']}")
            print(f"   reference: {r['reference']}")
            print(f"   judge: {m['checks'].get('judge_answer')} (agreement {m['checks'].get('answer_agreement')})")
            for sid in m["source_ids"]:
                print(f"   source {sid}: {chunks.get(sid, '?')[:700]}")
