#!/usr/bin/env bash
# The conversation metric on its hand-made checks: how well `conv_contradiction` ranks
# contradicting statements above consistent ones, and `conv_retention` ranks forgetting replies
# below attentive ones (ROC AUC, Mann-Whitney form), with the judge given (default: the embedded
# one).
#
#   bash bench/conversation/run.sh [--judge SPEC]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=bench/out/conversation
mkdir -p "$out"
python3 bench/conversation/make_checks.py
cargo build --release -q -p ragjudge-cli
for check in contradiction retention; do
    target/release/ragjudge score -i "bench/conversation/$check.jsonl" --metrics conversation "$@" \
        -o "$out/$check.scores.jsonl" >/dev/null
done
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
def auc(pos, neg):
    # P(a positive ranks above a negative), ties half.
    pairs = [(p > n) + 0.5 * (p == n) for p in pos for n in neg]
    return sum(pairs) / len(pairs)
for check, column, positive_high in [("contradiction", "conv_contradiction", True),
                                     ("retention", "conv_retention", False)]:
    labels = {json.loads(l)["id"]: json.loads(l)["meta"]["label"] for l in open(f"bench/conversation/{check}.jsonl")}
    rows = [json.loads(l) for l in open(f"{out}/{check}.scores.jsonl")]
    pos = [r[column] for r in rows if labels[r["id"]] == 1]
    neg = [r[column] for r in rows if labels[r["id"]] == 0]
    a = auc(pos, neg) if positive_high else auc(neg, pos)
    print(f"{column}: AUC {a:.3f} on {len(pos)} + {len(neg)} items; "
          f"positives {min(pos):.3f}..{max(pos):.3f}, negatives {min(neg):.3f}..{max(neg):.3f}")
PY
