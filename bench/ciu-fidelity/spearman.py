#!/usr/bin/env python3
"""Spearman correlation of the CIU ablation columns with human ratings, as Markdown tables.

Usage: spearman.py SCORES.csv RATINGS.csv

SCORES.csv is written by the `ciu_ablation` example (`id` plus one column per variant);
RATINGS.csv has `id`, `system`, `overall` and `groundedness` (USR's "Uses Knowledge"). Rows are
joined on `id`. Confidence intervals: 95% percentile bootstrap over records (1000 resamples,
seed 20240607), the same resamples for every column, so differences are paired.

Pinned versions: scipy 1.17.1, numpy 2.4.6 (installed with pip when missing).
"""

import csv
import subprocess
import sys

PINS = {"scipy": "1.17.1", "numpy": "2.4.6"}


def ensure_pins():
    """Imports scipy and numpy at the pinned versions, installing them with pip when missing."""
    try:
        import numpy
        import scipy

        if numpy.__version__ == PINS["numpy"] and scipy.__version__ == PINS["scipy"]:
            return
    except ImportError:
        pass
    subprocess.check_call(
        [sys.executable, "-m", "pip", "install", "--quiet"] + [f"{k}=={v}" for k, v in PINS.items()]
    )


ensure_pins()

import numpy as np  # noqa: E402
from scipy.stats import spearmanr  # noqa: E402

SEED = 20240607
RESAMPLES = 1000
RATINGS = [("overall", "Overall"), ("groundedness", "Uses Knowledge")]

# Columns that describe the records rather than score them.
DIAGNOSTICS = ["answer_chars", "answer_words", "gain", "effort", "mean_gamma", "mean_freq"]
# Rows that get a bootstrap CI, and the variants compared with the count.
KEY = [
    "ciu",
    "ciu_history_only",
    "ciu_no_position",
    "ciu_no_frequency",
    "ciu_no_effort",
    "ciu_all_off",
    "ciu_position_only",
    "ciu_effort_only",
    "ciu_rake_third",
    "ciu_stem",
    "count",
    "bleu",
    "rouge_l",
]
GROUPS = [
    ("full metric", ["ciu", "ciu_history_only"]),
    ("discounts", ["ciu_no_position", "ciu_no_frequency", "ciu_no_effort", "ciu_all_off",
                   "ciu_position_only", "ciu_frequency_only", "ciu_effort_only"]),
    ("RAKE selection", ["ciu_rake_third", "ciu_rake_top3", "ciu_rake_top5", "ciu_rake_top10",
                        "ciu_rake_third_all_off"]),
    ("d_sent reading", ["ciu_dsent_sentences", "ciu_per_unit"]),
    ("C_char", ["ciu_c0", "ciu_c0.001", "ciu_c0.0025", "ciu_c0.005", "ciu_c0.01"]),
    ("tokenisation", ["ciu_stem", "ciu_stem_all_off", "count_stem"]),
    ("overlap count", ["count", "count_recall", "count_precision", "count_f1", "count_per_100_chars"]),
    ("baselines", ["bleu", "rouge_l"]),
    ("diagnostics", DIAGNOSTICS),
]


def load(scores_path, ratings_path):
    with open(scores_path, newline="") as f:
        rows = list(csv.DictReader(f))
    with open(ratings_path, newline="") as f:
        ratings = {r["id"]: r for r in csv.DictReader(f)}
    missing = [r["id"] for r in rows if r["id"] not in ratings]
    if missing:
        sys.exit(f"spearman.py: {len(missing)} scored ids have no rating, e.g. {missing[0]}")
    cols = [c for c in rows[0] if c != "id"]
    x = {c: np.array([float(r[c]) for r in rows]) for c in cols}
    y = {k: np.array([float(ratings[r["id"]][k]) for r in rows]) for k, _ in RATINGS}
    systems = np.array([ratings[r["id"]]["system"] for r in rows])
    return cols, x, y, systems


def rho(a, b):
    return spearmanr(a, b).statistic


def bootstrap(cols, x, y):
    """rho of every column with every rating on each resample: {(col, rating): array}."""
    n = len(next(iter(y.values())))
    rng = np.random.default_rng(SEED)
    out = {(c, k): np.empty(RESAMPLES) for c in cols for k, _ in RATINGS}
    names = [k for k, _ in RATINGS]
    for b in range(RESAMPLES):
        idx = rng.integers(0, n, n)
        m = np.column_stack([x[c][idx] for c in cols] + [y[k][idx] for k in names])
        corr = np.atleast_2d(spearmanr(m).statistic)
        for i, c in enumerate(cols):
            for j, k in enumerate(names):
                out[(c, k)][b] = corr[i, len(cols) + j]
    return out


def ci(samples):
    lo, hi = np.nanpercentile(samples, [2.5, 97.5])
    return f"[{lo:.3f}, {hi:.3f}]"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: spearman.py SCORES.csv RATINGS.csv")
    cols, x, y, systems = load(sys.argv[1], sys.argv[2])
    n = len(systems)
    print(f"Records: {n}. Spearman rho with the ratings; 95% CIs: bootstrap over records, "
          f"{RESAMPLES} resamples, seed {SEED}.\n")

    listed = [c for _, g in GROUPS for c in g]
    groups = GROUPS + [("other", [c for c in cols if c not in listed])]
    print("## Ablation\n")
    print("| group | column | Overall | Uses Knowledge |")
    print("|---|---|---:|---:|")
    for name, group in groups:
        for c in group:
            if c in x:
                print(f"| {name} | `{c}` | {rho(x[c], y['overall']):.3f} | {rho(x[c], y['groundedness']):.3f} |")

    boot = bootstrap([c for c in KEY if c in x], x, y)
    print("\n## Key rows with 95% CIs\n")
    print("| column | Overall | Uses Knowledge |")
    print("|---|---|---|")
    for c in KEY:
        if c in x:
            cells = [f"{rho(x[c], y[k]):.3f} {ci(boot[(c, k)])}" for k, _ in RATINGS]
            print(f"| `{c}` | {cells[0]} | {cells[1]} |")

    print("\n## Paired differences with 95% CIs\n")
    print("| difference | Overall | Uses Knowledge |")
    print("|---|---|---|")
    pairs = [(c, "count") for c in KEY if c not in ("count",)] + [("ciu", "ciu_history_only")]
    for a, b in pairs:
        if a in x and b in x:
            cells = []
            for k, _ in RATINGS:
                d = rho(x[a], y[k]) - rho(x[b], y[k])
                cells.append(f"{d:+.3f} {ci(boot[(a, k)] - boot[(b, k)])}")
            print(f"| `{a}` - `{b}` | {cells[0]} | {cells[1]} |")

    print("\n## Per system (means)\n")
    print("| system | n | Overall | Uses Knowledge | answer chars | count | gain | effort "
          "| mean gamma of matches | rho(chars, Overall) in system |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for s in sorted(set(systems), key=lambda s: -y["overall"][systems == s].mean()):
        m = systems == s
        matched = m & (x["count"] > 0)
        print(f"| {s} | {m.sum()} | {y['overall'][m].mean():.2f} | {y['groundedness'][m].mean():.2f} "
              f"| {x['answer_chars'][m].mean():.0f} | {x['count'][m].mean():.2f} | {x['gain'][m].mean():.2f} "
              f"| {x['effort'][m].mean():.2f} | {x['mean_gamma'][matched].mean():.2f} "
              f"| {rho(x['answer_chars'][m], y['overall'][m]):.2f} |")

    print("\n## Component evidence\n")
    has = x["count"] > 0
    print(f"- records with at least one matched d_sent word: {has.sum()} of {n}")
    print(f"- mean gamma of the matched words (records with a match): {x['mean_gamma'][has].mean():.3f}")
    print(f"- mean count {x['count'].mean():.2f}, mean gain (all discounts) {x['gain'].mean():.2f}, "
          f"mean effort {x['effort'].mean():.2f}")
    print(f"- standard deviation: count {x['count'].std():.2f}, gain {x['gain'].std():.2f}, "
          f"effort {x['effort'].std():.2f}")
    for k, label in RATINGS:
        print(f"- {label}: rho(answer chars) = {rho(x['answer_chars'], y[k]):.3f}; among records with a "
              f"match, rho(mean gamma) = {rho(x['mean_gamma'][has], y[k][has]):.3f}, "
              f"rho(count) = {rho(x['count'][has], y[k][has]):.3f}")
    print(f"- rho(ciu, gain) = {rho(x['ciu'], x['gain']):.3f}, rho(ciu, -effort) = {rho(x['ciu'], -x['effort']):.3f}")


if __name__ == "__main__":
    main()
