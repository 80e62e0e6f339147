//! The options of `ragjudge perturb`, turned into the library's settings.

use crate::args::{JudgeArgs, ShardArgs};
use clap::{Args, ValueEnum};
use ragjudge_analysis::perturb::job::{Kind, PerturbSettings};
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

impl PerturbArgs {
    /// The library's settings.
    pub fn settings(&self) -> PerturbSettings {
        let kinds = self
            .kinds
            .iter()
            .map(|k| match k {
                KindArg::Typo => Kind::Typo,
                KindArg::Case => Kind::Case,
                KindArg::Punctuation => Kind::Punctuation,
                KindArg::Whitespace => Kind::Whitespace,
                KindArg::Shuffle => Kind::Shuffle,
                KindArg::Distractor => Kind::Distractor,
                KindArg::Colloquial => Kind::Colloquial,
                KindArg::Terse => Kind::Terse,
                KindArg::Contradiction => Kind::Contradiction,
                KindArg::Ood => Kind::Ood,
            })
            .collect();
        PerturbSettings {
            kinds,
            rate: self.rate,
            seed: self.seed,
            field: self.field.clone(),
            with_originals: self.with_originals,
            distractors: self.distractors,
            ood: self.ood,
            ood_max_overlap: self.ood_max_overlap,
            min_similarity: self.min_similarity,
        }
    }
}
