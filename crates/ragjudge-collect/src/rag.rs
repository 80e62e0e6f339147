//! The built-in reference RAG: the corpus cut into the same chunks `ragjudge testgen` makes,
//! BM25 retrieval through tantivy ([`crate::bm25`]), an optional re-rank of the BM25
//! candidates by embedding cosine, and an answer from a judge model (local or HTTP) that cites
//! its passages as `[n]`, in the question's language (prompts `prompts/rag-{en,zh}-v1.txt`).
//! Without retrieval it answers from the model's own knowledge: the `low` baseline tier.

use crate::bm25::Bm25Index;
use crate::error::CollectError;
use crate::questions::Question;
use crate::target::{Answer, CallError, Target};
use ragjudge_core::numeric::{cosine_or_zero, CosineError};
use ragjudge_core::text::{detect_lang, Lang};
use ragjudge_core::Context;
use ragjudge_models::{Embedder, GenParams, Judge, Message, ModelError, Prompt};
use ragjudge_testgen::generate::PromptSet;
use ragjudge_testgen::{chunk_documents, read_corpus, Chunk, ChunkOptions, Corpus, ReadOptions};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;

const EN_V1: &str = include_str!("../prompts/rag-en-v1.txt");
const ZH_V2: &str = include_str!("../prompts/rag-zh-v2.txt");
/// The prompt versions, part of the target's identity (a new version asks again).
const PROMPTS: &str = "rag-en-v1+rag-zh-v2";

/// The prompts for a question's language, parsed once.
fn prompts(question: &str) -> &'static PromptSet {
    static EN: OnceLock<PromptSet> = OnceLock::new();
    static ZH: OnceLock<PromptSet> = OnceLock::new();
    match detect_lang(question) {
        Lang::Zh => ZH.get_or_init(|| PromptSet::parse("rag-zh-v2", ZH_V2)),
        Lang::En => EN.get_or_init(|| PromptSet::parse("rag-en-v1", EN_V1)),
    }
}

/// The corpus as chunks, with their BM25 index.
#[derive(Debug)]
pub struct Passages {
    chunks: Vec<Chunk>,
    by_id: HashMap<String, usize>,
    index: Bm25Index,
    fingerprint: String,
}

impl Passages {
    /// Indexes `chunks`.
    pub fn new(chunks: Vec<Chunk>) -> Result<Self, CollectError> {
        let index = Bm25Index::build(chunks.iter().map(|c| c.text.as_str()))?;
        let by_id = chunks.iter().enumerate().map(|(i, c)| (c.id.clone(), i)).collect();
        let listed: Vec<(&str, &str)> = chunks.iter().map(|c| (c.id.as_str(), c.text.as_str())).collect();
        let fingerprint = ragjudge_store::cache_key("passages", "chunks-v1", &listed);
        Ok(Self { chunks, by_id, index, fingerprint })
    }

    /// Reads and chunks a corpus as `ragjudge testgen` does (same reader, same chunker), so
    /// that chunk ids agree with the questions' `meta.source_ids`.
    pub fn from_corpus(
        paths: &[PathBuf],
        read: ReadOptions,
        chunk: ChunkOptions,
    ) -> Result<(Self, Corpus), CollectError> {
        let corpus = read_corpus(paths, read)?;
        let chunking = chunk_documents(&corpus.documents, chunk)?;
        Ok((Self::new(chunking.chunks)?, corpus))
    }

    /// Chunks indexed.
    pub fn len(&self) -> usize {
        self.chunks.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// Every chunk, in corpus order.
    pub fn chunks(&self) -> &[Chunk] {
        &self.chunks
    }

    /// The chunk with id `id`.
    pub fn get(&self, id: &str) -> Option<&Chunk> {
        self.by_id.get(id).map(|&i| &self.chunks[i])
    }

    /// A hash of every chunk's id and text: the answers' cache identity changes with the corpus.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
}

/// How the reference RAG retrieves and answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RagOptions {
    /// Passages given to the model.
    pub k: usize,
    /// BM25 candidates re-ranked by embedding cosine (used only with an embedder).
    pub candidates: usize,
    /// Most tokens in an answer.
    pub max_tokens: u32,
}

impl Default for RagOptions {
    fn default() -> Self {
        Self { k: 5, candidates: 20, max_tokens: 256 }
    }
}

/// Where the model's passages come from.
pub enum Retrieval {
    /// BM25 over the corpus, optionally re-ranked by embedding cosine.
    Corpus {
        /// The indexed corpus.
        passages: std::sync::Arc<Passages>,
        /// Re-ranks the BM25 candidates when given.
        embedder: Option<Box<dyn Embedder>>,
    },
    /// No passages: the model answers from its own knowledge (the `low` tier).
    ClosedBook,
}

impl Retrieval {
    /// The best `options.k` passages for `query`, best first (none closed-book).
    pub fn retrieve(&self, query: &str, options: &RagOptions) -> Result<Vec<Context>, CallError> {
        let Retrieval::Corpus { passages, embedder } = self else {
            return Ok(Vec::new());
        };
        let wanted = if embedder.is_some() { options.candidates.max(options.k) } else { options.k };
        let mut hits: Vec<usize> = passages
            .index
            .search(query, wanted)
            .map_err(|e| CallError::fatal(e.to_string()))?
            .into_iter()
            .map(|(i, _)| i)
            .collect();
        if let Some(emb) = embedder {
            if hits.len() > 1 {
                let texts: Vec<&str> = hits.iter().map(|&i| passages.chunks[i].text.as_str()).collect();
                let q = emb.embed(&[query]).map_err(call_error)?;
                let v = emb.embed_passages(&texts).map_err(call_error)?;
                let q = q.first().ok_or_else(|| CallError::fatal("re-ranking: no vector for the question"))?;
                let mut scored = hits
                    .iter()
                    .zip(&v)
                    .map(|(&i, e)| Ok((i, cosine_or_zero(q, e)?)))
                    .collect::<Result<Vec<(usize, f64)>, CosineError>>()
                    .map_err(|e| CallError::fatal(format!("re-ranking: {e}")))?;
                // Stable: equal cosines keep their BM25 order.
                scored.sort_by(|a, b| b.1.total_cmp(&a.1));
                hits = scored.into_iter().map(|(i, _)| i).collect();
            }
        }
        hits.truncate(options.k);
        Ok(hits
            .into_iter()
            .map(|i| {
                let c = &passages.chunks[i];
                Context { id: Some(c.id.clone()), text: c.text.clone(), relevance: None }
            })
            .collect())
    }
}

/// The built-in RAG's retrieval alone as a [`Target`]: each question's passages and no answer,
/// so that `score --metrics retrieval` measures a retriever (BM25, or BM25 re-ranked) without
/// asking any model.
pub struct RetrievalOnly {
    retrieval: Retrieval,
    options: RagOptions,
    identity: String,
}

impl std::fmt::Debug for RetrievalOnly {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RetrievalOnly").field("options", &self.options).finish_non_exhaustive()
    }
}

impl RetrievalOnly {
    /// BM25 over `passages`, re-ranked by `embedder` when given.
    pub fn new(
        passages: std::sync::Arc<Passages>,
        embedder: Option<Box<dyn Embedder>>,
        options: RagOptions,
    ) -> Result<Self, CollectError> {
        if options.k == 0 {
            return Err(CollectError::Settings("retrieval needs k >= 1 passages".into()));
        }
        if passages.is_empty() {
            return Err(CollectError::Settings("the corpus to retrieve from has no text".into()));
        }
        let identity = format!(
            "retrieve-v1|{}|k={}|rerank={}|candidates={}",
            passages.fingerprint(),
            options.k,
            embedder.as_ref().map_or("none".to_string(), |e| e.identity()),
            options.candidates
        );
        Ok(Self { retrieval: Retrieval::Corpus { passages, embedder }, options, identity })
    }
}

impl Target for RetrievalOnly {
    fn identity(&self) -> String {
        self.identity.clone()
    }

    fn answer(&self, question: &Question) -> Result<Answer, CallError> {
        let contexts = self.retrieval.retrieve(&question.record.query, &self.options)?;
        Ok(Answer { answer: String::new(), contexts })
    }
}

/// The built-in reference RAG as a [`Target`].
pub struct ReferenceRag {
    retrieval: Retrieval,
    model: Box<dyn Judge>,
    options: RagOptions,
}

impl std::fmt::Debug for ReferenceRag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReferenceRag").field("model", &self.model.identity()).field("options", &self.options).finish()
    }
}

/// A model failure as a call failure: HTTP trouble and timeouts may pass, the rest will not.
fn call_error(e: ModelError) -> CallError {
    let message = e.to_string();
    match e {
        ModelError::Timeout(_) | ModelError::Http { .. } => CallError::transient(message),
        _ => CallError::fatal(message),
    }
}

impl ReferenceRag {
    /// A RAG answering with `model` over `retrieval`.
    pub fn new(retrieval: Retrieval, model: Box<dyn Judge>, options: RagOptions) -> Result<Self, CollectError> {
        if options.k == 0 {
            return Err(CollectError::Settings("the reference RAG needs k >= 1 passages".into()));
        }
        if let Retrieval::Corpus { passages, .. } = &retrieval {
            if passages.is_empty() {
                return Err(CollectError::Settings("the corpus of the reference RAG has no text".into()));
            }
        }
        Ok(Self { retrieval, model, options })
    }

    /// The passages for `query`, best first.
    pub fn retrieve(&self, query: &str) -> Result<Vec<Context>, CallError> {
        self.retrieval.retrieve(query, &self.options)
    }

    /// The prompt for a question and its passages.
    pub fn prompt(&self, question: &Question, contexts: &[Context]) -> Prompt {
        let q = &question.record;
        let p = prompts(&q.query);
        let (system, user) = match self.retrieval {
            Retrieval::ClosedBook => (p.section("closed_book_system"), p.section("closed_book_user").to_string()),
            Retrieval::Corpus { .. } => {
                let listed = if contexts.is_empty() {
                    p.section("no_passages").to_string()
                } else {
                    let items: Vec<String> =
                        contexts.iter().enumerate().map(|(i, c)| format!("[{}] {}", i + 1, c.text.trim())).collect();
                    items.join("\n\n")
                };
                (p.section("system"), p.section("user").replace("{passages}", &listed))
            }
        };
        let mut messages = vec![Message::new("system", system)];
        messages.extend(q.history.iter().map(|t| Message::new(&t.role, t.text.clone())));
        messages.push(Message::new("user", user.replace("{question}", q.query.trim())));
        Prompt { messages, assistant_prefix: None }
    }
}

impl Target for ReferenceRag {
    fn identity(&self) -> String {
        let o = &self.options;
        match &self.retrieval {
            Retrieval::ClosedBook => format!("closed-book-v1|{}|max_tokens={}", self.model.identity(), o.max_tokens),
            Retrieval::Corpus { passages, embedder } => format!(
                "rag-v1|prompts={PROMPTS}|{}|{}|k={}|rerank={}|candidates={}|max_tokens={}",
                self.model.identity(),
                passages.fingerprint(),
                o.k,
                embedder.as_ref().map_or("none".to_string(), |e| e.identity()),
                o.candidates,
                o.max_tokens
            ),
        }
    }

    fn answer(&self, question: &Question) -> Result<Answer, CallError> {
        let contexts = self.retrieve(&question.record.query)?;
        let prompt = self.prompt(question, &contexts);
        let params = GenParams { max_tokens: self.options.max_tokens, ..GenParams::default() };
        let generation = self.model.generate(&prompt, &params).map_err(call_error)?;
        let answer = generation.text.trim().to_string();
        if answer.is_empty() {
            return Err(CallError::fatal("the model wrote an empty answer"));
        }
        Ok(Answer { answer, contexts })
    }
}
