#!/usr/bin/env bash
# Test generation at scale: a made-up collection of 10,000 one-chunk documents on 20 themes
# (fixed seed) is read, chunked, embedded (MiniLM), reduced (PCA), clustered (k-means with k by
# silhouette over 2..24) and sampled by `ragjudge testgen --dry-run`, which also prints the
# generation cost of the sample; reports wall time and peak memory, then the cost for three sample
# sizes to show it is linear.
#
#   cargo build --release -p ragjudge-cli && bash bench/testgen/run.sh [BINARY] [DOCUMENTS]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${1:-./target/release/ragjudge}"
docs="${2:-10000}"
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (apt-get install time)" >&2; exit 1; }
out=bench/out/testgen
mkdir -p "$out"
python3 - "$out/corpus.jsonl" "$docs" <<'PY'
import json, random, sys
rng = random.Random(0)
themes = [
    "volcano lava magma eruption crater ash basalt",
    "ocean tide current salt wave reef coral",
    "forest tree leaf fungus canopy bark root",
    "battery lithium cell anode cathode charge voltage",
    "network packet router protocol latency bandwidth socket",
    "inflation price interest bank currency rate money",
    "vaccine immune antibody virus infection cell disease",
    "planet orbit moon star telescope gravity comet",
    "rust ownership borrow compiler lifetime memory trait",
    "revolution king parliament war treaty empire law",
    "river delta flood sediment dam basin water",
    "desert dune cactus heat sand drought oasis",
    "glacier ice snow melt crevasse moraine cold",
    "printing press type paper ink book scribe",
    "engine piston fuel combustion cylinder torque gear",
    "bird wing feather nest migration song egg",
    "music rhythm melody chord harmony scale tempo",
    "football goal player match league referee pitch",
    "bread flour yeast dough oven crust bake",
    "chess pawn bishop knight rook castle gambit",
]
common = "the a of and in is to it was for on with as by at from that this".split()
with open(sys.argv[1], "w") as f:
    for i in range(int(sys.argv[2])):
        words = themes[i % len(themes)].split()
        sents = []
        for _ in range(3):
            w = [rng.choice(words if rng.random() < 0.6 else common) for _ in range(rng.randint(8, 14))]
            sents.append(" ".join(w).capitalize() + ".")
        f.write(json.dumps({"id": f"doc{i}", "text": " ".join(sents)}) + "\n")
PY
run() {
    /usr/bin/time -v "$bin" testgen --corpus "$out/corpus.jsonl" -o "$out/questions.jsonl" --dry-run \
        --max-topics 24 "$@" > "$out/plan.json" 2> "$out/time.log" || { cat "$out/time.log" >&2; exit 1; }
}
run --sample 200
grep -E "documents|Elapsed|Maximum resident" "$out/time.log"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('topics', len(d['topics']), 'calls', d['calls'])" "$out/plan.json"
for n in 100 200 400; do
    run --sample "$n"
    python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['calls']; print('sample', sys.argv[2], 'tasks', c['tasks'], 'prompt tokens', c['generation_prompt_tokens'])" "$out/plan.json" "$n"
done
