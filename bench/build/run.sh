#!/usr/bin/env bash
# What the release profile's unoptimised dependencies cost at run time. To keep the first build
# under ten minutes on 2 cores, Cargo.toml compiles Arrow, Parquet and tantivy at opt-level 0
# and SQLite at 1 in `--release` builds; `--profile dist` (shipped binaries) restores 3. This
# runs the same code built both ways, side by side:
#   parquet-retrieval  `ragjudge score` of N records (default 200,000: the bundled example
#                      records cycled) from Parquet to Parquet with the cheap `retrieval` metrics,
#                      so reading and writing dominate;
#   parquet-lexical    the same with `lexical` (ROUGE, BLEU, chrF, ...);
#   bm25-index         the built-in RAG's BM25 index over 20,000 passages
#                      (crates/ragjudge-collect/examples/bm25_bench.rs);
#   bm25-search        2,000 searches of it for the best 20.
# The opt-level-3 build goes to target/opt3 (`--config` overrides of the release profile, the
# packages read from Cargo.toml's `[profile.dist.package.*]`), a full build the first time.
# Needs python3 with pyarrow (to write the Parquet input).
#
#   bash bench/build/run.sh [N]
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-200000}"
out=bench/out/build
mkdir -p "$out"

mapfile -t overrides < <(python3 -c '
import tomllib
for name in tomllib.load(open("Cargo.toml", "rb"))["profile"]["dist"].get("package", {}):
    print(f"--config=profile.release.package.{name}.opt-level=3")')
build() { # TARGET_DIR [CARGO_ARGS...]
    local dir="$1"
    shift
    CARGO_TARGET_DIR="$dir" cargo build --release -q -p ragjudge-cli "$@"
    CARGO_TARGET_DIR="$dir" cargo build --release -q -p ragjudge-collect --example bm25_bench "$@"
}
echo "building: release, then release with ${#overrides[@]} packages at opt-level 3 (target/opt3)" >&2
build target
build target/opt3 "${overrides[@]}"

input="$out/records_$n.parquet"
if [ ! -s "$input" ]; then
    python3 bench/example_records.py "$n" "$input"
fi

seconds() { # COMMAND...: wall seconds, best of 3
    local best=""
    for _ in 1 2 3; do
        local t0 t1
        t0=$(date +%s.%N)
        "$@" > /dev/null
        t1=$(date +%s.%N)
        best=$(python3 -c "print(min(x for x in [$t1 - $t0, ${best:-1e9}]))")
    done
    printf '%.3f' "$best"
}
declare -A t
for v in release opt3; do
    dir=target
    [ "$v" = opt3 ] && dir=target/opt3
    for m in retrieval lexical; do
        t[$v,parquet-$m]=$(seconds "$dir/release/ragjudge" score --input "$input" --output "$out/scores_$v.parquet" --metrics "$m")
    done
    read -r _ index _ search < <("$dir/release/examples/bm25_bench")
    t[$v,bm25-index]=$(python3 -c "print($index / 1e3)")
    t[$v,bm25-search]=$(python3 -c "print($search / 1e3)")
done
printf '%-18s %12s %12s %8s\n' step "release (s)" "opt3 (s)" ratio
for k in parquet-retrieval parquet-lexical bm25-index bm25-search; do
    python3 -c "r, o = ${t[release,$k]}, ${t[opt3,$k]}; print(f'%-18s %12.3f %12.3f %8.2f' % ('$k', r, o, r / o))"
done
