#!/usr/bin/env bash
# Installs cargo-fuzz (pinned) when `cargo fuzz` is missing; the fuzz targets in fuzz/ need it and
# a nightly toolchain (`rustup toolchain install nightly`). Idempotent.
set -euo pipefail
CARGO_FUZZ_VERSION=0.13.2

if cargo fuzz --version >/dev/null 2>&1; then
    exit 0
fi
cargo install --locked cargo-fuzz --version "$CARGO_FUZZ_VERSION"
