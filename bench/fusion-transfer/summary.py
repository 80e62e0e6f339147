"""Summary of bench/fusion-transfer/run.sh, standard library only: per data set, each method's
mean Spearman difference to the best single input chosen on the training side, per seed and its
mean over seeds, the splits it loses by more than 0.02 (summed over seeds), those lost beyond noise
(the 95% paired bootstrap interval of the difference below 0 as well), and how many of each the
shift check warned on.

Usage: python3 summary.py STUDY_DIR...   (each holding seed-N/transfer.json)
"""

import glob
import json
import os
import sys

for study in sys.argv[1:]:
    runs = sorted(glob.glob(os.path.join(study, "seed-*", "transfer.json")), key=lambda p: int(p.split("seed-")[1].split("/")[0]))
    reports = [json.load(open(p, encoding="utf-8")) for p in runs]
    seeds = [p.split("seed-")[1].split("/")[0] for p in runs]
    print(f"\n{os.path.basename(study)}: mean Spearman difference to the best single input (training side), seeds {', '.join(seeds)}\n")
    print("| method | " + " | ".join(f"seed {s}" for s in seeds)
          + " | mean over seeds | splits lost (all seeds) | of which warned | lost beyond noise | of which warned |")
    print("|---|" + "---|" * (len(seeds) + 5))
    for k, m in enumerate(reports[0]["summary"]):
        if m["group"] not in ("fusion", "shrunk", "best-single"):
            continue
        diffs = [r["summary"][k]["mean_vs_best_single"] for r in reports]
        count = lambda field: sum(len(r["summary"][k][field]) for r in reports)
        cells = " | ".join(f"{d:+.3f}" for d in diffs)
        print(f"| {m['method']} | {cells} | {sum(diffs) / len(diffs):+.3f} | {count('lost')} | "
              f"{count('lost_with_warning')} | {count('lost_beyond_noise')} | {count('lost_beyond_noise_with_warning')} |")
    best = [s["best_single"] for s in reports[0]["splits"]]
    means = [r["summary"][k]["mean"] for r in reports for k, m in enumerate(r["summary"]) if m["group"] == "best-single"]
    print(f"\nbest single input (training side) per held-out group: {', '.join(best)}; its mean Spearman {means[0]:.3f}")
    fired = [s["held_out"] for s in reports[0]["splits"] if s["shift"]["warned"]]
    print(f"shift warning on: {', '.join(fired) if fired else 'no held-out group'}")
