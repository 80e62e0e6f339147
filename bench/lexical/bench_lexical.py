#!/usr/bin/env python3
"""Lexical-metrics benchmark helper: generates pairs, scores them with the Python references
(rouge-score, sacrebleu) and compares against ragjudge's scores.

  bench_lexical.py generate OUT.jsonl [N]
  bench_lexical.py score PAIRS.jsonl OUT.jsonl          (prints {"pairs": N, "seconds": S})
  bench_lexical.py compare PAIRS.jsonl PY.jsonl PY_TIME.json RS.jsonl RS_TIME.json
"""
import json
import random
import sys
import time

METRICS = ["rouge1", "rouge2", "rougeL", "bleu", "chrf"]

WORDS = (
    "the a an of to in and is was were be been for on with as by at from that this it its "
    "model retrieval answer question context document passage evidence source claim fact "
    "capital city country population river mountain war treaty century king queen president "
    "running runs ran generalization studies studied national organization electrical "
    "Paris France Berlin Germany Tokyo Japan Einstein relativity photosynthesis chlorophyll "
    "protein enzyme cell energy light water carbon dioxide oxygen glucose plants animals "
    "because although however therefore approximately about around between during after before"
).split()
EXTRAS = ["1905", "3.14", "1,000", "2024-06-01", "e.g.", "U.S.", "don't", "(see", "above)",
          "café", "東京", "🚀", "—", "50%", "$20"]


def make_text(rng, n):
    words = []
    for _ in range(n):
        w = rng.choice(EXTRAS) if rng.random() < 0.05 else rng.choice(WORDS)
        if rng.random() < 0.08:
            w = w.capitalize()
        if rng.random() < 0.07:
            w += rng.choice([".", ",", ";", "!", "?"])
        words.append(w)
    return " ".join(words)


def perturb(rng, text):
    out = []
    for w in text.split():
        r = rng.random()
        if r < 0.12:
            continue
        if r < 0.25:
            out.append(rng.choice(WORDS))
            continue
        out.append(w)
        if r > 0.95:
            out.append(rng.choice(WORDS))
    return " ".join(out)


def generate(path, n):
    rng = random.Random(12345)
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            reference = make_text(rng, rng.randint(5, 80))
            kind = rng.random()
            if kind < 0.03:
                answer = reference
            elif kind < 0.05:
                answer = make_text(rng, rng.randint(1, 40))
            else:
                answer = perturb(rng, reference)
            f.write(json.dumps({"id": i, "answer": answer, "reference": reference},
                               ensure_ascii=False) + "\n")


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def score(pairs_path, out_path):
    import sacrebleu
    from rouge_score import rouge_scorer
    pairs = load(pairs_path)
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=False)
    start = time.perf_counter()
    rows = []
    for p in pairs:
        a, r = p["answer"], p["reference"]
        rs = scorer.score(r, a)
        b = sacrebleu.sentence_bleu(a, [r])
        c = sacrebleu.sentence_chrf(a, [r])
        rows.append((rs["rouge1"].fmeasure, rs["rouge2"].fmeasure, rs["rougeL"].fmeasure,
                     b.score, c.score))
    seconds = time.perf_counter() - start
    with open(out_path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(dict(zip(METRICS, row))) + "\n")
    print(json.dumps({"pairs": len(pairs), "seconds": seconds}))


def compare(pairs_path, py_path, py_time, rs_path, rs_time):
    n = len(load(pairs_path))
    py, rs = load(py_path), load(rs_path)
    assert len(py) == n and len(rs) == n, (n, len(py), len(rs))
    tp = json.load(open(py_time))["seconds"]
    tr = json.load(open(rs_time))["seconds"]
    print(f"pairs: {n} (single thread, scoring loop only: rouge1/2/L F, sentence BLEU, chrF)")
    print(f"{'implementation':<32}{'seconds':>10}{'pairs/s':>14}")
    print(f"{'python (rouge-score+sacrebleu)':<32}{tp:>10.3f}{n / tp:>14.0f}")
    print(f"{'ragjudge (rust)':<32}{tr:>10.3f}{n / tr:>14.0f}")
    print(f"speed-up ragjudge/python: {tp / tr:.1f}x")
    print(f"{'metric':<10}{'max |diff|':>14}{'pairs differing > 1e-9':>26}")
    worst = 0.0
    for m in METRICS:
        diffs = [abs(a[m] - b[m]) for a, b in zip(py, rs)]
        worst = max(worst, max(diffs))
        print(f"{m:<10}{max(diffs):>14.3e}{sum(d > 1e-9 for d in diffs):>26}")
    return 0 if worst <= 1e-9 else 1


def main():
    cmd = sys.argv[1]
    if cmd == "generate":
        generate(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 10000)
    elif cmd == "score":
        score(sys.argv[2], sys.argv[3])
    elif cmd == "compare":
        sys.exit(compare(*sys.argv[2:7]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
