//! The arguments of `ragjudge score` and their conversion into the engine's settings.

use super::family_args::{HcatArgs, SafetyArgs};
use super::model_args::ScoreModelArgs;
use super::trec_args::TrecArgs;
use crate::args::{InputArgs, ShardArgs};
use anyhow::Result;
use clap::Args;
use ragjudge_eval::families::{
    CiuSettings, ClaimsFrom, LexicalSettings, MetricSettings, RagCheckerSettings, RetrievalSettings, SemanticSettings,
};
use ragjudge_eval::EvalSettings;
use ragjudge_lexical::lang::LangMode;
use ragjudge_lexical::rouge_zh::ZhRougeTokens;
use std::path::PathBuf;

/// Where the `ragchecker` family takes claims from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RagCheckerClaimsArg {
    /// The sentences of each text, citation markers removed.
    Sentences,
    /// Atomic claims written by the judge.
    Judge,
}

/// `--lang`: which language's tokenisers the lexical and CIU metrics use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LangArg {
    /// English for every record.
    En,
    /// Chinese for every record.
    Zh,
    /// Per record, from `meta.lang` or the text.
    Auto,
}

impl From<LangArg> for LangMode {
    fn from(a: LangArg) -> Self {
        match a {
            LangArg::En => LangMode::En,
            LangArg::Zh => LangMode::Zh,
            LangArg::Auto => LangMode::Auto,
        }
    }
}

/// `--zh-rouge`: the tokens of Chinese ROUGE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ZhRougeArg {
    /// jieba's words.
    Jieba,
    /// Single characters.
    Char,
}

impl From<ZhRougeArg> for ZhRougeTokens {
    fn from(a: ZhRougeArg) -> Self {
        match a {
            ZhRougeArg::Jieba => ZhRougeTokens::Jieba,
            ZhRougeArg::Char => ZhRougeTokens::Char,
        }
    }
}

/// `ragjudge score`.
#[derive(Debug, Args)]
pub struct ScoreArgs {
    /// Record file(s): JSONL, CSV, Parquet, RAGAS or Open RAG Eval CSV.
    #[arg(long = "input", short = 'i', required = true, num_args = 1.., value_name = "FILE")]
    pub inputs: Vec<PathBuf>,
    /// Metric families, comma separated: lexical, ciu, retrieval, hcat, safety, trec, ragchecker,
    /// semantic, agent, conversation, and fused:FILE (a model from `ragjudge fuse fit`).
    #[arg(long, value_delimiter = ',', default_value = "lexical,ciu,retrieval")]
    pub metrics: Vec<String>,
    /// Per-record output: OUT.csv, OUT.jsonl (keeps each metric's evidence) or OUT.parquet.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub shard: ShardArgs,
    /// Cut-offs K for the retrieval metrics.
    #[arg(long = "k", value_delimiter = ',', default_value = "1,3,5")]
    pub ks: Vec<usize>,
    /// Relevance grade from which a passage counts as relevant (UMBRELA scale 0-3).
    #[arg(long, default_value_t = 2.0)]
    pub relevance_threshold: f64,
    /// Leave P@K, AP@K, recall@K and nDCG@K empty when fewer than K passages were retrieved
    /// (Open RAG Eval's behaviour) instead of counting the missing ranks as non-relevant.
    #[arg(long)]
    pub skip_short_lists: bool,
    /// Relevance judgments for the retrieval family: a question file (JSONL with `id` and
    /// `relevant` passage ids, or testgen's `meta.source_ids`) or a TREC qrels file
    /// (`query-id iteration passage-id grade`); adds `qrels_precision@K`, `qrels_recall@K` and
    /// `qrels_recall`, measured against every passage a question needs.
    #[arg(long, value_name = "FILE")]
    pub qrels: Option<PathBuf>,
    /// Grade from which a TREC qrels line counts as relevant (trec_eval's `-l`).
    #[arg(long, default_value_t = 1.0)]
    pub qrels_level: f64,
    /// Stem tokens with the Porter stemmer before ROUGE (as rouge-score's use_stemmer=True).
    #[arg(long)]
    pub rouge_stemmer: bool,
    /// Language of the lexical and CIU tokenisers: en (English reference implementations), zh
    /// (jieba, sacrebleu zh, CMRC 2018), or auto (per record: meta.lang, else the share of
    /// Chinese characters in the answer and reference). See docs/languages.md.
    #[arg(long, value_enum, default_value_t = LangArg::En, value_name = "LANG")]
    pub lang: LangArg,
    /// Tokens of Chinese ROUGE: jieba words, or characters (no segmenter).
    #[arg(long, value_enum, default_value_t = ZhRougeArg::Jieba, value_name = "TOKENS")]
    pub zh_rouge: ZhRougeArg,
    /// Claims of the `ragchecker` family: the sentences of each text, or atomic claims the judge
    /// writes under a JSON grammar (one generation per distinct text; a text's sentences where
    /// the judge fails, recorded in the detail).
    #[arg(long, value_enum, default_value_t = RagCheckerClaimsArg::Sentences, value_name = "FROM")]
    pub ragchecker_claims: RagCheckerClaimsArg,
    /// CIU reading cost per character, C_char (CIU paper, eq. 3).
    #[arg(long, default_value_t = 0.005)]
    pub ciu_c_char: f64,
    /// CIU ablation: no position discount (gamma = 1).
    #[arg(long)]
    pub ciu_no_position: bool,
    /// CIU ablation: no frequency discount (freq = 1).
    #[arg(long)]
    pub ciu_no_frequency: bool,
    /// CIU ablation: no effort term (E = 0).
    #[arg(long)]
    pub ciu_no_effort: bool,
    /// Semantic: a trained unreferenced RUBER model (JSON) for the ruber_unref and ruber columns;
    /// it must have been trained with the same --embedder.
    #[arg(long, value_name = "FILE")]
    pub ruber_model: Option<PathBuf>,
    /// Human labels (CSV or JSONL with `id`, `system` and `--ppi-label-col`) of some records:
    /// per system and metric, the prediction-powered mean of the label with the metric as the
    /// prediction (needs `--output`).
    #[arg(long, value_name = "FILE")]
    pub ppi_labels: Option<PathBuf>,
    /// The label column of `--ppi-labels`.
    #[arg(long, value_name = "COL", default_value = "label")]
    pub ppi_label_col: String,
    /// Metric columns used as predictions, comma separated [default: every column].
    #[arg(long, value_delimiter = ',', value_name = "COLS")]
    pub ppi_metrics: Vec<String>,
    /// Error level of the prediction-powered intervals.
    #[arg(long, default_value_t = 0.1)]
    pub ppi_alpha: f64,
    /// Bootstrap replicates for the summary's confidence intervals.
    #[arg(long, default_value_t = 1000)]
    pub bootstrap: usize,
    /// Seed of every random choice (bootstrap).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub models: ScoreModelArgs,
    #[command(flatten)]
    pub hcat: HcatArgs,
    #[command(flatten)]
    pub safety: SafetyArgs,
    #[command(flatten)]
    pub trec: TrecArgs,
}

impl ScoreArgs {
    /// How records are read, scored and summarised.
    pub fn eval_settings(&self) -> Result<EvalSettings> {
        Ok(EvalSettings {
            read: self.input.read_options(),
            skip_invalid: self.input.skip_invalid,
            bootstrap: self.bootstrap,
            seed: self.seed,
            threads: self.threads,
            shard: self.shard.get()?,
            ..EvalSettings::default()
        })
    }

    /// The options of every metric family.
    pub fn metric_settings(&self) -> Result<MetricSettings> {
        Ok(MetricSettings {
            lexical: LexicalSettings {
                rouge_stemmer: self.rouge_stemmer,
                lang: self.lang.into(),
                zh_rouge: self.zh_rouge.into(),
            },
            ciu: CiuSettings {
                c_char: self.ciu_c_char,
                position_discount: !self.ciu_no_position,
                frequency_discount: !self.ciu_no_frequency,
                effort: !self.ciu_no_effort,
            },
            retrieval: RetrievalSettings {
                ks: self.ks.clone(),
                relevance_threshold: self.relevance_threshold,
                skip_short_lists: self.skip_short_lists,
                qrels: self.qrels.clone(),
                qrels_level: self.qrels_level,
            },
            hcat: self.hcat.settings(),
            safety: self.safety.settings(),
            trec: self.trec.settings()?,
            semantic: SemanticSettings { ruber_model: self.ruber_model.clone() },
            consistency: self.trec.consistency_settings(),
            // Filled from `--metrics fused:FILE` by `split_arguments`.
            fused: Default::default(),
            ragchecker: RagCheckerSettings {
                claims: match self.ragchecker_claims {
                    RagCheckerClaimsArg::Sentences => ClaimsFrom::Sentences,
                    RagCheckerClaimsArg::Judge => ClaimsFrom::Judge,
                },
            },
        })
    }
}
