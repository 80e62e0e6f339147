//! `ragjudge import`: trace files to records.

use crate::convention::interpret;
use crate::error::{Issue, TraceError};
use crate::group::records_from_spans;
use crate::span::Span;
use crate::{langfuse, otlp};
use ragjudge_artifacts::OutputSet;
use ragjudge_core::Record;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The layout of a trace file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TraceFormat {
    /// OTLP/JSON: an `ExportTraceServiceRequest` per file or per line.
    OtlpJson,
    /// OTLP protobuf: one `ExportTraceServiceRequest`, or length-prefixed frames.
    OtlpProto,
    /// A Langfuse export of traces with observations.
    Langfuse,
}

impl TraceFormat {
    /// Parses `otlp-json`, `otlp-proto` or `langfuse`.
    pub fn parse(s: &str) -> Result<Self, TraceError> {
        match s {
            "otlp-json" => Ok(Self::OtlpJson),
            "otlp-proto" => Ok(Self::OtlpProto),
            "langfuse" => Ok(Self::Langfuse),
            other => {
                Err(TraceError::Settings(format!("--format {other:?}: expected otlp-json, otlp-proto or langfuse")))
            }
        }
    }

    /// The format of a file's bytes: JSON holding `resourceSpans` is OTLP/JSON, other JSON is
    /// Langfuse, anything else is read as protobuf.
    pub fn detect(bytes: &[u8]) -> Self {
        let head = bytes.iter().copied().find(|b| !b.is_ascii_whitespace());
        match head {
            Some(b'{' | b'[') => {
                let probe = &bytes[..bytes.len().min(4096)];
                if probe.windows(13).any(|w| w == b"resourceSpans" || w == b"resource_span") {
                    Self::OtlpJson
                } else {
                    Self::Langfuse
                }
            }
            _ => Self::OtlpProto,
        }
    }
}

/// What to import.
#[derive(Debug, Clone)]
pub struct ImportSettings {
    /// Trace files.
    pub inputs: Vec<PathBuf>,
    /// Their format (`None`: detected per file).
    pub format: Option<TraceFormat>,
    /// The system name of every record (default: the service name, else `traces`).
    pub system: Option<String>,
    /// Where the records go (JSONL). Issues go beside it, in `OUTPUT.issues.jsonl`.
    pub output: PathBuf,
}

/// What an import did.
#[derive(Debug, Clone, Serialize)]
pub struct ImportSummary {
    /// Files read.
    pub files: usize,
    /// Spans (or Langfuse traces and observations) read.
    pub spans: usize,
    /// Spans left out as unreadable.
    pub bad_spans: usize,
    /// Spans read more than once (the first copy kept).
    pub duplicate_spans: usize,
    /// Traces found.
    pub traces: usize,
    /// Records written.
    pub records: usize,
    /// Traces without a question or an answer.
    pub skipped_traces: usize,
    /// Distinct conversations.
    pub sessions: usize,
    /// Records with more than one turn of history.
    pub multi_turn: usize,
    /// Agent steps in all records.
    pub steps: usize,
    /// The records file.
    pub output: PathBuf,
    /// The issues file, when anything was left out.
    pub issues_file: Option<PathBuf>,
    /// Everything left out, with the reason.
    #[serde(skip)]
    pub issues: Vec<Issue>,
}

/// Reads one trace file into spans (and the issues of spans that could not be read).
pub fn read_spans(path: &Path, format: Option<TraceFormat>) -> Result<(Vec<Span>, Vec<Issue>), TraceError> {
    let bytes = std::fs::read(path).map_err(|source| TraceError::Io { path: path.into(), source })?;
    let format = format.unwrap_or_else(|| TraceFormat::detect(&bytes));
    let bad = |line: Option<u64>, message: String| TraceError::Format { path: path.into(), line, message };
    let text = || std::str::from_utf8(&bytes).map_err(|e| bad(None, format!("not UTF-8 text: {e}")));
    let requests = match format {
        TraceFormat::Langfuse => {
            let items = langfuse::items(text()?).map_err(|(l, m)| bad(l, m))?;
            return Ok(langfuse::spans(&items));
        }
        TraceFormat::OtlpJson => otlp::decode_json(text()?).map_err(|(l, m)| bad(l, m))?,
        TraceFormat::OtlpProto => otlp::decode_proto(&bytes).map_err(|m| bad(None, m))?,
    };
    let mut spans = Vec::new();
    let mut issues = Vec::new();
    for raw in requests.iter().flat_map(otlp::raw_spans) {
        let (trace_id, span_id, name) = (raw.trace_id.clone(), raw.span_id.clone(), raw.name.clone());
        match interpret(raw) {
            Ok(s) => spans.push(s),
            Err(message) => issues.push(Issue { trace_id, span_id: Some(span_id), name: Some(name), message }),
        }
    }
    Ok((spans, issues))
}

/// Imports trace files into records: reads every file, groups the spans of all of them (a
/// trace may be split across files), writes the records and, when anything was left out, the
/// issues, atomically.
pub fn import(settings: &ImportSettings) -> Result<ImportSummary, TraceError> {
    if settings.inputs.is_empty() {
        return Err(TraceError::Settings("import: name at least one trace file".into()));
    }
    ragjudge_artifacts::check_not_input(&settings.output, &settings.inputs)?;
    let mut spans = Vec::new();
    let mut issues = Vec::new();
    for path in &settings.inputs {
        let (s, i) = read_spans(path, settings.format)?;
        spans.extend(s);
        issues.extend(i);
    }
    let read = spans.len() + issues.len();
    let bad_spans = issues.len();
    let traces = spans.iter().map(|s| s.trace_id.as_str()).collect::<std::collections::HashSet<_>>().len();
    let grouped = records_from_spans(spans, settings.system.as_deref());
    let skipped = grouped.issues.len();
    issues.extend(grouped.issues);
    let issues_file = issues_path(&settings.output);
    ragjudge_artifacts::create_parent_dirs(&settings.output)?;
    let mut out = OutputSet::new();
    out.push_bytes(&settings.output, &jsonl(&grouped.records)?)?;
    if issues.is_empty() {
        out.remove_if_unwritten(&issues_file);
    } else {
        out.push_bytes(&issues_file, &jsonl(&issues)?)?;
    }
    out.commit()?;
    Ok(ImportSummary {
        files: settings.inputs.len(),
        spans: read,
        bad_spans,
        duplicate_spans: grouped.duplicate_spans,
        traces,
        records: grouped.records.len(),
        skipped_traces: skipped,
        sessions: grouped.sessions,
        multi_turn: grouped.records.iter().filter(|r: &&Record| !r.history.is_empty()).count(),
        steps: grouped.records.iter().map(|r| r.steps.len()).sum(),
        output: settings.output.clone(),
        issues_file: (!issues.is_empty()).then_some(issues_file),
        issues,
    })
}

/// `OUTPUT.issues.jsonl` beside the records.
fn issues_path(output: &Path) -> PathBuf {
    let mut name = output.file_name().unwrap_or_default().to_os_string();
    name.push(".issues.jsonl");
    output.with_file_name(name)
}

fn jsonl<T: Serialize>(rows: &[T]) -> Result<Vec<u8>, TraceError> {
    let mut bytes = Vec::new();
    for r in rows {
        serde_json::to_writer(&mut bytes, r).map_err(|e| TraceError::Settings(format!("cannot serialise: {e}")))?;
        bytes.push(b'\n');
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_detected_from_the_bytes() {
        assert_eq!(TraceFormat::detect(b"  {\"resourceSpans\": []}"), TraceFormat::OtlpJson);
        assert_eq!(TraceFormat::detect(b"[{\"id\": \"t\", \"observations\": []}]"), TraceFormat::Langfuse);
        assert_eq!(TraceFormat::detect(b"\x0a\x02"), TraceFormat::OtlpProto);
        assert!(TraceFormat::parse("zipkin").unwrap_err().to_string().starts_with("--format \"zipkin\""));
    }
}
