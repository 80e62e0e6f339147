#!/usr/bin/env bash
# Swiss vs round-robin ranking recovery on simulated systems (see docs/tournament-study.md).
# Usage: bench/tournament/run.sh [seeds] [questions] [sigma]
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo run --release -q -p ragjudge-dice --example tournament_study -- "${1:-200}" "${2:-20}" "${3:-1.0}"
