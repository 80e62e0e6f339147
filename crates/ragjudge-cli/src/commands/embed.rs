//! `ragjudge embed` and `ragjudge similarity`.

use crate::args::Precision;
use crate::backends;
use crate::progress::Progress;
use anyhow::{bail, Context as _, Result};
use clap::Args;
use ragjudge_core::numeric::cosine_or_zero;
use serde::Serialize;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;

/// `ragjudge embed`.
#[derive(Debug, Args)]
pub struct EmbedArgs {
    /// Embedding model: a manifest name or a model directory.
    #[arg(long, default_value = "minilm")]
    pub model: String,
    /// Text file, one text per line.
    #[arg(long, short = 'i')]
    pub input: PathBuf,
    /// Output JSONL, one `{"text", "vector"}` per input line.
    #[arg(long, short = 'o')]
    pub output: PathBuf,
    /// Texts per batch.
    #[arg(long, default_value_t = 32)]
    pub batch_size: usize,
    /// Inference threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Number format of the encoder's matrix products.
    #[arg(long, value_enum, default_value_t = Precision::F32)]
    pub precision: Precision,
}

/// `ragjudge similarity`.
#[derive(Debug, Args)]
pub struct SimilarityArgs {
    /// First text.
    pub text_a: String,
    /// Second text.
    pub text_b: String,
    /// Embedding model: a manifest name or a model directory.
    #[arg(long, default_value = "minilm")]
    pub model: String,
    /// Number format of the encoder's matrix products.
    #[arg(long, value_enum, default_value_t = Precision::F32)]
    pub precision: Precision,
    /// Print JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// One line of `embed`'s output.
#[derive(Serialize)]
struct Embedded<'a> {
    text: &'a str,
    vector: &'a [f32],
}

/// `similarity --json`.
#[derive(Serialize)]
struct Similarity {
    model: String,
    cosine: f64,
}

/// Runs `ragjudge embed`: one text per input line -> one `{"text", "vector"}` JSON line.
pub fn run_embed(args: &EmbedArgs) -> Result<()> {
    let name = args.input.display().to_string();
    let file = File::open(&args.input).with_context(|| format!("{name}: cannot open"))?;
    let embedder = backends::embedder(&args.model, args.batch_size, args.threads, args.precision)?;
    let out_name = args.output.display().to_string();
    ragjudge_artifacts::check_not_input(&args.output, &[&args.input])?;
    let mut out = ragjudge_artifacts::AtomicFile::create(&args.output)?;
    let progress = Progress::new("texts");
    let chunk = args.batch_size.max(1) * 8;
    let mut texts: Vec<String> = Vec::with_capacity(chunk);
    let mut count = 0u64;
    let flush = |texts: &mut Vec<String>, out: &mut ragjudge_artifacts::AtomicFile| -> Result<()> {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = embedder.embed(&refs)?;
        for (t, v) in texts.iter().zip(vectors) {
            serde_json::to_writer(&mut *out, &Embedded { text: t, vector: &v })?;
            out.write_all(b"\n")?;
        }
        progress.inc(texts.len() as u64);
        texts.clear();
        Ok(())
    };
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line.with_context(|| format!("{name}:{}: unreadable line (invalid UTF-8?)", i + 1))?;
        texts.push(line.trim_end_matches('\r').to_string());
        count += 1;
        if texts.len() == chunk {
            flush(&mut texts, &mut out)?;
        }
    }
    if count == 0 {
        bail!("{name}: no texts");
    }
    flush(&mut texts, &mut out)?;
    out.commit()?;
    progress.finish();
    eprintln!("{count} texts embedded into {out_name} with {}", embedder.identity());
    Ok(())
}

/// Runs `ragjudge similarity`: the cosine of two texts' embeddings.
pub fn run_similarity(args: &SimilarityArgs) -> Result<()> {
    let embedder = backends::embedder(&args.model, 2, None, args.precision)?;
    let v = embedder.embed(&[&args.text_a, &args.text_b])?;
    let cos = cosine_or_zero(&v[0], &v[1])?;
    if args.json {
        println!("{}", serde_json::to_string(&Similarity { model: embedder.identity(), cosine: cos })?);
    } else {
        println!("{cos:.6}");
    }
    Ok(())
}
