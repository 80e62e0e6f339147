"""The simulation of bench/validate/run.sh (scipy==1.16.3 for Spearman).

Part 1, 20 seeds: 40 pairs labelled with their human preference, 100 held out. `ragjudge
validate` (labels of the 40 only) picks a scorer; every candidate (each score column, and the
`length` and `token_f1` baselines, oriented as validate orients them on the 40) is measured on
the 100; the gap is the best candidate's held-out Spearman minus the pick's.

Part 2, 1000 seeds: the PPI interval of model2's win rate over model1 (validate's estimate from
the 40 labels and the pick's verdicts on the other 100) against the win rate of all 140 human
labels (1 when model2 is preferred, 0.5 on a tie, 0 otherwise).
"""

import argparse
import csv
import json
import os
import random
import subprocess
import tempfile

from scipy.stats import spearmanr


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--scores", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--coverage-sims", type=int, default=1000)
    args = p.parse_args()

    pref = {r["id"]: float(r["overall"]) for r in csv.DictReader(open(os.path.join(args.data, "human.csv")))}
    ids = sorted(pref)
    rows = list(csv.DictReader(open(args.scores)))
    columns = [c for c in rows[0] if c not in ("id", "system", "run", "error")]
    by = {(r["id"], r["system"]): r for r in rows}
    answers = {}
    for m in ("model1", "model2"):
        for line in open(os.path.join(args.data, f"{m}.jsonl")):
            r = json.loads(line)
            answers[(r["id"], m)] = r["answer"]
    diff = {}
    for c in columns:
        vals = {}
        for i in ids:
            a, b = by[(i, "model1")].get(c, ""), by[(i, "model2")].get(c, "")
            if a != "" and b != "":
                vals[i] = float(b) - float(a)
        diff[c] = vals
    diff["length"] = {i: len(answers[(i, "model2")].split()) - len(answers[(i, "model1")].split()) for i in ids}

    def held_out_rho(name, test, sign):
        xs = [sign * diff[name][i] for i in test if i in diff[name]]
        ys = [pref[i] for i in test if i in diff[name]]
        if len(set(xs)) < 2:
            return None
        return spearmanr(xs, ys).statistic

    # Part 1 compares with the candidates the user gave (the consensus is not one of them).
    runs = [os.path.join(args.data, "model1.jsonl"), os.path.join(args.data, "model2.jsonl")]
    truth = sum(1.0 if pref[i] > 0 else 0.5 if pref[i] == 0 else 0.0 for i in ids) / len(ids)

    def validate(labelled, tmp):
        path = os.path.join(tmp, "labels.jsonl")
        with open(path, "w") as f:
            for i in labelled:
                label = "B" if pref[i] > 0 else "A" if pref[i] < 0 else "tie"
                f.write(json.dumps({"id": i, "system_a": "model1", "system_b": "model2", "label": label, "preference": pref[i]}) + "\n")
        out = subprocess.run([args.bin, "validate", "--labels", path, "--runs", *runs, "--scores", args.scores, "--json"],
                             check=True, capture_output=True, text=True).stdout
        return json.loads(out)

    gaps, lines = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.seeds):
            rng = random.Random(seed)
            labelled = rng.sample(ids, 40)
            test = rng.sample([i for i in ids if i not in labelled], 100)
            v = validate(labelled, tmp)
            orient = {c["name"]: (-1 if c["reversed"] else 1) for c in v["candidates"]}
            held = {}
            for c in v["candidates"]:
                if c["eligible"] and c["name"] in diff:
                    r = held_out_rho(c["name"], test, orient[c["name"]])
                    if r is not None:
                        held[c["name"]] = r
            best = max(held, key=held.get)
            picked = v["picked"]
            if picked == "consensus":
                # The consensus as validate defines it: sum of weight x direction x d / rms(d).
                def rms(name):
                    xs = list(diff[name].values())
                    return (sum(x * x for x in xs) / len(xs)) ** 0.5
                score = {i: sum(w * orient[m] * diff[m][i] / rms(m) for m, w in v["consensus"]) for i in test}
                held["consensus"] = spearmanr([score[i] for i in test], [pref[i] for i in test]).statistic
                picked = f"consensus of {len(v['consensus'])}"
                held[picked] = held.pop("consensus")
            gap = held[best] - held[picked]
            gaps.append(gap)
            lines.append(f"| {seed} | {picked} | {held[picked]:.3f} | {best} | {held[best]:.3f} | {gap:.3f} |")

        covered, widths, widths_classical = 0, [], []
        for seed in range(args.coverage_sims):
            rng = random.Random(100000 + seed)
            labelled = rng.sample(ids, 40)
            v = validate(labelled, tmp)
            e = v["estimates"][0]["ppi"]
            lo, hi = e["ppi"]["low"], e["ppi"]["high"]
            covered += lo <= truth <= hi
            widths.append(hi - lo)
            widths_classical.append(e["classical"]["high"] - e["classical"]["low"])

    report = ["# Validate on rag-pairs-dev: a simulated user", "",
              "| seed | picked | held-out Spearman | best in hindsight | its Spearman | gap |", "|---|---|---|---|---|---|",
              *lines, "",
              f"mean gap over {args.seeds} seeds: {sum(gaps) / len(gaps):.4f} (target <= 0.03)", "",
              f"PPI coverage of model2's win rate over model1 (truth {truth:.4f} from all 140 labels): "
              f"{covered}/{args.coverage_sims} = {covered / args.coverage_sims:.3f} (target >= 0.94 at alpha 0.05); "
              f"mean width {sum(widths) / len(widths):.3f} with PPI, {sum(widths_classical) / len(widths_classical):.3f} with the labels alone"]
    text = "\n".join(report) + "\n"
    open(os.path.join(args.out, "report.md"), "w").write(text)
    print(text)


if __name__ == "__main__":
    main()
