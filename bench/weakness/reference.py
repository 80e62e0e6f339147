"""Weakness analysis at scale: the data, the reference analysis, and the comparison.

  reference.py generate OUT.csv N        N scored rows, 4 systems, 3 strata dimensions
  reference.py analyse SCORES.csv DIR B  marginal and bivariate analysis with pandas, scipy
                                         (mannwhitneyu, method="auto") and statsmodels
                                         (multipletests fdr_bh), B bootstrap resamples
  reference.py compare REF_DIR OURS_DIR  largest differences, row by row

The analysis is the one ragjudge's `weakness` documents: per system and stratum, the stratum
against the system's other rows of that dimension (and per pair of dimensions, each cell
against the system's other cells); every test of the metric in one Benjamini-Hochberg family.
"""
import sys
import time

import numpy as np
import pandas as pd

DIMS = ["topic", "query_type", "difficulty"]
SYSTEMS = ["oracle", "partial", "abstain", "wrong"]
MIN_N = 5
ALPHA = 0.05


def generate(path, n):
    rng = np.random.default_rng(7)
    topics = np.array([f"topic{i:02d}" for i in range(20)])
    kinds = np.array(["factoid", "definition", "comparison", "multi-hop", "unanswerable", "procedural"])
    levels = np.array(["easy", "medium", "hard"])
    system = np.array(SYSTEMS)[np.arange(n) % len(SYSTEMS)]
    topic = topics[rng.integers(0, len(topics), n)]
    kind = kinds[rng.integers(0, len(kinds), n)]
    level = levels[rng.integers(0, len(levels), n)]
    base = {"oracle": 0.85, "partial": 0.6, "abstain": 0.3, "wrong": 0.2}
    mean = np.vectorize(base.get)(system) - 0.05 * (level == "hard")
    # Planted weakness: `partial` fails on multi-hop questions about topic07.
    mean = np.where((system == "partial") & (topic == "topic07") & (kind == "multi-hop"), 0.2, mean)
    score = np.clip(rng.normal(mean, 0.15), 0.0, 1.0).round(3)
    # One row in a thousand has no difficulty: left out of that dimension, counted.
    level = np.where(rng.random(n) < 0.001, "", level)
    pd.DataFrame(
        {"id": [f"q{i}" for i in range(n)], "system": system, "topic": topic, "query_type": kind,
         "difficulty": level, "score": score}
    ).to_csv(path, index=False)


def percentile_ci(x, b, rng):
    stats = np.empty(b)
    chunk = max(1, 20_000_000 // max(len(x), 1))
    for start in range(0, b, chunk):
        k = min(chunk, b - start)
        idx = rng.integers(0, len(x), size=(k, len(x)))
        stats[start:start + k] = x[idx].mean(axis=1)
    return np.percentile(stats, [2.5, 97.5])


def analyse(path, out, b):
    from scipy.stats import mannwhitneyu
    from statsmodels.stats.multitest import multipletests

    t0 = time.perf_counter()
    df = pd.read_csv(path, dtype={d: "string" for d in DIMS})
    rng = np.random.default_rng(0)
    rows = []
    for system, g in df.groupby("system", sort=False):
        for dim in DIMS:
            sub = g[g[dim].notna()]
            vals = sub["score"].to_numpy()
            for level, idx in sorted(sub.groupby(dim).indices.items()):
                rows.append(test(system, dim, level, "", "", vals, idx, b, rng, mannwhitneyu))
        for i, a in enumerate(DIMS):
            for bdim in DIMS[i + 1:]:
                sub = g[g[a].notna() & g[bdim].notna()]
                vals = sub["score"].to_numpy()
                for (x, y), idx in sorted(sub.groupby([a, bdim]).indices.items()):
                    rows.append(test(system, a, x, bdim, y, vals, idx, 0, rng, mannwhitneyu))
    res = pd.DataFrame(rows)
    tested = res["p_value"].notna()
    res.loc[tested, "p_adjusted"] = multipletests(res.loc[tested, "p_value"], method="fdr_bh")[1]
    res["significant"] = res["p_adjusted"] < ALPHA
    res[res["dimension_b"] == ""].drop(columns=["dimension_b", "stratum_b"]).to_csv(f"{out}/marginal.csv", index=False)
    res[res["dimension_b"] != ""].drop(columns=["ci_low", "ci_high"]).to_csv(f"{out}/bivariate.csv", index=False)
    print(f"reference analysis: {len(res)} slices and cells in {time.perf_counter() - t0:.1f} s")


def test(system, dim, level, dim_b, level_b, vals, idx, b, rng, mannwhitneyu):
    x = vals[idx]
    mask = np.ones(len(vals), bool)
    mask[idx] = False
    y = vals[mask]
    row = {"system": system, "dimension": dim, "stratum": level, "dimension_b": dim_b, "stratum_b": level_b,
           "n": len(x), "mean": x.mean(), "rest_n": len(y), "rest_mean": y.mean() if len(y) else np.nan,
           "p_value": np.nan}
    if len(x) >= MIN_N and len(y) > 0:
        row["p_value"] = mannwhitneyu(x, y, alternative="two-sided", method="auto").pvalue
    if b:
        row["ci_low"], row["ci_high"] = percentile_ci(x, b, rng)
    return row


def compare(ref_dir, ours_dir):
    for name, keys in [("marginal", ["system", "dimension", "stratum"]),
                       ("bivariate", ["system", "dimension", "stratum", "dimension_b", "stratum_b"])]:
        ref = pd.read_csv(f"{ref_dir}/{name}.csv", dtype=str, keep_default_na=False)
        ours = pd.read_csv(f"{ours_dir}/{name}.csv", dtype=str, keep_default_na=False)
        if name == "bivariate":
            ours = ours.rename(columns={"dimension_a": "dimension", "stratum_a": "stratum"})
        m = ref.merge(ours, on=keys, how="outer", suffixes=("_ref", "_ours"), indicator=True)
        unmatched = int((m["_merge"] != "both").sum())
        m = m[m["_merge"] == "both"]
        num = lambda c: pd.to_numeric(m[c].replace("", np.nan))
        print(f"{name}: {len(m)} rows matched, {unmatched} unmatched")
        print(f"  n equal: {(num('n_ref') == num('n_ours')).all()}")
        for col in ["mean", "rest_mean"]:
            print(f"  largest |{col} difference|: {np.nanmax(np.abs(num(col + '_ref') - num(col + '_ours'))):.2e}")
        p_ref, p_ours = num("p_value_ref"), num("p_value_ours")
        both = p_ref.notna() & p_ours.notna() & (p_ref > 1e-300)
        rel = (np.abs(p_ref - p_ours) / p_ref)[both]
        print(f"  p-values: {int(both.sum())} compared (p > 1e-300), largest relative difference {rel.max():.2e}; "
              f"tested by one only: {int((p_ref.notna() != p_ours.notna()).sum())}")
        sig = (m["significant_ref"].str.lower() == "true") == (m["significant_ours"].str.lower() == "true")
        print(f"  same significance decision: {int(sig.sum())} of {len(m)}")
        if name == "marginal":
            for end in ["ci_low", "ci_high"]:
                d = np.abs(num(end + "_ref") - num(end + "_ours"))
                print(f"  largest |{end} difference| (independent bootstrap draws): {np.nanmax(d):.2e}")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "generate":
        generate(sys.argv[2], int(sys.argv[3]))
    elif cmd == "analyse":
        analyse(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif cmd == "compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
