#!/usr/bin/env bash
# `ragjudge weakness` over N scored rows (default 1,000,000) with 3 strata dimensions, beside the
# same analysis in pandas + scipy 1.17.1 + statsmodels 0.15.0 (bench/weakness/reference.py):
# wall time, peak resident memory, their ratios, and the largest differences row by row.
# Usage: bash bench/weakness/run.sh [N] [BOOTSTRAP]
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-1000000}"
b="${2:-1000}"
out=bench/out/weakness
venv=bench/.venv
mkdir -p "$out"
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (apt-get install time)" >&2; exit 1; }
if ! "$venv/bin/python" -c "import scipy, statsmodels, pandas" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet scipy==1.17.1 statsmodels==0.15.0 pandas==2.3.3
fi
cargo build --release -q -p ragjudge-cli
scores="$out/scores_$n.csv"
[ -s "$scores" ] || "$venv/bin/python" bench/weakness/reference.py generate "$scores" "$n"
echo "input: $n rows, $(du -h "$scores" | cut -f1)"

measure() { # NAME COMMAND...: wall seconds and peak RSS (MiB) into $out/NAME.time
    local name=$1; shift
    /usr/bin/time -f "%e %M" -o "$out/$name.time" "$@" > "$out/$name.log" 2>&1 || { cat "$out/$name.log"; exit 1; }
    read -r wall kb < "$out/$name.time"
    echo "$name: $wall s, peak RSS $((kb / 1024)) MiB"
}
rm -rf "$out/ours" "$out/ref" && mkdir -p "$out/ref"
measure ragjudge target/release/ragjudge weakness --scores "$scores" --by topic,query_type,difficulty \
    --metric score --bootstrap "$b" --output "$out/ours"
measure reference "$venv/bin/python" bench/weakness/reference.py analyse "$scores" "$out/ref" "$b"
head -4 "$out/ragjudge.log"
read -r rw rk < "$out/ragjudge.time"
read -r pw pk < "$out/reference.time"
python3 -c "print(f'ratio reference / ragjudge: time {$pw / $rw:.1f}x, peak memory {$pk / $rk:.1f}x')"
"$venv/bin/python" bench/weakness/reference.py compare "$out/ref" "$out/ours"
