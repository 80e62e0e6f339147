#!/usr/bin/env bash
# Installs what the fuzz targets in fuzz/ need when it is missing: a nightly toolchain and
# cargo-fuzz (pinned). Idempotent.
set -euo pipefail
CARGO_FUZZ_VERSION=0.13.2

if ! rustc +nightly --version >/dev/null 2>&1; then
    rustup toolchain install nightly --profile minimal
fi
if cargo fuzz --version >/dev/null 2>&1; then
    exit 0
fi
cargo install --locked cargo-fuzz --version "$CARGO_FUZZ_VERSION"
