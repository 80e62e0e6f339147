//! CSV readers: our columns, the RAGAS layout and the Open RAG Eval layout (one row per passage,
//! grouped back into records).

use super::json::{
    contexts_from_value, history_from_value, json_error_message, meta_from_value, steps_from_value, FieldError,
};
use super::pylist::parse_py_list;
use super::Item;
use crate::error::{excerpt, human_size, InputError};
use crate::record::{Context, Record};
use serde_json::{Map, Value};
use std::cell::Cell;
use std::collections::hash_map::DefaultHasher;
use std::collections::{HashSet, VecDeque};
use std::hash::{Hash, Hasher};
use std::io::{self, Read};
use std::rc::Rc;

/// Which column layout a CSV file uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    Ours,
    Ragas,
    OpenRag,
}

/// Picks the layout from the header: `query_run`/`passage` -> Open RAG Eval, `user_input` ->
/// RAGAS, else ours.
pub(crate) fn detect_layout(headers: &[String]) -> Layout {
    let has = |n: &str| headers.iter().any(|h| h == n);
    if has("query_run") || has("passage") {
        Layout::OpenRag
    } else if has("user_input") {
        Layout::Ragas
    } else {
        Layout::Ours
    }
}

/// Shared state of [`Guarded`]: bytes read since the last complete row.
struct Guard {
    since_row: Cell<usize>,
    limit: usize,
    tripped: Cell<bool>,
}

/// A reader that fails once more than `limit` bytes have been read without the CSV parser
/// completing a row, so that one enormous row cannot exhaust memory.
struct Guarded {
    inner: Box<dyn Read>,
    guard: Rc<Guard>,
}

impl Read for Guarded {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let total = self.guard.since_row.get().saturating_add(n);
        self.guard.since_row.set(total);
        if total > self.guard.limit {
            self.guard.tripped.set(true);
            return Err(io::Error::other("row too long"));
        }
        Ok(n)
    }
}

/// A column: its index in the row and its header name (used in error messages).
#[derive(Debug, Clone)]
struct Col {
    idx: usize,
    name: String,
}

/// Column positions resolved once from the header.
#[derive(Debug, Default)]
struct Cols {
    id: Option<Col>,
    system: Option<Col>,
    query: Option<Col>,
    answer: Option<Col>,
    contexts: Option<Col>,
    reference: Option<Col>,
    history: Option<Col>,
    steps: Option<Col>,
    meta: Option<Col>,
    run: Option<Col>,
    passage_id: Option<Col>,
    passage: Option<Col>,
    run_id: Option<Col>,
    /// `meta.X` columns: (index, key X).
    meta_keys: Vec<(usize, String)>,
}

/// The Open RAG Eval group being collected: the rows of one (query_id, query_run).
struct Group {
    key: (String, String),
    /// The group's first row.
    row: u64,
    /// `None` once a row of the group was bad: the error was reported, no record is yielded.
    record: Option<Record>,
}

/// Streaming CSV record source.
pub(crate) struct CsvSource {
    name: String,
    rdr: csv::Reader<Guarded>,
    guard: Rc<Guard>,
    layout: Layout,
    cols: Cols,
    width: usize,
    /// CSV row number of the last row read (the header is row 1).
    row: u64,
    rec: csv::ByteRecord,
    system: String,
    group: Option<Group>,
    /// Hashes of the (query_id, query_run) keys of closed Open RAG Eval groups.
    closed: HashSet<u64>,
}

fn key_hash(key: &(String, String)) -> u64 {
    let mut h = DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}

impl CsvSource {
    /// Reads the header. Returns the source and the header names, or a fatal error.
    pub(crate) fn open(
        name: &str,
        reader: Box<dyn Read>,
        max_row_bytes: usize,
        system: String,
    ) -> Result<(CsvSource, Vec<String>), InputError> {
        // The CSV parser reads ahead by its buffer size; allow that much slack.
        let guard = Rc::new(Guard {
            since_row: Cell::new(0),
            limit: max_row_bytes.saturating_add(1 << 16),
            tripped: Cell::new(false),
        });
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(true)
            .from_reader(Guarded { inner: reader, guard: guard.clone() });
        let headers = match rdr.byte_headers() {
            Ok(h) => h.clone(),
            Err(e) => return Err(read_error(name, &guard, 1, e, max_row_bytes)),
        };
        guard.since_row.set(0);
        let mut names = Vec::with_capacity(headers.len());
        for (i, h) in headers.iter().enumerate() {
            let h = match std::str::from_utf8(h) {
                Ok(s) => s,
                Err(e) => {
                    return Err(InputError {
                        file: name.to_string(),
                        line: Some(1),
                        field: None,
                        message: format!("invalid UTF-8 in header column {} at byte offset {}", i + 1, e.valid_up_to()),
                        fatal: true,
                    })
                }
            };
            let h = if i == 0 { h.trim_start_matches('\u{feff}') } else { h };
            names.push(h.trim().to_string());
        }
        let src = CsvSource {
            name: name.to_string(),
            rdr,
            guard,
            layout: Layout::Ours,
            cols: Cols::default(),
            width: names.len(),
            row: 1,
            rec: csv::ByteRecord::new(),
            system,
            group: None,
            closed: HashSet::new(),
        };
        Ok((src, names))
    }

    /// Resolves the columns of `layout`; a missing required column is a fatal error.
    pub(crate) fn set_layout(&mut self, layout: Layout, names: &[String]) -> Result<(), InputError> {
        let find = |n: &str| names.iter().position(|h| h == n).map(|idx| Col { idx, name: n.to_string() });
        let mut cols = Cols { id: find("id"), system: find("system"), meta: find("meta"), ..Cols::default() };
        let required: &[&str];
        match layout {
            Layout::Ours => {
                cols.query = find("query");
                cols.answer = find("answer");
                cols.contexts = find("contexts");
                cols.reference = find("reference");
                cols.history = find("history");
                cols.steps = find("steps");
                cols.run = find("run");
                required = &["query", "answer"];
            }
            Layout::Ragas => {
                cols.query = find("user_input");
                cols.answer = find("response");
                cols.contexts = find("retrieved_contexts");
                cols.reference = find("reference");
                required = &["user_input", "response"];
            }
            Layout::OpenRag => {
                cols.id = find("query_id");
                cols.query = find("query");
                cols.answer = find("generated_answer");
                cols.run = find("query_run");
                cols.passage_id = find("passage_id");
                cols.passage = find("passage");
                cols.reference = find("reference").or_else(|| find("golden_answer"));
                cols.run_id = find("run_id");
                required = &["query_id", "query", "passage", "generated_answer"];
            }
        }
        for (idx, n) in names.iter().enumerate() {
            if let Some(key) = n.strip_prefix("meta.") {
                cols.meta_keys.push((idx, key.to_string()));
            }
        }
        if let Some(missing) = required.iter().find(|r| !names.iter().any(|n| n == *r)) {
            return Err(InputError::fatal(&self.name, None, format!("missing column `{missing}`")));
        }
        self.layout = layout;
        self.cols = cols;
        Ok(())
    }

    /// Reads the next row into `self.rec`. `Ok(false)` at the end of input.
    fn read_row(&mut self) -> Result<bool, InputError> {
        match self.rdr.read_byte_record(&mut self.rec) {
            Ok(more) => {
                self.guard.since_row.set(0);
                if more {
                    self.row += 1;
                }
                Ok(more)
            }
            Err(e) => {
                let limit = self.guard.limit.saturating_sub(1 << 16);
                Err(read_error(&self.name, &self.guard, self.row + 1, e, limit))
            }
        }
    }

    /// The cell of `col` in the current row: `None` when the column is absent or the row short.
    fn cell(&self, col: &Option<Col>) -> Result<Option<&str>, FieldError> {
        let Some(col) = col else { return Ok(None) };
        match self.rec.get(col.idx) {
            None => Ok(None),
            Some(bytes) => std::str::from_utf8(bytes)
                .map(Some)
                .map_err(|e| FieldError::new(&col.name, format!("invalid UTF-8 at byte offset {}", e.valid_up_to()))),
        }
    }

    /// The cell of a required column, as an owned string.
    fn required(&self, col: &Option<Col>) -> Result<String, FieldError> {
        Ok(self.cell(col)?.unwrap_or("").to_string())
    }

    /// A non-empty cell, or `None`.
    fn optional(&self, col: &Option<Col>) -> Result<Option<String>, FieldError> {
        Ok(self.cell(col)?.filter(|s| !s.is_empty()).map(str::to_string))
    }

    fn error(&self, row: u64, e: FieldError) -> InputError {
        InputError::new(&self.name, Some(row), e.field, e.message)
    }

    /// Produces the next items (records or errors) into `out`. Returns `false` at the end of
    /// input (after flushing any open group) or after a fatal error.
    pub(crate) fn advance(&mut self, out: &mut VecDeque<Item>, attempts: &mut u64) -> bool {
        loop {
            match self.read_row() {
                Err(e) => {
                    self.flush_group(out);
                    out.push_back((None, Err(e)));
                    return false;
                }
                Ok(false) => {
                    self.flush_group(out);
                    return false;
                }
                Ok(true) => {}
            }
            *attempts += 1;
            let row = self.row;
            let max = self.guard.limit.saturating_sub(1 << 16);
            if self.rec.as_slice().len() > max {
                let e =
                    FieldError { field: None, message: format!("row is longer than the {} limit", human_size(max)) };
                if let Some(g) = &mut self.group {
                    g.record = None;
                }
                out.push_back((None, Err(self.error(row, e))));
                return true;
            }
            if self.rec.len() != self.width {
                let e = FieldError {
                    field: None,
                    message: format!("row has {} fields, the header has {}", self.rec.len(), self.width),
                };
                if self.layout == Layout::OpenRag {
                    if let Some(g) = &mut self.group {
                        g.record = None;
                    }
                }
                out.push_back((None, Err(self.error(row, e))));
                return true;
            }
            if self.layout == Layout::OpenRag {
                let before = out.len();
                self.open_rag_row(out);
                if out.len() > before {
                    return true;
                }
                continue;
            }
            let item = self.flat_record(*attempts).map_err(|e| self.error(row, e));
            out.push_back((Some(row), item));
            return true;
        }
    }

    /// One row of our layout or RAGAS -> one record. `ordinal` is the default id.
    fn flat_record(&self, ordinal: u64) -> Result<Record, FieldError> {
        let query = self.required(&self.cols.query)?;
        let answer = self.required(&self.cols.answer)?;
        let id = self.optional(&self.cols.id)?.unwrap_or_else(|| ordinal.to_string());
        let system = self.optional(&self.cols.system)?.unwrap_or_else(|| self.system.clone());
        let contexts = match (&self.cols.contexts, self.optional(&self.cols.contexts)?) {
            (Some(col), Some(cell)) => parse_contexts_cell(&cell, &col.name, self.layout == Layout::Ragas)?,
            _ => Vec::new(),
        };
        let reference = self.optional(&self.cols.reference)?;
        let history = match (&self.cols.history, self.optional(&self.cols.history)?) {
            (Some(col), Some(cell)) => history_from_value(parse_json_cell(&cell, &col.name)?, &col.name)?,
            _ => Vec::new(),
        };
        let run = match (&self.cols.run, self.optional(&self.cols.run)?) {
            (Some(col), Some(cell)) => Some(parse_run(&cell, &col.name)?),
            _ => None,
        };
        let steps = match (&self.cols.steps, self.optional(&self.cols.steps)?) {
            (Some(col), Some(cell)) => steps_from_value(parse_json_cell(&cell, &col.name)?, &col.name)?,
            _ => Vec::new(),
        };
        let meta = self.meta(Map::new())?;
        Ok(Record { id, system, query, contexts, answer, reference, history, steps, run, meta })
    }

    /// The `meta` JSON cell merged with `meta.X` columns (non-empty cells only) into `base`.
    fn meta(&self, mut base: Map<String, Value>) -> Result<Map<String, Value>, FieldError> {
        if let (Some(col), Some(cell)) = (&self.cols.meta, self.optional(&self.cols.meta)?) {
            base.extend(meta_from_value(parse_json_cell(&cell, &col.name)?, &col.name)?);
        }
        for (idx, key) in &self.cols.meta_keys {
            let col = Some(Col { idx: *idx, name: format!("meta.{key}") });
            if let Some(v) = self.optional(&col)? {
                base.insert(key.clone(), Value::String(v));
            }
        }
        Ok(base)
    }

    /// Handles one Open RAG Eval row: extends the current group, or closes it and starts a new one.
    fn open_rag_row(&mut self, out: &mut VecDeque<Item>) {
        let row = self.row;
        let key = match (self.required(&self.cols.id), self.optional(&self.cols.run)) {
            (Ok(id), Ok(run)) => (id, run.unwrap_or_default()),
            (Err(e), _) | (_, Err(e)) => {
                out.push_back((None, Err(self.error(row, e))));
                return;
            }
        };
        if self.group.as_ref().map(|g| &g.key) != Some(&key) {
            self.flush_group(out);
            if self.closed.contains(&key_hash(&key)) {
                let e = FieldError {
                    field: None,
                    message: format!(
                        "rows of query_id `{}` query_run `{}` are not consecutive: this row comes after the group ended",
                        excerpt(&key.0),
                        excerpt(&key.1)
                    ),
                };
                out.push_back((None, Err(self.error(row, e))));
                return;
            }
            let record = self.open_rag_record(&key);
            let record = match record {
                Ok(r) => Some(r),
                Err(e) => {
                    out.push_back((None, Err(self.error(row, e))));
                    None
                }
            };
            self.group = Some(Group { key, row, record });
        }
        let passage = self.open_rag_passage();
        let Some(group) = self.group.as_mut() else { return };
        match (passage, &mut group.record) {
            (Ok(Some(ctx)), Some(rec)) => rec.contexts.push(ctx),
            (Ok(_), _) => {}
            (Err(e), _) => {
                group.record = None;
                let err = InputError::new(&self.name, Some(row), e.field, e.message);
                out.push_back((None, Err(err)));
            }
        }
    }

    fn open_rag_record(&self, key: &(String, String)) -> Result<Record, FieldError> {
        let query = self.required(&self.cols.query)?;
        let answer = self.required(&self.cols.answer)?;
        let run = match &self.cols.run {
            Some(col) if !key.1.is_empty() => Some(parse_run(&key.1, &col.name)?),
            _ => None,
        };
        let reference = self.optional(&self.cols.reference)?;
        let mut meta = Map::new();
        if let Some(run_id) = self.optional(&self.cols.run_id)? {
            meta.insert("run_id".into(), Value::String(run_id));
        }
        let meta = self.meta(meta)?;
        Ok(Record {
            id: key.0.clone(),
            system: self.system.clone(),
            query,
            contexts: Vec::new(),
            answer,
            reference,
            history: Vec::new(),
            steps: Vec::new(),
            run,
            meta,
        })
    }

    /// The passage of the current row; `None` when both passage and passage_id are empty
    /// (a query with nothing retrieved).
    fn open_rag_passage(&self) -> Result<Option<Context>, FieldError> {
        let id = self.optional(&self.cols.passage_id)?;
        let text = self.required(&self.cols.passage)?;
        if id.is_none() && text.is_empty() {
            return Ok(None);
        }
        Ok(Some(Context { id, text, relevance: None }))
    }

    /// Closes the current group, yielding its record unless one of its rows was bad.
    fn flush_group(&mut self, out: &mut VecDeque<Item>) {
        if let Some(g) = self.group.take() {
            self.closed.insert(key_hash(&g.key));
            if let Some(r) = g.record {
                out.push_back((Some(g.row), Ok(r)));
            }
        }
    }
}

/// Turns a CSV reading failure into a fatal error at `row`.
fn read_error(name: &str, guard: &Guard, row: u64, e: csv::Error, max: usize) -> InputError {
    let message = if guard.tripped.get() {
        format!("row is longer than the {} limit; cannot read past it", human_size(max))
    } else {
        match e.kind() {
            csv::ErrorKind::Io(io) => format!("read error: {io}"),
            _ => format!("invalid CSV: {}", excerpt(&e.to_string())),
        }
    };
    InputError::fatal(name, Some(row), message)
}

fn parse_json_cell(cell: &str, field: &str) -> Result<Value, FieldError> {
    serde_json::from_str(cell).map_err(|e| FieldError::new(field, json_error_message(&e)))
}

fn parse_run(cell: &str, field: &str) -> Result<u32, FieldError> {
    cell.trim()
        .parse::<u32>()
        .map_err(|_| FieldError::new(field, format!("expected a non-negative integer, found `{}`", excerpt(cell))))
}

/// A contexts cell: a JSON array (of strings or objects); for RAGAS also a Python list literal.
fn parse_contexts_cell(cell: &str, field: &str, python: bool) -> Result<Vec<Context>, FieldError> {
    match serde_json::from_str::<Value>(cell) {
        Ok(v) => contexts_from_value(v, field),
        Err(e) if !python => Err(FieldError::new(field, json_error_message(&e))),
        Err(_) => match parse_py_list(cell) {
            Ok(items) => Ok(items.into_iter().map(|text| Context { id: None, text, relevance: None }).collect()),
            Err(why) => {
                Err(FieldError::new(field, format!("expected a JSON array or a Python list of strings: {why}")))
            }
        },
    }
}
