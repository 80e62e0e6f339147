//! Options of the commands that read records: layout, malformed records, line length, shard.

use clap::{Args, ValueEnum};
use ragjudge_core::shard::{COUNT_VAR, INDEX_VAR};
use ragjudge_core::{Format, ReadOptions, Record, Shard};

/// An input layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    /// Decide from the file extension, then the CSV header or the first byte.
    Auto,
    /// One JSON object per line (our layout or RAGAS keys).
    #[value(alias = "json", alias = "ndjson")]
    Jsonl,
    /// CSV with our column names.
    Csv,
    /// RAGAS CSV: `user_input, retrieved_contexts, response, reference`.
    Ragas,
    /// Open RAG Eval CSV: one row per passage.
    #[value(name = "openrag", alias = "open-rag-eval", alias = "openrageval")]
    OpenRag,
    /// Parquet with the JSONL field names.
    Parquet,
}

impl From<InputFormat> for Format {
    fn from(f: InputFormat) -> Self {
        match f {
            InputFormat::Auto => Format::Auto,
            InputFormat::Jsonl => Format::Jsonl,
            InputFormat::Csv => Format::Csv,
            InputFormat::Ragas => Format::Ragas,
            InputFormat::OpenRag => Format::OpenRagEval,
            InputFormat::Parquet => Format::Parquet,
        }
    }
}

/// Options shared by commands that read records.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// Input layout.
    #[arg(long, value_enum, default_value = "auto", ignore_case = true)]
    pub format: InputFormat,
    /// Report and skip malformed records instead of stopping at the first one.
    #[arg(long)]
    pub skip_invalid: bool,
    /// Longest accepted input line, in MiB (at least 1).
    #[arg(long, default_value_t = 16, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub max_line_mib: u64,
}

impl InputArgs {
    /// How the engine reads the inputs.
    pub fn read_options(&self) -> ReadOptions {
        ReadOptions {
            format: self.format.into(),
            max_line_bytes: usize::try_from(self.max_line_mib << 20).unwrap_or(usize::MAX),
            ..ReadOptions::default()
        }
    }
}

/// Fan-out: one part of the records (every command that reads records).
#[derive(Debug, Clone, Default, Args)]
pub struct ShardArgs {
    /// Only shard I of N (e.g. 2/4): the records whose `id` hashes to part I, so that every
    /// system's answer to a question, and every repeated run, land in the same shard;
    /// `ragjudge merge` joins the outputs of `score --shard`. Without it, a batch scheduler's
    /// task sets it by `RAGJUDGE_SHARD_INDEX` (from 0) and `RAGJUDGE_SHARD_COUNT`.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<Shard>,
}

fn parse_shard(s: &str) -> Result<Shard, String> {
    Shard::parse(s).map_err(|e| e.reason)
}

impl ShardArgs {
    /// The selected shard: `--shard`, else the one `RAGJUDGE_SHARD_INDEX` (from 0) and
    /// `RAGJUDGE_SHARD_COUNT` name (SLURM array jobs, Kubernetes indexed jobs), else none.
    pub fn get(&self) -> anyhow::Result<Option<Shard>> {
        if self.shard.is_some() {
            return Ok(self.shard);
        }
        let var = |name: &str| std::env::var(name).ok();
        Shard::from_env_values(var(INDEX_VAR).as_deref(), var(COUNT_VAR).as_deref())
            .map_err(|e| anyhow::anyhow!("{}: {}", e.spec, e.reason))
    }

    /// The records of the selected shard.
    pub fn select(&self, records: Vec<Record>) -> anyhow::Result<Vec<Record>> {
        Ok(match self.get()? {
            None => records,
            Some(shard) => records.into_iter().filter(|r| shard.contains(&r.id)).collect(),
        })
    }
}
