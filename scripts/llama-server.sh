#!/usr/bin/env bash
# Builds llama.cpp's OpenAI-compatible `llama-server` once and prints its path: the real judge
# servers of the judge-pool test (crates/ragjudge-cli/tests/judge_pool.rs) and of docs/scale.md.
#
# The sources are the llama.cpp that llama-cpp-python 0.3.36 vendors (its source distribution,
# fetched with pip, checked against a pinned sha256; the llama.cpp sources the Rust crate
# compiles leave the server out). The binary is kept under $RAGJUDGE_HOME/bin, so later calls
# cost nothing. Needs cmake and a C++ compiler (scripts/setup.sh installs them). ~4 min on 2 cores.
set -euo pipefail
version=0.3.36
sha256=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e
home="${RAGJUDGE_HOME:-$HOME/.cache/ragjudge}"
bin="$home/bin/llama-server-$version"
if [ -x "$bin" ]; then
    echo "$bin"
    exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m pip download -q --disable-pip-version-check --no-deps --no-binary :all: \
    "llama-cpp-python==$version" -d "$work" >&2
archive="$work/llama_cpp_python-$version.tar.gz"
echo "$sha256  $archive" | sha256sum -c --quiet - >&2
tar -xzf "$archive" -C "$work"
src="$work/llama_cpp_python-$version/vendor/llama.cpp"
# A static server without the web UI (its prebuilt assets would be downloaded), TLS or libcurl.
# Not `-march=native`: on a CPU with AMX, ggml's AMX path then crashes where the kernel does not
# grant the tile state to the process (seen: SIGSEGV in ggml_backend_amx_mul_mat); AVX2 is enough.
cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON \
    -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_APP=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF >&2
cmake --build "$work/build" --target llama-server -j "$(nproc)" >&2
mkdir -p "$home/bin"
cp "$work/build/bin/llama-server" "$bin.tmp"
mv "$bin.tmp" "$bin"
echo "$bin"
