#!/usr/bin/env bash
# Report at scale: a 10,000-record score file (4 systems, 6 metrics) and a 64-system round-robin
# tournament (2,016 matches, 8,064 traces), made up with a fixed seed, rendered by `ragjudge
# report`; prints wall time, peak memory and the size of the HTML.
#
#   cargo build --release -p ragjudge-cli && bash bench/report/run.sh [BINARY]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${1:-./target/release/ragjudge}"
out=bench/out/report
mkdir -p "$out/tournament"
python3 - "$out" <<'PY'
import json, random, sys, os
out = sys.argv[1]
rng = random.Random(0)
with open(os.path.join(out, "scores.csv"), "w") as f:
    metrics = ["rougeL_f", "bleu", "ciu", "hcat_ragas_like", "mrr", "squad_f1"]
    f.write("id,system," + ",".join(metrics) + "\n")
    for i in range(10_000):
        s = i % 4
        f.write(f"q{i // 4},sys{s}," + ",".join(f"{min(1, max(0, rng.gauss(0.3 + 0.1 * s, 0.2))):.4f}" for _ in metrics) + "\n")
n = 64
strength = [1.5 - 3 * i / (n - 1) for i in range(n)]
systems, matches, traces = [], [], []
for i in range(n):
    for j in range(i + 1, n):
        p = 1 / (1 + 2.718281828 ** (strength[j] - strength[i]))
        matches.append({"round": 0, "a": f"s{i}", "b": f"s{j}", "s_a": round(p, 4), "elo_a": 1000, "elo_b": 1000})
        for q in range(2):
            for order in ("ab", "ba"):
                probs = {"a": round(p * 0.9, 4), "b": round((1 - p) * 0.9, 4), "tie": 0.1}
                traces.append({"question_id": f"q{q}", "system_a": f"s{i}", "system_b": f"s{j}", "order": order,
                               "prompt_version": "dice-en-v2", "lang": "en", "judge": "synthetic", "reference_free": False,
                               "reasoning": "", "category_a": None, "category_b": None, "category_a_raw": None,
                               "category_b_raw": None, "label_probs": [0.5, 0.4, 0.1], "label_logits": [0, 0, 0],
                               "probs": probs, "label_mass": 0.9, "source": "logits", "bias_applied": False, "prior": None,
                               "corrected": None, "pair_probs": probs, "order_consistent": True})
for r, i in enumerate(range(n)):
    systems.append({"system": f"s{i}", "rank": r + 1, "elo": 1000 + 100 * strength[i], "bt": strength[i],
                    "bt_ci_low": strength[i] - 0.3, "bt_ci_high": strength[i] + 0.3, "wins": n - 1 - i, "ties": 0,
                    "losses": i, "matches": n - 1})
report = {"systems": systems, "rank_by": "bt", "judge_calls": len(traces), "round_robin_calls": len(traces),
          "failed": 0, "failures": [], "matches": matches, "judge": "synthetic", "usage": None, "label_prior": None,
          "trust": {"pairs": len(traces) // 2, "orders": len(traces), "order_consistency": 1.0, "first_position_rate": 0.5,
                    "tie_rate": 0.0, "label_mass": None, "margin": None, "margin_histogram": [0, 100, 500, 1416],
                    "hard_rate": 1.0, "length_agreement": None, "length_pairs": 0, "warnings": []}}
json.dump(report, open(os.path.join(out, "tournament", "leaderboard.json"), "w"))
with open(os.path.join(out, "tournament", "traces.jsonl"), "w") as f:
    for t in traces:
        f.write(json.dumps(t) + "\n")
PY
/usr/bin/time -f "wall %e s, peak RSS %M KiB" "$bin" report "$out/tournament" "$out/scores.csv" --output "$out/report.html"
ls -l "$out/report.html" | awk '{printf "report.html: %.2f MB\n", $5 / 1e6}'
