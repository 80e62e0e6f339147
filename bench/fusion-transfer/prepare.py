"""Inputs of the fusion transfer measurement (bench/fusion-transfer/run.sh), standard library only.

rag-pairs: one row per question, `id`, `dataset` (the record's meta.dataset, 10 domains) and per
input the score difference model2 - model1 (the human `overall` preference is positive when model2
is better); labels stay in the data folder's human.csv.
topical-chat: the score file split into the records whose knowledge fact is `_nofact` and the
others, each with a copy of the score file's column definitions (the same computation).

Usage: python3 prepare.py rag-pairs DATA M1_SCORES M2_SCORES INPUTS OUT
       python3 prepare.py topical-chat DATA SCORES OUT_FACT OUT_NOFACT
"""

import csv
import json
import shutil
import sys


def rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def rag_pairs(data, m1, m2, inputs, out):
    inputs = inputs.split(",")
    domain = {}
    with open(f"{data}/model1.jsonl", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            domain[r["id"]] = r["meta"]["dataset"]
    one = {r["id"]: r for r in rows(m1)}
    two = {r["id"]: r for r in rows(m2)}
    assert one.keys() == two.keys() == domain.keys(), "model1, model2 and the records differ in ids"
    with open(out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "dataset", *inputs])
        for i in sorted(one, key=lambda k: int(k[2:])):
            w.writerow([i, domain[i], *(repr(float(two[i][c]) - float(one[i][c])) for c in inputs)])


def topical_chat(data, scores, out_fact, out_nofact):
    with open(f"{data}/records.jsonl", encoding="utf-8") as f:
        nofact = {r["id"] for r in map(json.loads, f) if r["reference"] == "_nofact"}
    all_rows = rows(scores)
    for out, keep in ((out_fact, lambda r: r["id"] not in nofact), (out_nofact, lambda r: r["id"] in nofact)):
        with open(out, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=list(all_rows[0].keys()))
            w.writeheader()
            w.writerows(r for r in all_rows if keep(r))
        shutil.copyfile(f"{scores}.columns.json", f"{out}.columns.json")


if __name__ == "__main__":
    {"rag-pairs": rag_pairs, "topical-chat": topical_chat}[sys.argv[1]](*sys.argv[2:])
