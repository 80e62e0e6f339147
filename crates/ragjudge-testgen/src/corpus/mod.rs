//! Reading a document collection: JSONL, plain text, Markdown and HTML files, or directories of
//! them. Files that cannot be used (binary, not UTF-8, an unknown extension, empty) are skipped
//! with their reason and counted; a malformed JSONL line is an error naming file, line and
//! field, or a recorded skip when `skip_invalid` is set.

mod html;
mod markdown;

use std::path::{Path, PathBuf};

use ragjudge_core::read::type_name;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::TestgenError;

pub use html::html_to_text;
pub use markdown::markdown_to_text;

/// One document of the collection.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Document {
    /// Identifier: the JSONL `id` (or a passage's own `id`), else the file's path below the
    /// directory named on the command line.
    pub id: String,
    /// Title, when the source has one (JSONL `title`, HTML `<title>`, first Markdown heading).
    pub title: Option<String>,
    /// Plain text; chunk spans are character offsets into it.
    pub text: String,
    /// Free-form metadata (JSONL `meta`; `doc_id` of a passage's parent document).
    pub meta: Map<String, Value>,
    /// Where it was read from: `path` or `path:line`.
    pub source: String,
}

/// A file or line that was not used, and why.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Skip {
    /// `path` or `path:line`.
    pub source: String,
    /// Why it was skipped.
    pub reason: String,
}

/// The documents read, and everything left out with its reason.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Corpus {
    /// Documents in reading order (directories sorted by name).
    pub documents: Vec<Document>,
    /// Files and lines left out.
    pub skipped: Vec<Skip>,
}

/// How to read a collection.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOptions {
    /// Record a malformed JSONL line as skipped instead of failing.
    pub skip_invalid: bool,
}

/// The kinds of file a collection may hold, by extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Jsonl,
    Text,
    Markdown,
    Html,
}

fn kind_of(path: &Path) -> Option<Kind> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "jsonl" | "ndjson" => Some(Kind::Jsonl),
        "txt" | "text" => Some(Kind::Text),
        "md" | "markdown" => Some(Kind::Markdown),
        "html" | "htm" | "xhtml" => Some(Kind::Html),
        _ => None,
    }
}

/// Reads every file named or found below the directories named, in sorted order.
pub fn read_corpus(paths: &[PathBuf], options: ReadOptions) -> Result<Corpus, TestgenError> {
    let mut corpus = Corpus::default();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|source| TestgenError::Io { path: path.clone(), source })?;
        if meta.is_dir() {
            let mut files = Vec::new();
            walk(path, &mut files)?;
            for file in files {
                let id = file.strip_prefix(path).unwrap_or(&file).to_string_lossy().replace('\\', "/");
                read_file(&file, &id, options, &mut corpus)?;
            }
        } else {
            let id = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            read_file(path, &id, options, &mut corpus)?;
        }
    }
    if corpus.documents.is_empty() {
        let why = match corpus.skipped.first() {
            Some(s) => format!("{} file(s) or line(s) skipped, first {}: {}", corpus.skipped.len(), s.source, s.reason),
            None => "no files found".to_string(),
        };
        return Err(TestgenError::Empty(why));
    }
    Ok(corpus)
}

/// Files below `dir`, depth first, names sorted; hidden entries (`.name`) are not visited.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), TestgenError> {
    let io = |source| TestgenError::Io { path: dir.to_path_buf(), source };
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(dir).map_err(io)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>().map_err(io)?;
    entries.sort();
    for entry in entries {
        if entry.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with('.')) {
            continue;
        }
        if entry.is_dir() {
            walk(&entry, out)?;
        } else {
            out.push(entry);
        }
    }
    Ok(())
}

fn read_file(path: &Path, id: &str, options: ReadOptions, corpus: &mut Corpus) -> Result<(), TestgenError> {
    let source = path.display().to_string();
    let skip = |corpus: &mut Corpus, reason: String| corpus.skipped.push(Skip { source: source.clone(), reason });
    let Some(kind) = kind_of(path) else {
        skip(corpus, "not a collection file (.jsonl, .txt, .md, .html)".into());
        return Ok(());
    };
    let bytes = std::fs::read(path).map_err(|source| TestgenError::Io { path: path.to_path_buf(), source })?;
    if bytes.contains(&0) {
        skip(corpus, "binary file (contains NUL bytes)".into());
        return Ok(());
    }
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            skip(corpus, format!("not UTF-8 (invalid byte at offset {})", e.utf8_error().valid_up_to()));
            return Ok(());
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let stem = || path.file_stem().map(|s| s.to_string_lossy().into_owned());
    let (title, body) = match kind {
        Kind::Jsonl => return read_jsonl(path, text, options, corpus),
        Kind::Text => (stem(), text.to_string()),
        Kind::Markdown => {
            let (title, body) = markdown_to_text(text);
            (title.or_else(stem), body)
        }
        Kind::Html => {
            let (title, body) = html_to_text(text);
            (title.or_else(stem), body)
        }
    };
    if body.trim().is_empty() {
        skip(corpus, "no text".into());
        return Ok(());
    }
    corpus.documents.push(Document { id: id.to_string(), title, text: body, meta: Map::new(), source });
    Ok(())
}

/// One JSONL line: `{"id", "text", "title"?, "meta"?}`, or a document of passages
/// `{"doc_id"|"id", "title"?, "passages": [{"id", "text"}]}` whose passages become documents
/// of their own (keeping their ids, so questions cite the passages a run retrieves).
fn read_jsonl(path: &Path, text: &str, options: ReadOptions, corpus: &mut Corpus) -> Result<(), TestgenError> {
    for (k, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let lineno = k + 1;
        match parse_line(line) {
            Ok(docs) => {
                for mut d in docs {
                    d.source = format!("{}:{lineno}", path.display());
                    if d.text.trim().is_empty() {
                        corpus.skipped.push(Skip { source: d.source, reason: format!("document {}: no text", d.id) });
                    } else {
                        corpus.documents.push(d);
                    }
                }
            }
            Err((field, message)) => {
                if options.skip_invalid {
                    corpus.skipped.push(Skip {
                        source: format!("{}:{lineno}", path.display()),
                        reason: format!("{field}: {message}"),
                    });
                } else {
                    return Err(TestgenError::Line { path: path.to_path_buf(), line: lineno, field, message });
                }
            }
        }
    }
    Ok(())
}

type FieldError = (String, String);

fn parse_line(line: &str) -> Result<Vec<Document>, FieldError> {
    let value: Value = serde_json::from_str(line).map_err(|e| ("json".to_string(), e.to_string()))?;
    let Value::Object(obj) = value else {
        return Err(("json".into(), "expected an object".into()));
    };
    let string = |key: &str| -> Result<Option<String>, FieldError> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err((key.to_string(), format!("expected a string, found {}", type_name(other)))),
        }
    };
    let id = match string("id")? {
        Some(id) => id,
        None => string("doc_id")?.ok_or_else(|| ("id".to_string(), "missing (also no doc_id)".to_string()))?,
    };
    let title = string("title")?;
    let meta = match obj.get("meta") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(other) => return Err(("meta".into(), format!("expected an object, found {}", type_name(other)))),
    };
    if let Some(text) = string("text")? {
        return Ok(vec![Document { id, title, text, meta, source: String::new() }]);
    }
    let Some(passages) = obj.get("passages") else {
        return Err(("text".into(), "missing (and no passages)".into()));
    };
    let Value::Array(passages) = passages else {
        return Err(("passages".into(), format!("expected an array, found {}", type_name(passages))));
    };
    let mut docs = Vec::with_capacity(passages.len());
    for (i, p) in passages.iter().enumerate() {
        let field = |name: &str| format!("passages[{i}].{name}");
        let Value::Object(p) = p else {
            return Err((format!("passages[{i}]"), "expected an object".into()));
        };
        let text = match p.get("text") {
            Some(Value::String(s)) => s.clone(),
            Some(other) => return Err((field("text"), format!("expected a string, found {}", type_name(other)))),
            None => return Err((field("text"), "missing".into())),
        };
        let pid = match p.get("id") {
            Some(Value::String(s)) => s.clone(),
            None | Some(Value::Null) => format!("{id}#{}", i + 1),
            Some(other) => return Err((field("id"), format!("expected a string, found {}", type_name(other)))),
        };
        let mut m = meta.clone();
        m.insert("doc_id".into(), Value::String(id.clone()));
        docs.push(Document { id: pid, title: title.clone(), text, meta: m, source: String::new() });
    }
    Ok(docs)
}

#[cfg(test)]
mod tests;
