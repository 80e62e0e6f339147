//! The `high` baseline tier: each question's reference answer, citing the passages it was
//! written from. With the built-in RAG ([`crate::rag`], `medium`) and the model without
//! retrieval (`low`) it places a system under test on DICE's baseline scale without three
//! other systems.

use crate::questions::Question;
use crate::rag::Passages;
use crate::target::{Answer, CallError, Target};
use ragjudge_core::text::words;
use ragjudge_core::Context;
use ragjudge_testgen::Chunk;
use serde_json::Value;
use std::collections::HashSet;
use std::sync::Arc;

/// Reference answers with their source passages, as a [`Target`].
#[derive(Debug)]
pub struct ReferenceAnswers {
    passages: Arc<Passages>,
}

impl ReferenceAnswers {
    /// Source passages are looked up by id in `passages`.
    pub fn new(passages: Arc<Passages>) -> Self {
        Self { passages }
    }
}

impl Target for ReferenceAnswers {
    fn identity(&self) -> String {
        format!("reference-v1|{}", self.passages.fingerprint())
    }

    fn answer(&self, question: &Question) -> Result<Answer, CallError> {
        let q = &question.record;
        let reference = q.reference.as_deref().map(str::trim).filter(|r| !r.is_empty());
        let Some(reference) = reference else {
            return Err(CallError::fatal("the question has no reference answer"));
        };
        let sources: Vec<String> = match q.meta.get("source_ids").and_then(Value::as_array) {
            Some(ids) => ids.iter().filter_map(Value::as_str).map(str::to_string).collect(),
            None => question.relevant.clone(),
        };
        let mut contexts = Vec::with_capacity(sources.len());
        for id in &sources {
            let chunk = self
                .passages
                .get(id)
                .or_else(|| best_chunk_of_document(&self.passages, id, reference))
                .ok_or_else(|| {
                    CallError::fatal(format!(
                        "source passage {id:?} is neither a chunk nor a document of the corpus (chunked with other settings than testgen's?)"
                    ))
                })?;
            contexts.push(Context { id: Some(chunk.id.clone()), text: chunk.text.clone(), relevance: None });
        }
        // An unanswerable question's source does not answer it: nothing to cite.
        let unanswerable = q.meta.get("query_type").and_then(Value::as_str) == Some("unanswerable");
        let answer = if unanswerable || contexts.is_empty() {
            reference.to_string()
        } else {
            let cites: String = (1..=contexts.len()).map(|n| format!("[{n}]")).collect();
            format!("{reference} {cites}")
        };
        Ok(Answer { answer, contexts })
    }
}

/// For a question set that names the source document rather than the chunk: the chunk of
/// document `doc` that holds the most distinct word tokens of the reference (a CJK character is
/// a token), the first of those on ties; `None` when the corpus has no such document.
fn best_chunk_of_document<'a>(passages: &'a Passages, doc: &str, reference: &str) -> Option<&'a Chunk> {
    let wanted: HashSet<String> = words(reference).into_iter().map(str::to_lowercase).collect();
    let shared = |c: &Chunk| {
        let have: HashSet<String> = words(&c.text).into_iter().map(str::to_lowercase).collect();
        wanted.intersection(&have).count()
    };
    let mut best: Option<(&Chunk, usize)> = None;
    for c in passages.chunks().iter().filter(|c| c.doc_id == doc) {
        let n = shared(c);
        if best.is_none_or(|(_, m)| n > m) {
            best = Some((c, n));
        }
    }
    best.map(|(c, _)| c)
}
