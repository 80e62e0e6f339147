#!/usr/bin/env bash
# Builds the Python package into a fresh virtual environment and runs its tests (pytest).
#
# The wheel is built with cargo's `dev` profile into the repository's target directory (or
# $CARGO_TARGET_DIR), so it reuses the dependencies `cargo test --workspace` compiled there.
# RAGJUDGE_VENV names the environment (default target/python-venv; recreated every run).
set -euo pipefail
# CI lints the workspace's build through clippy-driver (.ci/run); the wheel is built by rustc.
unset RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${RAGJUDGE_VENV:-$root/target/python-venv}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
rm -rf "$venv"
python3 -m venv "$venv"
export PATH="$venv/bin:$PATH"   # the build backend runs the `maturin` binary
"$venv/bin/python" -m pip install -q --disable-pip-version-check \
    maturin==1.16.0 pytest==9.2.0 pandas==2.3.3 mypy==2.4.1 pyarrow==24.0.0 "ray[data]==2.60.0"
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation "$root/python"
# From the repository root, so that `import ragjudge` finds the installed package, not python/ragjudge.
cd "$root"
"$venv/bin/pytest" -q python/tests
