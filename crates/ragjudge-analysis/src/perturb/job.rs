//! Variations of questions or records as one library call (HCAT §6.1), shared by every face:
//! the model-free text kinds ([`super::question_variants`]), the judge's paraphrases
//! (`crate::paraphrase`), the context kinds (`crate::adversarial`, `crate::contradiction`) and
//! out-of-distribution questions (`crate::ood`), written to one JSONL file, atomically.

use super::{question_variants, Perturbation};
use crate::adversarial::{
    context_variants, contradiction_variants, passage_to_alter, AdversarialError, ContextPerturbation, ContextVariants,
};
use crate::contradiction::alter_passages;
use crate::ood::ood_questions;
use crate::paraphrase::{paraphrase_questions, paraphrase_variants, Style};
use ragjudge_artifacts::{check_not_input, ArtifactError, AtomicFile};
use ragjudge_core::Shard;
use ragjudge_models::{Embedder, Judge};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A kind of variation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Keyboard-neighbour substitutions, dropped and swapped letters.
    Typo,
    /// Flipped letter case.
    Case,
    /// Dropped punctuation.
    Punctuation,
    /// Doubled or dropped spaces.
    Whitespace,
    /// The retrieved passages in another seeded order (records only).
    Shuffle,
    /// Passages of other questions among the retrieved ones (records only).
    Distractor,
    /// A colloquial rewording by the judge, kept when it asks for the same information.
    Colloquial,
    /// A terse rewording by the judge, kept when it asks for the same information.
    Terse,
    /// The most relevant passage with one fact altered by the judge (records only).
    Contradiction,
    /// Questions on subjects the collection does not cover (questions only).
    Ood,
}

/// What to vary and how (the defaults of `ragjudge perturb`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PerturbSettings {
    /// Kinds of variation.
    pub kinds: Vec<Kind>,
    /// Share of the candidate characters changed, in (0, 1].
    pub rate: f64,
    /// Seed of every variation.
    pub seed: u64,
    /// The field varied.
    pub field: String,
    /// Also write each original before its variants.
    pub with_originals: bool,
    /// Passages each `distractor` variant adds.
    pub distractors: usize,
    /// Out-of-distribution questions `ood` adds.
    pub ood: usize,
    /// Most share of an `ood` question's content words found in the collection, in [0, 1].
    pub ood_max_overlap: f64,
    /// Least cosine similarity of a paraphrase with its question (with an embedder), in [0, 1].
    pub min_similarity: f64,
}

impl Default for PerturbSettings {
    fn default() -> Self {
        Self {
            kinds: vec![Kind::Typo, Kind::Case, Kind::Punctuation, Kind::Whitespace],
            rate: 0.05,
            seed: 0,
            field: "query".into(),
            with_originals: false,
            distractors: 3,
            ood: 10,
            ood_max_overlap: 0.25,
            min_similarity: 0.8,
        }
    }
}

impl PerturbSettings {
    /// Whether some kind needs the judge (paraphrases, contradictions).
    pub fn needs_judge(&self) -> bool {
        self.kinds.iter().any(|k| matches!(k, Kind::Colloquial | Kind::Terse | Kind::Contradiction))
    }

    /// Whether some kind checks paraphrases with an embedder.
    pub fn needs_embedder(&self) -> bool {
        self.kinds.iter().any(|k| matches!(k, Kind::Colloquial | Kind::Terse))
    }
}

/// The files a variation reads and writes.
#[derive(Debug, Clone)]
pub struct PerturbFiles {
    /// Questions (or records) as JSONL.
    pub source: PathBuf,
    /// Whether `source` holds records with contexts (the context kinds need them).
    pub records: bool,
    /// Texts of the collection for `ood`.
    pub collection: Vec<PathBuf>,
    /// Where the variants go (JSONL).
    pub output: PathBuf,
    /// Only the questions of this shard.
    pub shard: Option<Shard>,
}

/// Why a variation could not run.
#[derive(Debug, thiserror::Error)]
pub enum PerturbError {
    /// A rate outside (0, 1].
    #[error("--rate must be in (0, 1], got {0}")]
    Rate(f64),
    /// An overlap limit outside [0, 1].
    #[error("--ood-max-overlap must be in [0, 1], got {0}")]
    OodOverlap(f64),
    /// A similarity limit outside [0, 1].
    #[error("--min-similarity must be in [0, 1], got {0}")]
    MinSimilarity(f64),
    /// `ood` asked of records.
    #[error("--kinds ood writes new questions: give the questions with --questions (and the collection's texts with --collection)")]
    OodOfRecords,
    /// A context kind asked of questions.
    #[error("--kinds shuffle, distractor and contradiction vary contexts: give the records with --input")]
    ContextsNeedRecords,
    /// A kind that needs the judge, called without one.
    #[error("--kinds {0} needs a judge")]
    NoJudge(&'static str),
    /// A file that cannot be opened or read.
    #[error("{}: cannot {action}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What failed (`open`, `read line 3`).
        action: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A line that is not JSON.
    #[error("{name}:{line}: invalid JSON: {source}")]
    Json {
        /// The file.
        name: String,
        /// 1-based line.
        line: usize,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },
    /// A field at fault on one line.
    #[error("{name}:{line}: field `{field}`: {message}")]
    Field {
        /// The file.
        name: String,
        /// 1-based line.
        line: usize,
        /// The field.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// Contexts that cannot be varied.
    #[error("{name}: {source}")]
    Contexts {
        /// The file.
        name: String,
        /// The cause.
        #[source]
        source: AdversarialError,
    },
    /// An input without a question or record.
    #[error("{0}: no questions or records to vary (the file is empty)")]
    Empty(String),
    /// The output cannot be written.
    #[error(transparent)]
    Artifact(#[from] ArtifactError),
    /// A line of the output cannot be written.
    #[error("{}: write failed: {source}", path.display())]
    Write {
        /// The output.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// Paraphrases kept and dropped in one style.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParaphraseCount {
    /// The style.
    pub style: &'static str,
    /// Paraphrases kept.
    pub kept: usize,
    /// Questions dropped, per reason.
    pub dropped: BTreeMap<String, usize>,
}

/// Records a context kind gave no variant, per kind and reason.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkippedCount {
    /// The kind.
    pub kind: &'static str,
    /// Why.
    pub reason: String,
    /// Records.
    pub records: usize,
}

/// What a variation wrote.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PerturbSummary {
    /// Questions (or records) read in the shard.
    pub questions: usize,
    /// Text variants written (model-free kinds).
    pub text_variants: usize,
    /// Paraphrases per style.
    pub paraphrases: Vec<ParaphraseCount>,
    /// Context variants written (records only).
    pub context_variants: usize,
    /// Context kinds asked.
    pub context_kinds: usize,
    /// Records left without a variant of some context kind.
    pub skipped: Vec<SkippedCount>,
    /// Out-of-distribution questions written, and bank questions too close to the collection.
    pub ood: Option<(usize, usize)>,
}

impl PerturbSummary {
    /// All variants written.
    pub fn variants(&self) -> usize {
        self.text_variants + self.paraphrases.iter().map(|p| p.kept).sum::<usize>() + self.context_variants
    }

    /// The lines `ragjudge perturb` prints, `output` naming the file written.
    pub fn render(&self, settings: &PerturbSettings, output: &str) -> String {
        let text_kinds = settings.kinds.iter().filter(|k| text_kind(**k).is_some()).count();
        let mut notes = String::new();
        if let Some((n, too_close)) = self.ood {
            notes += &format!(
                "; {n} out-of-distribution questions ({too_close} of the bank share too many words with the collection)"
            );
        }
        for p in &self.paraphrases {
            let reasons: Vec<String> = p.dropped.iter().map(|(why, n)| format!("{n} {why}")).collect();
            let dropped = if reasons.is_empty() { String::new() } else { format!(", dropped: {}", reasons.join(", ")) };
            notes += &format!("; {}: {} kept{dropped}", p.style, p.kept);
        }
        if self.context_kinds == 0 {
            return format!(
                "{} variants of {} questions ({text_kinds} kinds at rate {}, seed {}) written to {output}; \
                 variants equal to their question are left out{notes}\n",
                self.variants(),
                self.questions,
                settings.rate,
                settings.seed
            );
        }
        let text = if text_kinds == 0 {
            String::new()
        } else {
            format!("{text_kinds} text kinds at rate {}, ", settings.rate)
        };
        let mut out = format!(
            "{} variants of {} records ({text}{} context kinds, {} distractors, seed {}) written to {output}{notes}\n",
            self.variants(),
            self.questions,
            self.context_kinds,
            settings.distractors,
            settings.seed
        );
        for s in &self.skipped {
            out += &format!("  {}: {} records skipped ({})\n", s.kind, s.records, s.reason);
        }
        out
    }
}

fn text_kind(k: Kind) -> Option<Perturbation> {
    match k {
        Kind::Typo => Some(Perturbation::Typo),
        Kind::Case => Some(Perturbation::Case),
        Kind::Punctuation => Some(Perturbation::Punctuation),
        Kind::Whitespace => Some(Perturbation::Whitespace),
        _ => None,
    }
}

/// The output being written, each line naming it on failure.
struct Out {
    file: AtomicFile,
    path: PathBuf,
}

impl Out {
    fn line(&mut self, v: &Value) -> Result<(), PerturbError> {
        writeln!(self.file, "{v}").map_err(|source| PerturbError::Write { path: self.path.clone(), source })
    }
}

/// Writes the variants of `files.source` asked by `settings` to `files.output` (in place only
/// when complete); `judge` writes and checks paraphrases and contradictions, `embedder` (when
/// given) checks paraphrases by similarity.
pub fn perturb_file(
    files: &PerturbFiles,
    settings: &PerturbSettings,
    judge: Option<&Arc<dyn Judge>>,
    embedder: Option<&dyn Embedder>,
) -> Result<PerturbSummary, PerturbError> {
    let s = settings;
    if !(s.rate > 0.0 && s.rate <= 1.0) {
        return Err(PerturbError::Rate(s.rate));
    }
    let ood = s.kinds.contains(&Kind::Ood);
    if ood && files.records {
        return Err(PerturbError::OodOfRecords);
    }
    if !(0.0..=1.0).contains(&s.ood_max_overlap) {
        return Err(PerturbError::OodOverlap(s.ood_max_overlap));
    }
    let kinds: Vec<Perturbation> = s.kinds.iter().filter_map(|k| text_kind(*k)).collect();
    let styles: Vec<Style> = s
        .kinds
        .iter()
        .filter_map(|k| match k {
            Kind::Colloquial => Some(Style::Colloquial),
            Kind::Terse => Some(Style::Terse),
            _ => None,
        })
        .collect();
    let context_kinds: Vec<ContextPerturbation> = s
        .kinds
        .iter()
        .filter_map(|k| match k {
            Kind::Shuffle => Some(ContextPerturbation::Shuffle),
            Kind::Distractor => Some(ContextPerturbation::Distractor),
            Kind::Contradiction => Some(ContextPerturbation::Contradiction),
            _ => None,
        })
        .collect();
    if !context_kinds.is_empty() && !files.records {
        return Err(PerturbError::ContextsNeedRecords);
    }
    if !styles.is_empty() && !(0.0..=1.0).contains(&s.min_similarity) {
        return Err(PerturbError::MinSimilarity(s.min_similarity));
    }
    let path = &files.source;
    let name = path.display().to_string();
    let mut inputs = vec![path.clone()];
    inputs.extend(files.collection.iter().cloned());
    check_not_input(&files.output, &inputs)?;
    let file = std::fs::File::open(path).map_err(|source| PerturbError::Read {
        path: path.clone(),
        action: "open".into(),
        source,
    })?;
    let mut out = Out { file: AtomicFile::create(&files.output)?, path: files.output.clone() };
    let mut summary = PerturbSummary {
        questions: 0,
        text_variants: 0,
        paraphrases: Vec::new(),
        context_variants: 0,
        context_kinds: context_kinds.len(),
        skipped: Vec::new(),
        ood: None,
    };
    let (mut records, mut texts, mut to_paraphrase) = (Vec::new(), Vec::new(), Vec::new());
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    let field_error = |line: usize, field: &str, message: String| PerturbError::Field {
        name: name.clone(),
        line,
        field: field.to_string(),
        message,
    };
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let n = i + 1;
        let line =
            line.map_err(|source| PerturbError::Read { path: path.clone(), action: format!("read line {n}"), source })?;
        if line.trim().is_empty() {
            continue;
        }
        let mut q: Value =
            serde_json::from_str(&line).map_err(|source| PerturbError::Json { name: name.clone(), line: n, source })?;
        // Variant ids are made from the original's id: a repeated key would give two variants one id.
        if let Some(id) = q.get("id").filter(|v| !v.is_null()) {
            let key = (id.to_string(), q.get("system").map(|s| s.to_string()).unwrap_or_default());
            if let Some(first) = seen.insert(key, n) {
                return Err(field_error(n, "id", format!("{id} repeats line {first} (variant ids would collide)")));
            }
        }
        if let Some(shard) = files.shard {
            // The question key as the record readers take it: `id`, or the ordinal of the line.
            let key = match q.get("id") {
                Some(Value::String(s)) => s.clone(),
                Some(v) if !v.is_null() => v.to_string(),
                _ => n.to_string(),
            };
            if !shard.contains(&key) {
                continue;
            }
        }
        if !styles.is_empty() {
            if q.get(&s.field).and_then(Value::as_str).is_none() {
                return Err(field_error(n, &s.field, "missing or not text".into()));
            }
            to_paraphrase.push(q.clone());
        }
        if files.records {
            if q.get("id").is_none() {
                return Err(field_error(n, "id", "missing (a variant names its original by id)".into()));
            }
            // A variant keeps its original's system, also when the file's stem named it.
            if q.get("system").is_none() {
                q["system"] = Value::from(stem.clone());
            }
            records.push(q.clone());
            if kinds.is_empty() {
                summary.questions += 1;
                if s.with_originals {
                    out.line(&q)?;
                }
                continue;
            }
        }
        if ood {
            text_fields(&q, &mut texts);
        }
        let Some(vs) = question_variants(&q, &s.field, &kinds, s.rate, s.seed) else {
            return Err(field_error(n, &s.field, "missing or not text".into()));
        };
        summary.questions += 1;
        if s.with_originals {
            out.line(&q)?;
        }
        for v in &vs {
            out.line(v)?;
        }
        summary.text_variants += vs.len();
    }
    if !styles.is_empty() {
        let judge = judge.ok_or(PerturbError::NoJudge("colloquial and terse"))?;
        let questions: Vec<&str> = to_paraphrase.iter().filter_map(|q| q.get(&s.field)?.as_str()).collect();
        for &style in &styles {
            let done = paraphrase_questions(judge, embedder, &questions, style, s.min_similarity);
            let (variants, dropped) = paraphrase_variants(&to_paraphrase, &s.field, style, &done);
            for v in &variants {
                out.line(v)?;
            }
            summary.paraphrases.push(ParaphraseCount { style: style.name(), kept: variants.len(), dropped });
        }
    }
    if !context_kinds.is_empty() {
        let contexts = |source| PerturbError::Contexts { name: name.clone(), source };
        let model_free: Vec<ContextPerturbation> =
            context_kinds.iter().copied().filter(|k| *k != ContextPerturbation::Contradiction).collect();
        let mut cv = context_variants(&records, &model_free, s.distractors, s.seed).map_err(contexts)?;
        if context_kinds.contains(&ContextPerturbation::Contradiction) {
            let judge = judge.ok_or(PerturbError::NoJudge("contradiction"))?;
            let c = contradictions(judge, &records, s.seed).map_err(contexts)?;
            cv.variants.extend(c.variants);
            cv.skipped.extend(c.skipped);
        }
        for v in &cv.variants {
            out.line(v)?;
        }
        summary.context_variants = cv.variants.len();
        let mut skipped: BTreeMap<(&'static str, String), usize> = BTreeMap::new();
        for k in &cv.skipped {
            *skipped.entry((k.kind.name(), k.reason.clone())).or_default() += 1;
        }
        summary.skipped =
            skipped.into_iter().map(|((kind, reason), records)| SkippedCount { kind, reason, records }).collect();
    } else if ood {
        for path in &files.collection {
            collection_texts(path, &mut texts)?;
        }
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let choice = ood_questions(&refs, s.ood, s.ood_max_overlap, s.seed);
        for v in choice.records(&s.field, s.seed) {
            out.line(&v)?;
        }
        summary.ood = Some((choice.questions.len(), choice.too_close));
    }
    // An input without a question is an error, not "0 variants" (a shard may be empty: its
    // output is still one of the parts).
    if summary.questions == 0 && files.shard.is_none() {
        return Err(PerturbError::Empty(name));
    }
    out.file.commit()?;
    Ok(summary)
}

/// `contradiction` variants: the judge rewrites each record's most relevant passage (each
/// distinct passage once) and checks the rewrite contradicts it.
fn contradictions(judge: &Arc<dyn Judge>, records: &[Value], seed: u64) -> Result<ContextVariants, AdversarialError> {
    let passages: Vec<String> = records.iter().filter_map(passage_to_alter).collect();
    let refs: Vec<&str> = passages.iter().map(String::as_str).collect();
    let (mut altered, mut rejected) = (HashMap::new(), HashMap::new());
    for (p, a) in alter_passages(judge, &refs) {
        match (a.text, a.rejected) {
            (Some(t), _) => {
                altered.insert(p, t);
            }
            (None, why) => {
                rejected.insert(p, why.unwrap_or_else(|| "no rewrite".into()));
            }
        }
    }
    contradiction_variants(records, &altered, &rejected, seed)
}

/// Every text of a JSON value (ids, systems and `meta` aside), for the collection's vocabulary.
fn text_fields(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| text_fields(x, out)),
        Value::Object(o) => o
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "id" | "system" | "run" | "meta"))
            .for_each(|(_, x)| text_fields(x, out)),
        _ => {}
    }
}

/// The texts of a collection file (JSONL: records, chunks or questions; every text field counts).
fn collection_texts(path: &Path, texts: &mut Vec<String>) -> Result<(), PerturbError> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|source| PerturbError::Read {
        path: path.into(),
        action: "open".into(),
        source,
    })?;
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let n = i + 1;
        let line =
            line.map_err(|source| PerturbError::Read { path: path.into(), action: format!("read line {n}"), source })?;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value =
            serde_json::from_str(&line).map_err(|source| PerturbError::Json { name: name.clone(), line: n, source })?;
        text_fields(&v, texts);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch folder removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Self {
            let dir = std::env::temp_dir().join(format!("ragjudge-perturb-{}-{name}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }
        fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn files(dir: &Path, source: &str, records: bool) -> PerturbFiles {
        let path = dir.join("in.jsonl");
        std::fs::write(&path, source).unwrap();
        PerturbFiles { source: path, records, collection: Vec::new(), output: dir.join("out.jsonl"), shard: None }
    }

    #[test]
    fn text_variants_name_their_original_and_the_summary_counts_them() {
        let dir = Scratch::new("text");
        let f = files(dir.path(), "{\"id\": \"q1\", \"query\": \"What is the capital of France?\"}\n\n", false);
        let s = PerturbSettings { kinds: vec![Kind::Case], rate: 1.0, with_originals: true, ..Default::default() };
        let summary = perturb_file(&f, &s, None, None).unwrap();
        let lines: Vec<Value> =
            std::fs::read_to_string(&f.output).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        // The original, then its one `case` variant (rate 1: every letter flipped).
        assert_eq!((summary.questions, summary.text_variants, lines.len()), (1, 1, 2));
        assert_eq!(lines[1]["id"], "q1~case");
        assert_eq!(lines[1]["meta"]["variant_of"], "q1");
        assert_eq!(
            summary.render(&s, "out.jsonl"),
            "1 variants of 1 questions (1 kinds at rate 1, seed 0) written to out.jsonl; \
             variants equal to their question are left out\n"
        );
    }

    #[test]
    fn bad_inputs_and_settings_are_one_line_errors() {
        let dir = Scratch::new("bad");
        let s = PerturbSettings::default();
        let f = files(dir.path(), "{\"id\": \"q1\"}\n", false);
        let e = perturb_file(&f, &s, None, None).unwrap_err().to_string();
        assert!(e.ends_with("in.jsonl:1: field `query`: missing or not text"), "{e}");
        assert!(!f.output.exists());
        let f = files(dir.path(), "{\"id\": 1, \"query\": \"a\"}\n{\"id\": 1, \"query\": \"b\"}\n", false);
        let e = perturb_file(&f, &s, None, None).unwrap_err().to_string();
        assert!(e.ends_with("in.jsonl:2: field `id`: 1 repeats line 1 (variant ids would collide)"), "{e}");
        let f = files(dir.path(), "", false);
        assert!(matches!(perturb_file(&f, &s, None, None), Err(PerturbError::Empty(_))));
        let bad = PerturbSettings { rate: 0.0, ..PerturbSettings::default() };
        assert_eq!(perturb_file(&f, &bad, None, None).unwrap_err().to_string(), "--rate must be in (0, 1], got 0");
        let shuffle = PerturbSettings { kinds: vec![Kind::Shuffle], ..PerturbSettings::default() };
        assert!(matches!(perturb_file(&f, &shuffle, None, None), Err(PerturbError::ContextsNeedRecords)));
        let f = files(dir.path(), "{\"id\": \"q1\", \"query\": \"a\"}\n", false);
        let terse = PerturbSettings { kinds: vec![Kind::Terse], ..PerturbSettings::default() };
        assert!(matches!(perturb_file(&f, &terse, None, None), Err(PerturbError::NoJudge(_))));
    }

    #[test]
    fn shuffled_contexts_are_counted_with_the_records_skipped() {
        let dir = Scratch::new("shuffle");
        let rows = "{\"id\": \"q1\", \"query\": \"a\", \"contexts\": [\"one\", \"two\", \"three\"]}\n\
                    {\"id\": \"q2\", \"query\": \"b\", \"contexts\": [\"only\"]}\n";
        let f = files(dir.path(), rows, true);
        let s = PerturbSettings { kinds: vec![Kind::Shuffle], ..PerturbSettings::default() };
        let summary = perturb_file(&f, &s, None, None).unwrap();
        // q1 has three passages to reorder; q2 one, so it is skipped.
        assert_eq!((summary.questions, summary.context_variants, summary.skipped.len()), (2, 1, 1));
        assert_eq!((summary.skipped[0].kind, summary.skipped[0].records), ("shuffle", 1));
        let lines = std::fs::read_to_string(&f.output).unwrap();
        assert_eq!(lines.lines().count(), 1);
        assert!(summary
            .render(&s, "o")
            .starts_with("1 variants of 2 records (1 context kinds, 3 distractors, seed 0)"));
    }
}
