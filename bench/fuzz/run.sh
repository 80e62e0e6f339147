#!/usr/bin/env bash
# Fuzzes every input reader (the targets in fuzz/fuzz_targets) with cargo fuzz (libFuzzer) and
# prints per target: executions, corpus size and crashes found (inputs in fuzz/artifacts/TARGET).
#
#   bash bench/fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]   (default 120 s each, all targets)
#   bash bench/fuzz/run.sh --smoke                             (60 s of fuzzing in all, for CI)
#
# The smoke builds the fuzz crate without its `full` feature, so only the light readers (every
# target without `required-features` in fuzz/Cargo.toml: records but Parquet, TREC files, labels,
# calibrators), in a few minutes; the other runs build every target.
#
# Needs a nightly toolchain (`rustup toolchain install nightly`); installs cargo-fuzz if missing.
# The targets are built once, without a sanitizer (the library forbids unsafe code; set
# FUZZ_SANITIZER=address to check the dependencies' unsafe code too, about three times slower).
# Exits non-zero if any target crashed, hung (10 s per input) or ran out of memory (2 GiB).
set -euo pipefail
cd "$(dirname "$0")/../.."
# The fuzz crate is built by nightly rustc: a workspace wrapper of the stable toolchain (CI's
# clippy-driver) does not apply.
unset RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS

smoke=false
if [ "${1:-}" = "--smoke" ]; then
    smoke=true
    shift
fi
targets=()
seconds=120
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then
    seconds="$1"
    shift
fi
features=()
if [ $# -gt 0 ]; then
    targets=("$@")
elif $smoke; then
    features=(--no-default-features)
    mapfile -t targets < <(python3 -c '
import tomllib
bins = tomllib.load(open("fuzz/Cargo.toml", "rb"))["bin"]
print("\n".join(b["name"] for b in bins if not b.get("required-features")))')
else
    mapfile -t targets < <(ls fuzz/fuzz_targets | sed 's/\.rs$//')
fi
if $smoke; then
    seconds=$(( 60 / ${#targets[@]} ))
    [ "$seconds" -ge 1 ] || seconds=1
fi
sanitizer="${FUZZ_SANITIZER:-none}"

bash scripts/install-cargo-fuzz.sh
bash bench/fuzz/seeds.sh
start=$(date +%s)
cargo +nightly fuzz build --fuzz-dir fuzz -s "$sanitizer" "${features[@]}"
echo "built in $(( $(date +%s) - start )) s" >&2
start=$(date +%s)

bin="fuzz/target/$(rustc +nightly -vV | sed -n 's/^host: //p')/release"
logs="$(mktemp -d)"
# Readers that take a path read a scratch file per input: in memory where possible, removed at the end.
scratch_parent=/tmp
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
    scratch_parent=/dev/shm
fi
scratch="$(mktemp -d -p "$scratch_parent" ragjudge-fuzz.XXXXXX)"
trap 'rm -rf "$logs" "$scratch"' EXIT
export TMPDIR="$scratch"
failed=0
rows=()
for t in "${targets[@]}"; do
    mkdir -p "fuzz/artifacts/$t"
    before=$(ls "fuzz/artifacts/$t" | wc -l)
    status=ok
    # The binary cargo fuzz run would start, without its per-target cargo start-up.
    "$bin/$t" "fuzz/corpus/$t" -artifact_prefix="fuzz/artifacts/$t/" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        > "$logs/$t.log" 2>&1 || status=failed
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$logs/$t.log" | grep -o '[0-9]*$' | tail -n 1)
    corpus=$(ls "fuzz/corpus/$t" | wc -l)
    found=$(( $(ls "fuzz/artifacts/$t" | wc -l) - before ))
    if [ "$status" = failed ] || [ "$found" -gt 0 ]; then
        failed=1
        echo "== $t: $(grep -m1 -E 'panicked|ERROR: libFuzzer|SUMMARY' "$logs/$t.log" || echo "exited non-zero")" >&2
        tail -n 30 "$logs/$t.log" >&2
    fi
    rows+=("$(printf '%-20s %12s %8s %8s' "$t" "${execs:-?}" "$corpus" "$found")")
done

printf '%-20s %12s %8s %8s\n' target executions corpus crashes
printf '%s\n' "${rows[@]}"
echo "fuzzing: $(( $(date +%s) - start )) s in all (build not counted), ${seconds} s per target (sanitizer: $sanitizer)"
if [ "$failed" -ne 0 ]; then
    echo "crashes found: inputs in fuzz/artifacts/TARGET; reproduce with cargo +nightly fuzz run --fuzz-dir fuzz -s $sanitizer TARGET FILE" >&2
    exit 1
fi
