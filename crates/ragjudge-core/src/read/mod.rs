//! Streaming record readers for JSONL, CSV, RAGAS and Open RAG Eval inputs; the README, "Records", gives the layouts.
//!
//! A [`RecordReader`] is an iterator of `Result<Record, InputError>`. A bad record yields a
//! non-fatal error and reading goes on with the next one; a fatal error (I/O failure, a CSV
//! header without a required column, an input without records) is yielded last. Memory stays
//! flat: input is read line by line (JSONL) or row by row (CSV), and a line longer than
//! [`ReadOptions::max_line_bytes`] is skipped in bounded chunks, never held whole.
//!
//! Defaults: a record without `id` gets its 1-based ordinal among the input's records (JSONL:
//! non-blank lines, counting bad ones, so that ids do not shift when bad lines are skipped; CSV:
//! data rows); without `system` it gets [`ReadOptions::default_system`], else the file stem
//! (`runs/bm25.jsonl` -> `bm25`).
//!
//! Line numbers: JSONL errors give the 1-based physical line (blank lines counted); CSV errors
//! give the row number with the header as row 1 (a quoted cell spanning lines is still one row).

mod csvin;
mod json;
mod keys;
mod lines;
#[cfg(feature = "parquet")]
mod parquet;
#[cfg(feature = "parquet")]
pub use parquet::records_from_batch;
mod pylist;

pub use json::type_name;
pub use keys::{Duplicate, DuplicateKeys, DEFAULT_LIMIT as DEFAULT_KEY_LIMIT};

/// A record or an error, with the line (JSONL) or row (CSV) a record starts on.
pub(crate) type Item = (Option<u64>, Result<Record, InputError>);

use crate::error::{human_size, InputError};
use crate::record::Record;
use csvin::{detect_layout, CsvSource, Layout};
use json::{json_error_message, record_from_value, Defaults};
use lines::{read_line_bounded, LineRead};
use std::collections::VecDeque;
use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::str::FromStr;

/// An input layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Decide from the file extension, then the CSV header or the first byte.
    #[default]
    Auto,
    /// One JSON object per line, our layout or RAGAS keys (detected per line).
    Jsonl,
    /// CSV with our column names.
    Csv,
    /// RAGAS CSV: `user_input, retrieved_contexts, response, reference`.
    Ragas,
    /// Open RAG Eval CSV: one row per passage, grouped into one record per (query_id, query_run).
    OpenRagEval,
    /// Parquet with the JSONL field names (feature `parquet`; errors give the row for the line).
    Parquet,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Auto => "auto",
            Format::Jsonl => "jsonl",
            Format::Csv => "csv",
            Format::Ragas => "ragas",
            Format::OpenRagEval => "openrag",
            Format::Parquet => "parquet",
        })
    }
}

impl FromStr for Format {
    type Err = String;

    /// Parses `auto`, `jsonl` (or `json`, `ndjson`), `csv`, `ragas`, `openrag` (or
    /// `open-rag-eval`, `openrageval`), `parquet`, ignoring case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Format::Auto),
            "jsonl" | "json" | "ndjson" => Ok(Format::Jsonl),
            "csv" => Ok(Format::Csv),
            "ragas" => Ok(Format::Ragas),
            "openrag" | "open-rag-eval" | "openrageval" => Ok(Format::OpenRagEval),
            "parquet" => Ok(Format::Parquet),
            _ => Err(format!("unknown input format `{s}` (expected auto, jsonl, csv, ragas, openrag or parquet)")),
        }
    }
}

/// How to read an input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOptions {
    /// Input layout; [`Format::Auto`] detects it.
    pub format: Format,
    /// Longest JSONL line (or CSV row) accepted, in bytes; longer lines are reported and skipped.
    pub max_line_bytes: usize,
    /// System name for records without one; `None` uses the file stem.
    pub default_system: Option<String>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions { format: Format::Auto, max_line_bytes: 16 * 1024 * 1024, default_system: None }
    }
}

/// Where records come from.
enum Source {
    Jsonl {
        reader: Box<dyn BufRead>,
        line: u64,
        buf: Vec<u8>,
    },
    Csv(Box<CsvSource>),
    #[cfg(feature = "parquet")]
    Parquet(Box<parquet::ParquetSource>),
    Done,
}

/// A streaming iterator over the records of one input.
pub struct RecordReader {
    name: String,
    format: Format,
    system: String,
    max_line_bytes: usize,
    source: Source,
    pending: VecDeque<Item>,
    /// Where the record last yielded starts.
    last_line: Option<u64>,
    /// Records attempted so far (non-blank lines, data rows): the default id and the "no
    /// records" check.
    attempts: u64,
}

impl fmt::Debug for RecordReader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecordReader").field("name", &self.name).field("format", &self.format).finish_non_exhaustive()
    }
}

/// Builds a record from one JSON value laid out as a JSONL line (our keys or RAGAS keys), for
/// records that arrive without a file, e.g. in a request body. `name` stands for the file in
/// errors (`records[3]`); `default_id` and `default_system` fill an absent `id` / `system`.
pub fn record_from_json(
    value: serde_json::Value,
    name: &str,
    default_id: String,
    default_system: &str,
) -> Result<Record, InputError> {
    record_from_value(value, Defaults { id: default_id, system: default_system })
        .map_err(|e| InputError::new(name, None, e.field, e.message))
}

/// The lower-cased extension of `name`, if any.
fn extension(name: &str) -> Option<String> {
    Path::new(name).extension().map(|e| e.to_string_lossy().to_ascii_lowercase())
}

/// Whether `name` read as `format` is Parquet (asked for, or detected by extension).
fn is_parquet(name: &str, format: Format) -> bool {
    format == Format::Parquet || format == Format::Auto && extension(name).as_deref() == Some("parquet")
}

impl RecordReader {
    /// Opens `path`. Only a file that cannot be opened is an error here; every other problem,
    /// fatal ones included, is yielded by the iterator.
    pub fn open(path: &Path, opts: &ReadOptions) -> Result<Self, InputError> {
        let name = path.display().to_string();
        let file = File::open(path).map_err(|e| InputError::fatal(&name, None, format!("cannot open: {e}")))?;
        if is_parquet(&name, opts.format) {
            return Ok(Self::open_parquet(&name, file, opts));
        }
        Self::from_reader(&name, file, opts)
    }

    /// A reader of `name` with nothing to read yet; its system defaults to the name's stem.
    fn empty(name: &str, format: Format, opts: &ReadOptions) -> Self {
        let system = opts.default_system.clone().unwrap_or_else(|| {
            Path::new(name).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| name.to_string())
        });
        RecordReader {
            name: name.to_string(),
            format,
            system,
            max_line_bytes: opts.max_line_bytes,
            source: Source::Done,
            pending: VecDeque::new(),
            last_line: None,
            attempts: 0,
        }
    }

    /// A reader of the Parquet file `file`; without the `parquet` feature it yields one fatal error.
    fn open_parquet(name: &str, file: File, opts: &ReadOptions) -> Self {
        let mut me = Self::empty(name, Format::Parquet, opts);
        #[cfg(feature = "parquet")]
        match parquet::ParquetSource::open(name, file, me.system.clone()) {
            Ok(src) => me.source = Source::Parquet(Box::new(src)),
            Err(e) => me.pending.push_back((None, Err(e))),
        }
        #[cfg(not(feature = "parquet"))]
        {
            drop(file);
            me.pending
                .push_back((None, Err(InputError::fatal(name, None, "Parquet input needs the `parquet` feature"))));
        }
        me
    }

    /// Reads records from `reader`; `name` stands for the file in errors, and its extension and
    /// stem are used as a path's would be.
    pub fn from_reader<R: Read + 'static>(name: &str, reader: R, opts: &ReadOptions) -> Result<Self, InputError> {
        let mut reader: Box<dyn BufRead> = Box::new(BufReader::with_capacity(64 * 1024, reader));
        let ext = extension(name);
        let mut me = Self::empty(name, opts.format, opts);
        if is_parquet(name, opts.format) {
            let msg = "Parquet input must be a file (RecordReader::open)";
            me.format = Format::Parquet;
            me.pending.push_back((None, Err(InputError::fatal(name, None, msg))));
            return Ok(me);
        }
        let csv_layout = match opts.format {
            Format::Auto => match ext.as_deref() {
                Some("jsonl" | "ndjson" | "json") => None,
                Some("csv") => Some(None),
                _ => sniff_csv(&mut *reader),
            },
            Format::Jsonl => None,
            Format::Csv => Some(Some(Layout::Ours)),
            Format::OpenRagEval => Some(Some(Layout::OpenRag)),
            // A RAGAS export may also be JSONL.
            Format::Ragas => sniff_csv(&mut *reader).map(|_| Some(Layout::Ragas)),
            // Refused above.
            Format::Parquet => None,
        };
        match csv_layout {
            None => {
                me.format = Format::Jsonl;
                me.source = Source::Jsonl { reader, line: 0, buf: Vec::new() };
            }
            Some(layout) => me.start_csv(reader, layout),
        }
        Ok(me)
    }

    fn start_csv(&mut self, reader: Box<dyn BufRead>, layout: Option<Layout>) {
        let opened = CsvSource::open(&self.name, reader, self.max_line_bytes, self.system.clone());
        let (mut src, names) = match opened {
            Ok(x) => x,
            Err(e) => {
                self.format = format_of(layout.unwrap_or(Layout::Ours));
                self.pending.push_back((None, Err(e)));
                return;
            }
        };
        if names.is_empty() || names.len() == 1 && names[0].is_empty() {
            self.format = format_of(layout.unwrap_or(Layout::Ours));
            self.pending.push_back((None, Err(InputError::fatal(&self.name, None, "no records"))));
            return;
        }
        let layout = layout.unwrap_or_else(|| detect_layout(&names));
        self.format = format_of(layout);
        match src.set_layout(layout, &names) {
            Ok(()) => self.source = Source::Csv(Box::new(src)),
            Err(e) => self.pending.push_back((None, Err(e))),
        }
    }

    /// The format actually being read (never [`Format::Auto`]).
    pub fn format(&self) -> Format {
        self.format
    }

    /// The input's name as used in errors.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Where the record last yielded starts: its 1-based JSONL line, or its CSV row with the
    /// header as row 1 (Open RAG Eval: the first row of its group). `None` before the first record.
    pub fn last_line(&self) -> Option<u64> {
        self.last_line
    }

    /// Reads on until at least one item is pending or the input is exhausted.
    fn advance(&mut self) {
        let more = match &mut self.source {
            Source::Done => false,
            Source::Csv(src) => src.advance(&mut self.pending, &mut self.attempts),
            #[cfg(feature = "parquet")]
            Source::Parquet(src) => src.advance(&mut self.pending, &mut self.attempts),
            Source::Jsonl { .. } => self.advance_jsonl(),
        };
        if !more {
            self.source = Source::Done;
            if self.attempts == 0 && self.pending.is_empty() {
                self.attempts = 1;
                self.pending.push_back((None, Err(InputError::fatal(&self.name, None, "no records"))));
            }
        }
    }

    /// Reads JSONL lines until one yields an item. `false` at the end or after a fatal error.
    fn advance_jsonl(&mut self) -> bool {
        let Source::Jsonl { reader, line, buf } = &mut self.source else {
            return false;
        };
        loop {
            let status = match read_line_bounded(&mut **reader, self.max_line_bytes, buf) {
                Ok(s) => s,
                Err(e) => {
                    self.attempts += 1;
                    let at = Some(*line + 1);
                    self.pending.push_back((None, Err(InputError::fatal(&self.name, at, format!("read error: {e}")))));
                    return false;
                }
            };
            if status == LineRead::Eof {
                return false;
            }
            *line += 1;
            let at = Some(*line);
            if status == LineRead::TooLong {
                self.attempts += 1;
                let msg = format!("line is longer than the {} limit", human_size(self.max_line_bytes));
                self.pending.push_back((None, Err(InputError::new(&self.name, at, None, msg))));
                return true;
            }
            let bytes: &[u8] = if *line == 1 { buf.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(buf) } else { buf };
            if bytes.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            self.attempts += 1;
            let text = match std::str::from_utf8(bytes) {
                Ok(t) => t,
                Err(e) => {
                    let msg = format!("invalid UTF-8 at byte offset {}", e.valid_up_to());
                    self.pending.push_back((None, Err(InputError::new(&self.name, at, None, msg))));
                    return true;
                }
            };
            let item = match serde_json::from_str(text) {
                Err(e) => Err(InputError::new(&self.name, at, None, json_error_message(&e))),
                Ok(v) => {
                    let defaults = Defaults { id: self.attempts.to_string(), system: &self.system };
                    record_from_value(v, defaults).map_err(|e| InputError::new(&self.name, at, e.field, e.message))
                }
            };
            self.pending.push_back((at, item));
            return true;
        }
    }
}

/// Looks at the first non-blank byte: `{` means JSONL (`None`), anything else CSV with its
/// layout detected from the header (`Some(None)`). Read errors surface later.
fn sniff_csv(reader: &mut dyn BufRead) -> Option<Option<Layout>> {
    let head = reader.fill_buf().unwrap_or(&[]);
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    match head.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') | None => None,
        Some(_) => Some(None),
    }
}

fn format_of(layout: Layout) -> Format {
    match layout {
        Layout::Ours => Format::Csv,
        Layout::Ragas => Format::Ragas,
        Layout::OpenRag => Format::OpenRagEval,
    }
}

impl Iterator for RecordReader {
    type Item = Result<Record, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some((line, item)) = self.pending.pop_front() {
                if item.is_ok() {
                    self.last_line = line;
                }
                if matches!(&item, Err(e) if e.fatal) {
                    self.pending.clear();
                    self.source = Source::Done;
                    self.attempts = self.attempts.max(1);
                }
                return Some(item);
            }
            if matches!(self.source, Source::Done) {
                return None;
            }
            self.advance();
        }
    }
}
