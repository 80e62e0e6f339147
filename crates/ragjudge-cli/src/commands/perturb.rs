//! `ragjudge perturb`: input variations of questions for robustness testing (HCAT §6.1), through
//! `ragjudge_analysis::perturb`. Each variant names its original (`meta.variant_of`), its kind
//! (`meta.perturbation`) and its rate (`meta.severity`); the same seed gives the same variants.

use anyhow::{bail, Context as _, Result};
use clap::{Args, ValueEnum};
use ragjudge_analysis::perturb::{question_variants, Perturbation};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;

/// Kinds of variation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KindArg {
    /// Keyboard-neighbour substitutions, dropped and swapped letters.
    Typo,
    /// Flipped letter case.
    Case,
    /// Dropped punctuation.
    Punctuation,
    /// Doubled or dropped spaces.
    Whitespace,
}

/// `ragjudge perturb`.
#[derive(Debug, Args)]
pub struct PerturbArgs {
    /// Questions (or records): JSONL, one object with `id` and the text field per line.
    #[arg(long, value_name = "FILE")]
    pub questions: PathBuf,
    /// Where the variants go (JSONL).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: PathBuf,
    /// Kinds of variation, comma separated.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "typo,case,punctuation,whitespace")]
    pub kinds: Vec<KindArg>,
    /// Share of the candidate characters changed (letters, marks or spaces, by kind).
    #[arg(long, default_value_t = 0.05)]
    pub rate: f64,
    /// Seed of the variations.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The field that is varied.
    #[arg(long, default_value = "query")]
    pub field: String,
    /// Also write each original question, before its variants.
    #[arg(long)]
    pub with_originals: bool,
}

/// Runs `ragjudge perturb`.
pub fn run(args: &PerturbArgs) -> Result<()> {
    if !(args.rate > 0.0 && args.rate <= 1.0) {
        bail!("--rate must be in (0, 1], got {}", args.rate);
    }
    let kinds: Vec<Perturbation> = args
        .kinds
        .iter()
        .map(|k| match k {
            KindArg::Typo => Perturbation::Typo,
            KindArg::Case => Perturbation::Case,
            KindArg::Punctuation => Perturbation::Punctuation,
            KindArg::Whitespace => Perturbation::Whitespace,
        })
        .collect();
    let name = args.questions.display().to_string();
    let file = std::fs::File::open(&args.questions).with_context(|| format!("{name}: cannot open"))?;
    let out_name = args.output.display().to_string();
    let mut out =
        BufWriter::new(std::fs::File::create(&args.output).with_context(|| format!("{out_name}: cannot create"))?);
    let (mut questions, mut variants) = (0usize, 0usize);
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let n = i + 1;
        let line = line.with_context(|| format!("{name}:{n}: unreadable line"))?;
        if line.trim().is_empty() {
            continue;
        }
        let q: serde_json::Value = serde_json::from_str(&line).with_context(|| format!("{name}:{n}: invalid JSON"))?;
        let Some(vs) = question_variants(&q, &args.field, &kinds, args.rate, args.seed) else {
            bail!("{name}:{n}: field `{}`: missing or not text", args.field);
        };
        questions += 1;
        if args.with_originals {
            writeln!(out, "{q}").with_context(|| format!("{out_name}: write failed"))?;
        }
        for v in &vs {
            writeln!(out, "{v}").with_context(|| format!("{out_name}: write failed"))?;
        }
        variants += vs.len();
    }
    out.flush().with_context(|| format!("{out_name}: write failed"))?;
    println!(
        "{variants} variants of {questions} questions ({} kinds at rate {}, seed {}) written to {out_name}; \
         variants equal to their question are left out",
        kinds.len(),
        args.rate,
        args.seed
    );
    Ok(())
}
