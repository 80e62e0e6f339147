#!/usr/bin/env bash
# Installs what ragjudge needs on a fresh Debian machine with a Rust toolchain. Idempotent.
set -euo pipefail

need_apt=()
# cmake + libclang-dev build llama.cpp (crate llama-cpp-2); pip fetches the model packages.
# chromium + chromium-driver: the annotation page's browser test (crates/ragjudge-cli/tests/annotate.rs);
# fonts-wqy-microhei: Chinese text in reports looked at in headless Chromium (charts embed their own).
for pkg in pkg-config cmake libclang-dev chromium chromium-driver fonts-wqy-microhei; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
python3 -m pip --version >/dev/null 2>&1 || need_apt+=(python3-pip)
# python3-venv: python/test.sh builds the Python package into a fresh virtual environment.
python3 -c 'import ensurepip' >/dev/null 2>&1 || need_apt+=(python3-venv)
if [ ${#need_apt[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq "${need_apt[@]}"
fi

command -v cargo >/dev/null || { echo "setup: cargo not found; install Rust (rustup) first" >&2; exit 1; }
# clippy and rustfmt: CI's lint step (.ci/run).
for component in clippy rustfmt; do
    cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1 || rustup component add "$component"
done
export RAGJUDGE_HOME="${RAGJUDGE_HOME:-$HOME/.cache/ragjudge}"
mkdir -p "$RAGJUDGE_HOME"

# selenium (pinned) drives the annotation page in headless Chromium (crates/ragjudge-cli/tests/annotate.rs).
if ! python3 -c "import selenium" >/dev/null 2>&1; then
    python3 -m pip install -q selenium==4.38.0 2>/dev/null || python3 -m pip install -q --break-system-packages selenium==4.38.0
fi

# The OpenTelemetry SDK, its OTLP/HTTP exporter and OpenInference's attribute names (pinned):
# the instrumented client of the trace test (crates/ragjudge-cli/tests/traces.rs).
if ! python3 -c "import opentelemetry.sdk, opentelemetry.exporter.otlp.proto.http, openinference.semconv" >/dev/null 2>&1; then
    otel=(opentelemetry-sdk==1.45.2 opentelemetry-exporter-otlp-proto-http==1.45.2 openinference-semantic-conventions==0.1.42)
    python3 -m pip install -q "${otel[@]}" 2>/dev/null || python3 -m pip install -q --break-system-packages "${otel[@]}"
fi

# pyarrow (pinned) checks the Parquet interchange (crates/ragjudge-cli/tests/parquet.rs).
if ! python3 -c "import pyarrow" >/dev/null 2>&1; then
    python3 -m pip install -q pyarrow==24.0.0 2>/dev/null || python3 -m pip install -q --break-system-packages pyarrow==24.0.0
fi
