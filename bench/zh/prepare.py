#!/usr/bin/env python3
"""Turns the DICE paper's Chinese financial QA set into ragjudge's inputs (kept out of the repository).

Usage: prepare.py DICE_ZH_DIR OUT_DIR
Writes OUT_DIR/corpus.jsonl (one `{"id", "text"}` line per source document, id = content_id) and
OUT_DIR/questions.jsonl (one `{"id", "query", "reference", "relevant", "meta"}` line per QA pair, in
file order: id `zhNN`, `relevant` = [relevant_passage], the document that answers it, so the
built-in RAG's chunks `DOC:N` of that document count as relevant; meta.task = task_name).
50 of the 70 questions name one of 10 documents that are not among the 50 sources; for those the
question set gives the supporting passages (`relevant_content`), so each missing document is
stood in for by the distinct passages its questions quote, in order of first quotation, one per
line: the collection then holds an answer to every question (60 documents).
"""
import json
import sys
from pathlib import Path

src, out = Path(sys.argv[1]), Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
docs = [json.loads(line) for line in (src / "sources50.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
ids = {str(d["content_id"]) for d in docs}
qa = json.loads((src / "qa70.json").read_text(encoding="utf-8"))
stand_in = {}
for q in qa:
    doc = str(q["relevant_passage"])
    if doc not in ids:
        quoted = q["relevant_content"] if isinstance(q["relevant_content"], list) else [q["relevant_content"]]
        stand_in.setdefault(doc, {}).update(dict.fromkeys(quoted))
with open(out / "corpus.jsonl", "w", encoding="utf-8") as f:
    for d in docs:
        f.write(json.dumps({"id": str(d["content_id"]), "text": d["content"]}, ensure_ascii=False) + "\n")
    for doc, passages in stand_in.items():
        f.write(json.dumps({"id": doc, "text": "\n".join(passages)}, ensure_ascii=False) + "\n")
ids |= set(stand_in)
with open(out / "questions.jsonl", "w", encoding="utf-8") as f:
    for i, q in enumerate(qa, 1):
        doc = str(q["relevant_passage"])
        assert doc in ids, f"question {i}: relevant_passage {doc} is not a source"
        rec = {"id": f"zh{i:02d}", "query": q["question"], "reference": q["answer"], "relevant": [doc],
               "meta": {"task": q["task_name"], "lang": "zh"}}
        f.write(json.dumps(rec, ensure_ascii=False) + "\n")
print(f"{len(docs)} sources + {len(stand_in)} stand-in documents, {len(qa)} questions -> {out}")
