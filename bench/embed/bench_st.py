"""Helper of run.sh: writes benchmark sentences, and runs sentence-transformers on them.

  bench_st.py gen N OUT.txt [MIX]             deterministic sentences, one per line; MIX is `mixed`
                                              (6 to 120 words, default) or `short` (6 to 20 words)
  bench_st.py st MODEL_DIR IN.txt RUST.f32    embeds with sentence-transformers (2 threads, batch 32),
                                              compares with ragjudge's vectors, prints the table
"""
import random
import sys
import time

WORDS = (
    "the a model answer question context retrieval passage evidence claim judge score metric "
    "faithful relevant document query user system river mountain city history science music "
    "water energy light market price policy health patient doctor student teacher school "
    "computer network data language translation summary report result method experiment "
    "quickly slowly carefully often never always because although while after before during "
    "large small new old important different possible early late public private local global "
    "is was are were has had will would can could should might describes explains shows finds "
    "improves reduces increases supports contradicts mentions includes requires provides"
).split()


def gen(n, out, mix="mixed"):
    rng = random.Random(1234)
    with open(out, "w", encoding="utf-8") as f:
        for i in range(n):
            # Mostly short sentences, some paragraphs (8 to 120 words).
            k = rng.choice([rng.randint(6, 20)] * 3 + [rng.randint(20, 60), rng.randint(60, 120)])
            if mix == "short":
                k = rng.randint(6, 20)
            words = [rng.choice(WORDS) for _ in range(k)]
            words[0] = words[0].capitalize()
            f.write(" ".join(words) + f" ({i}).\n")


def st(model_dir, sentences_path, rust_path, threads=2, batch=32):
    import numpy as np
    import sentence_transformers
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(threads)
    with open(sentences_path, encoding="utf-8") as f:
        sentences = f.read().splitlines()
    t0 = time.perf_counter()
    model = SentenceTransformer(model_dir, device="cpu")
    load_s = time.perf_counter() - t0
    model.encode(sentences[:8], batch_size=batch)
    t1 = time.perf_counter()
    ref = model.encode(sentences, batch_size=batch, convert_to_numpy=True)
    embed_s = time.perf_counter() - t1
    st_rate = len(sentences) / embed_s
    print(
        f"sentence-transformers {sentence_transformers.__version__} (torch {torch.__version__}, "
        f"{threads} threads): {len(sentences)} sentences, load {load_s:.2f} s, embed {embed_s:.2f} s, "
        f"{st_rate:.1f} sentences/s"
    )

    ours = np.fromfile(rust_path, dtype="<f4").reshape(len(sentences), -1)
    # Compare unit vectors: ragjudge L2-normalises; the reference model may not end in Normalize.
    ref = ref / np.maximum(np.linalg.norm(ref, axis=1, keepdims=True), 1e-12)
    cos = np.sum(ours * ref, axis=1) / (np.linalg.norm(ours, axis=1) * np.linalg.norm(ref, axis=1))
    return st_rate, float(cos.min()), float(np.abs(ours - ref).max())


def main():
    if sys.argv[1] == "gen":
        gen(int(sys.argv[2]), sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else "mixed")
    elif sys.argv[1] == "st":
        rust_rate = float(sys.argv[5])
        st_rate, min_cos, max_abs = st(sys.argv[2], sys.argv[3], sys.argv[4])
        print()
        print("| engine | sentences/s |")
        print("|---|---|")
        print(f"| ragjudge-candle | {rust_rate:.1f} |")
        print(f"| sentence-transformers | {st_rate:.1f} |")
        print(f"ratio ragjudge / sentence-transformers: {rust_rate / st_rate:.2f}")
        print(f"min cosine between outputs: {min_cos:.7f}; max abs difference: {max_abs:.2e}")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
