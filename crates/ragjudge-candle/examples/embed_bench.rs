//! Embeds the lines of a file with `BertEmbedder` and writes the vectors as little-endian `f32`.
//!
//! `embed_bench MODEL_DIR SENTENCES.txt OUT.f32 [THREADS] [BATCH] [PRECISION]` (`f32`, the
//! default, or `bf16`); prints the precision, load time, embedding time and sentences per second.
//! Used by `bench/embed/run.sh`.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use ragjudge_candle::{BertEmbedder, EncoderOptions, Precision};
use ragjudge_models::Embedder;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: embed_bench MODEL_DIR SENTENCES.txt OUT.f32 [THREADS] [BATCH] [f32|bf16]");
        std::process::exit(2);
    }
    let threads = args.get(4).map(|s| s.parse()).transpose()?;
    let batch_size = args.get(5).map(|s| s.parse()).transpose()?.unwrap_or(32);
    let precision = match args.get(6).map(String::as_str) {
        None | Some("f32") => Precision::F32,
        Some("bf16") => Precision::Bf16,
        Some(other) => return Err(format!("unknown precision `{other}` (f32 or bf16)").into()),
    };
    let text = std::fs::read_to_string(&args[2])?;
    let sentences: Vec<&str> = text.lines().collect();

    let t0 = Instant::now();
    let model =
        BertEmbedder::load(Path::new(&args[1]), &EncoderOptions { max_length: 256, batch_size, threads, precision })?;
    let load_s = t0.elapsed().as_secs_f64();
    // Warm-up outside the timed region, as the Python side does.
    model.embed(&sentences[..sentences.len().min(8)])?;
    let t1 = Instant::now();
    let vectors = model.embed(&sentences)?;
    let embed_s = t1.elapsed().as_secs_f64();

    let mut out = std::io::BufWriter::new(std::fs::File::create(&args[3])?);
    for v in &vectors {
        for x in v {
            out.write_all(&x.to_le_bytes())?;
        }
    }
    out.flush()?;
    println!(
        "ragjudge-candle: {} sentences, dim {}, threads {:?}, precision {:?}, load {:.2} s, embed {:.2} s, {:.1} sentences/s",
        sentences.len(),
        model.dim(),
        threads,
        precision,
        load_s,
        embed_s,
        sentences.len() as f64 / embed_s
    );
    Ok(())
}
