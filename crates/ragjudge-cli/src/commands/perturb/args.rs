//! `ragjudge perturb`: input variations of questions for robustness testing (HCAT §6.1), through
//! `ragjudge_analysis::perturb`. Each variant names its original (`meta.variant_of`), its kind
//! (`meta.perturbation`) and its rate (`meta.severity`); the same seed gives the same variants.
//! With `--input` (records with contexts) the kinds `shuffle` and `distractor` vary the retrieved
//! passages instead (`ragjudge_analysis::adversarial`); the answer and its citations are kept.

use crate::args::{JudgeArgs, ShardArgs};
use anyhow::{bail, Context as _, Result};
use clap::{Args, ValueEnum};
use ragjudge_analysis::adversarial::{
    context_variants, contradiction_variants, passage_to_alter, ContextPerturbation, ContextVariants,
};
use ragjudge_analysis::contradiction::alter_passages;
use ragjudge_analysis::ood::ood_questions;
use ragjudge_analysis::paraphrase::{paraphrase_questions, paraphrase_variants, Style};
use ragjudge_analysis::perturb::{question_variants, Perturbation};
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Write};
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
    /// The retrieved passages in another seeded order (needs `--input`).
    Shuffle,
    /// Passages of other questions inserted among the retrieved ones (needs `--input`).
    Distractor,
    /// A colloquial rewording of the question by the judge, kept when it asks for the same
    /// information (needs a judge).
    Colloquial,
    /// A terse, search-box rewording of the question by the judge, kept when it asks for the same
    /// information (needs a judge).
    Terse,
    /// The most relevant passage with one fact altered by the judge, checked to contradict the
    /// original, inserted among the passages (needs `--input` and a judge).
    Contradiction,
    /// Questions on subjects the collection does not cover, from a built-in bank of general
    /// questions, those sharing words with the collection left out (needs `--questions`); the
    /// right answer is an honest "I do not have that information".
    Ood,
}

/// `ragjudge perturb`.
#[derive(Debug, Args)]
pub struct PerturbArgs {
    /// Questions (or records): JSONL, one object with `id` and the text field per line.
    #[arg(long, value_name = "FILE", required_unless_present = "input", conflicts_with = "input")]
    pub questions: Option<PathBuf>,
    /// Records with contexts (JSONL runs), for `shuffle`, `distractor` and `contradiction` (and the
    /// text kinds).
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
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
    /// Passages each `distractor` variant adds.
    #[arg(long, default_value_t = 3)]
    pub distractors: usize,
    /// Out-of-distribution questions `ood` adds.
    #[arg(long, default_value_t = 10)]
    pub ood: usize,
    /// Most share of an `ood` question's content words that may occur in the collection.
    #[arg(long, default_value_t = 0.25)]
    pub ood_max_overlap: f64,
    /// Texts of the collection for `ood` (JSONL: records, chunks or questions; every text field
    /// counts), besides the questions themselves.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub collection: Vec<PathBuf>,
    /// Embedding model of the paraphrase check (`colloquial`, `terse`): a paraphrase whose cosine
    /// similarity with the question is below `--min-similarity` is dropped; `none` skips it.
    #[arg(long, default_value = "minilm")]
    pub embedder: String,
    /// Least cosine similarity of a paraphrase with its question.
    #[arg(long, default_value_t = 0.8)]
    pub min_similarity: f64,
    /// The judge that writes and checks paraphrases and `contradiction` passages.
    #[command(flatten)]
    pub judge: JudgeArgs,
    #[command(flatten)]
    pub shard: ShardArgs,
}

/// Runs `ragjudge perturb`.
pub fn run(args: &PerturbArgs) -> Result<()> {
    if !(args.rate > 0.0 && args.rate <= 1.0) {
        bail!("--rate must be in (0, 1], got {}", args.rate);
    }
    let (mut kinds, mut context_kinds, mut styles) = (Vec::new(), Vec::new(), Vec::new());
    let ood = args.kinds.contains(&KindArg::Ood);
    if ood && args.input.is_some() {
        bail!("--kinds ood writes new questions: give the questions with --questions (and the collection's texts with --collection)");
    }
    if !(0.0..=1.0).contains(&args.ood_max_overlap) {
        bail!("--ood-max-overlap must be in [0, 1], got {}", args.ood_max_overlap);
    }
    for k in &args.kinds {
        match k {
            KindArg::Typo => kinds.push(Perturbation::Typo),
            KindArg::Case => kinds.push(Perturbation::Case),
            KindArg::Punctuation => kinds.push(Perturbation::Punctuation),
            KindArg::Whitespace => kinds.push(Perturbation::Whitespace),
            KindArg::Shuffle => context_kinds.push(ContextPerturbation::Shuffle),
            KindArg::Distractor => context_kinds.push(ContextPerturbation::Distractor),
            KindArg::Contradiction => context_kinds.push(ContextPerturbation::Contradiction),
            KindArg::Colloquial => styles.push(Style::Colloquial),
            KindArg::Terse => styles.push(Style::Terse),
            KindArg::Ood => {}
        }
    }
    let Some(path) = args.questions.as_ref().or(args.input.as_ref()) else {
        bail!("give --questions or --input");
    };
    if !context_kinds.is_empty() && args.input.is_none() {
        bail!("--kinds shuffle, distractor and contradiction vary contexts: give the records with --input");
    }
    let name = path.display().to_string();
    let mut inputs = vec![path.clone()];
    inputs.extend(args.collection.iter().cloned());
    ragjudge_artifacts::check_not_input(&args.output, &inputs)?;
    let file = std::fs::File::open(path).with_context(|| format!("{name}: cannot open"))?;
    let out_name = args.output.display().to_string();
    // In place only when complete: a failed or interrupted run leaves an earlier output as it was.
    let mut out = ragjudge_artifacts::AtomicFile::create(&args.output)?;
    let (mut questions, mut variants) = (0usize, 0usize);
    let mut records = Vec::new();
    let mut texts: Vec<String> = Vec::new();
    let mut to_paraphrase: Vec<serde_json::Value> = Vec::new();
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let n = i + 1;
        let line = line.with_context(|| format!("{name}:{n}: unreadable line"))?;
        if line.trim().is_empty() {
            continue;
        }
        let mut q: serde_json::Value =
            serde_json::from_str(&line).with_context(|| format!("{name}:{n}: invalid JSON"))?;
        // Variant ids are made from the original's id: a repeated key would give two variants one id.
        if let Some(id) = q.get("id").filter(|v| !v.is_null()) {
            let key = (id.to_string(), q.get("system").map(|s| s.to_string()).unwrap_or_default());
            if let Some(first) = seen.insert(key, n) {
                bail!("{name}:{n}: field `id`: {id} repeats line {first} (variant ids would collide)");
            }
        }
        if let Some(shard) = args.shard.shard {
            // The question key as the record readers take it: `id`, or the ordinal of the line.
            let key = match q.get("id") {
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(v) if !v.is_null() => v.to_string(),
                _ => (i + 1).to_string(),
            };
            if !shard.contains(&key) {
                continue;
            }
        }
        if !styles.is_empty() {
            if q.get(&args.field).and_then(serde_json::Value::as_str).is_none() {
                bail!("{name}:{n}: field `{}`: missing or not text", args.field);
            }
            to_paraphrase.push(q.clone());
        }
        if args.input.is_some() {
            if q.get("id").is_none() {
                bail!("{name}:{n}: field `id`: missing (a variant names its original by id)");
            }
            // A variant keeps its original's system, also when the file's stem named it.
            if q.get("system").is_none() {
                q["system"] = serde_json::Value::from(stem.clone());
            }
            records.push(q.clone());
            if kinds.is_empty() {
                questions += 1;
                if args.with_originals {
                    writeln!(out, "{q}").with_context(|| format!("{out_name}: write failed"))?;
                }
                continue;
            }
        }
        if ood {
            text_fields(&q, &mut texts);
        }
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
    let paraphrase_note = if styles.is_empty() {
        String::new()
    } else {
        let (written, notes) = write_paraphrases(args, &styles, &to_paraphrase, &mut out, &out_name)?;
        variants += written;
        notes
    };
    if !context_kinds.is_empty() {
        let model_free: Vec<ContextPerturbation> =
            context_kinds.iter().copied().filter(|k| *k != ContextPerturbation::Contradiction).collect();
        let mut cv =
            context_variants(&records, &model_free, args.distractors, args.seed).with_context(|| name.clone())?;
        if context_kinds.contains(&ContextPerturbation::Contradiction) {
            let c = contradictions(args, &records).with_context(|| name.clone())?;
            cv.variants.extend(c.variants);
            cv.skipped.extend(c.skipped);
        }
        for v in &cv.variants {
            writeln!(out, "{v}").with_context(|| format!("{out_name}: write failed"))?;
        }
        ensure_some(questions, args.shard.shard.is_some(), &name)?;
        out.commit()?;
        let mut skipped: BTreeMap<(&str, &str), usize> = BTreeMap::new();
        for s in &cv.skipped {
            *skipped.entry((s.kind.name(), s.reason.as_str())).or_default() += 1;
        }
        println!(
            "{} variants of {questions} records ({}{} context kinds, {} distractors, seed {}) written to \
             {out_name}{paraphrase_note}",
            variants + cv.variants.len(),
            if kinds.is_empty() {
                String::new()
            } else {
                format!("{} text kinds at rate {}, ", kinds.len(), args.rate)
            },
            context_kinds.len(),
            args.distractors,
            args.seed
        );
        for ((kind, reason), n) in skipped {
            println!("  {kind}: {n} records skipped ({reason})");
        }
        return Ok(());
    }
    let ood_note = if ood { write_ood(args, &mut texts, &mut out, &out_name)? } else { String::new() };
    ensure_some(questions, args.shard.shard.is_some(), &name)?;
    out.commit()?;
    println!(
        "{variants} variants of {questions} questions ({} kinds at rate {}, seed {}) written to {out_name}; \
         variants equal to their question are left out{ood_note}{paraphrase_note}",
        kinds.len(),
        args.rate,
        args.seed
    );
    Ok(())
}

/// An input without a question is an error, not "0 variants" (a shard may be empty: its
/// output is still one of the parts).
fn ensure_some(questions: usize, sharded: bool, name: &str) -> Result<()> {
    if questions == 0 && !sharded {
        bail!("{name}: no questions or records to vary (the file is empty)");
    }
    Ok(())
}

/// Paraphrase variants of `questions` in each style, checked; returns how many were written and
/// a note per style with the reasons for those dropped.
fn write_paraphrases(
    args: &PerturbArgs,
    styles: &[Style],
    questions: &[serde_json::Value],
    out: &mut impl Write,
    out_name: &str,
) -> Result<(usize, String)> {
    if !(0.0..=1.0).contains(&args.min_similarity) {
        bail!("--min-similarity must be in [0, 1], got {}", args.min_similarity);
    }
    let judge: std::sync::Arc<dyn ragjudge_models::Judge> = std::sync::Arc::from(crate::backends::judge(&args.judge)?);
    let embedder = match args.embedder.as_str() {
        "none" => None,
        model => Some(crate::backends::embedder(model, 32, args.judge.threads, crate::args::Precision::F32)?),
    };
    let texts: Vec<&str> = questions.iter().filter_map(|q| q.get(&args.field)?.as_str()).collect();
    let (mut written, mut notes) = (0, String::new());
    for &style in styles {
        let done = paraphrase_questions(&judge, embedder.as_deref(), &texts, style, args.min_similarity);
        let (variants, dropped) = paraphrase_variants(questions, &args.field, style, &done);
        for v in &variants {
            writeln!(out, "{v}").with_context(|| format!("{out_name}: write failed"))?;
        }
        written += variants.len();
        let reasons: Vec<String> = dropped.iter().map(|(why, n)| format!("{n} {why}")).collect();
        notes += &format!(
            "; {}: {} kept{}",
            style.name(),
            variants.len(),
            if reasons.is_empty() { String::new() } else { format!(", dropped: {}", reasons.join(", ")) }
        );
    }
    Ok((written, notes))
}

/// `contradiction` variants: the judge rewrites each record's most relevant passage (each
/// distinct passage once) and checks the rewrite contradicts it.
fn contradictions(args: &PerturbArgs, records: &[serde_json::Value]) -> Result<ContextVariants> {
    let judge: std::sync::Arc<dyn ragjudge_models::Judge> = std::sync::Arc::from(crate::backends::judge(&args.judge)?);
    let passages: Vec<String> = records.iter().filter_map(passage_to_alter).collect();
    let refs: Vec<&str> = passages.iter().map(String::as_str).collect();
    let (mut altered, mut rejected) = (HashMap::new(), HashMap::new());
    for (p, a) in alter_passages(&judge, &refs) {
        match (a.text, a.rejected) {
            (Some(t), _) => {
                altered.insert(p, t);
            }
            (None, why) => {
                rejected.insert(p, why.unwrap_or_else(|| "no rewrite".into()));
            }
        }
    }
    Ok(contradiction_variants(records, &altered, &rejected, args.seed)?)
}

/// Every text of a JSON value (ids, systems and `meta` aside), for the collection's vocabulary.
fn text_fields(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| text_fields(x, out)),
        serde_json::Value::Object(o) => o
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "id" | "system" | "run" | "meta"))
            .for_each(|(_, x)| text_fields(x, out)),
        _ => {}
    }
}

/// Writes the `ood` questions for the collection (the questions read and `--collection`); returns
/// the summary's note.
fn write_ood(args: &PerturbArgs, texts: &mut Vec<String>, out: &mut impl Write, out_name: &str) -> Result<String> {
    for path in &args.collection {
        let name = path.display().to_string();
        let file = std::fs::File::open(path).with_context(|| format!("{name}: cannot open"))?;
        for (i, line) in BufReader::new(file).lines().enumerate() {
            let line = line.with_context(|| format!("{name}:{}: unreadable line", i + 1))?;
            if line.trim().is_empty() {
                continue;
            }
            let v: serde_json::Value =
                serde_json::from_str(&line).with_context(|| format!("{name}:{}: invalid JSON", i + 1))?;
            text_fields(&v, texts);
        }
    }
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let choice = ood_questions(&refs, args.ood, args.ood_max_overlap, args.seed);
    for v in choice.records(&args.field, args.seed) {
        writeln!(out, "{v}").with_context(|| format!("{out_name}: write failed"))?;
    }
    Ok(format!(
        "; {} out-of-distribution questions ({} of the bank share too many words with the collection)",
        choice.questions.len(),
        choice.too_close
    ))
}
