//! Chunking a document by sentences under a token budget, with overlap (HCAT section 2, step
//! 1). A chunk is a contiguous slice of its document: `start..end` are character (Unicode scalar
//! value) offsets, so `text.chars().skip(start).take(end - start)` is the chunk's text exactly.
//! Tokens are the word tokens of [`ragjudge_core::text::words`] (a CJK character counts as one).
//! A sentence longer than the budget is cut at word boundaries into budget-sized pieces, and
//! counted.

use ragjudge_core::text::{detect_lang, split_sentences, words, Lang};
use serde::Serialize;

use crate::corpus::Document;
use crate::error::TestgenError;

/// How to cut documents into chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ChunkOptions {
    /// Most word tokens in one chunk.
    pub max_tokens: usize,
    /// Sentences repeated at the start of the next chunk.
    pub overlap_sentences: usize,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        Self { max_tokens: 160, overlap_sentences: 1 }
    }
}

impl ChunkOptions {
    /// Checks the settings.
    pub fn check(&self) -> Result<(), TestgenError> {
        if self.max_tokens == 0 {
            return Err(TestgenError::Settings("chunk budget must be at least 1 token".into()));
        }
        Ok(())
    }
}

/// A contiguous piece of one document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Chunk {
    /// `DOCUMENT_ID:INDEX`.
    pub id: String,
    /// The document it comes from.
    pub doc_id: String,
    /// Character offset of the first character in the document's text.
    pub start: usize,
    /// Character offset just past the last character.
    pub end: usize,
    /// The text, `document.text[start..end]` in characters.
    pub text: String,
    /// Word tokens.
    pub tokens: usize,
    /// `en` or `zh`.
    pub lang: &'static str,
}

/// Chunks of a collection and what the chunker had to do.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Chunking {
    /// All chunks, document by document.
    pub chunks: Vec<Chunk>,
    /// Sentences longer than the budget that were cut at word boundaries.
    pub cut_sentences: usize,
}

/// A byte range of the document text with its token count.
#[derive(Debug, Clone, Copy)]
struct Piece {
    start: usize,
    end: usize,
    tokens: usize,
}

/// Chunks every document.
pub fn chunk_documents(documents: &[Document], options: ChunkOptions) -> Result<Chunking, TestgenError> {
    options.check()?;
    let mut out = Chunking::default();
    for doc in documents {
        chunk_one(doc, options, &mut out);
    }
    Ok(out)
}

fn offset_in(text: &str, part: &str) -> usize {
    part.as_ptr() as usize - text.as_ptr() as usize
}

fn chunk_one(doc: &Document, options: ChunkOptions, out: &mut Chunking) {
    let text = doc.text.as_str();
    let mut pieces: Vec<Piece> = Vec::new();
    for sentence in split_sentences(text) {
        let start = offset_in(text, sentence);
        let toks = words(sentence);
        if toks.len() <= options.max_tokens {
            pieces.push(Piece { start, end: start + sentence.len(), tokens: toks.len() });
            continue;
        }
        out.cut_sentences += 1;
        for (k, group) in toks.chunks(options.max_tokens).enumerate() {
            let piece_start = if k == 0 { start } else { offset_in(text, group[0]) };
            let last = group[group.len() - 1];
            let is_last = (k + 1) * options.max_tokens >= toks.len();
            let piece_end = if is_last { start + sentence.len() } else { offset_in(text, last) + last.len() };
            pieces.push(Piece { start: piece_start, end: piece_end, tokens: group.len() });
        }
    }
    let mut first = 0usize;
    let mut index = 0usize;
    while first < pieces.len() {
        let mut last = first;
        let mut tokens = pieces[first].tokens;
        while last + 1 < pieces.len() && tokens + pieces[last + 1].tokens <= options.max_tokens {
            last += 1;
            tokens += pieces[last].tokens;
        }
        let (b0, b1) = (pieces[first].start, pieces[last].end);
        let start = text[..b0].chars().count();
        let slice = &text[b0..b1];
        let lang = match detect_lang(slice) {
            Lang::Zh => "zh",
            Lang::En => "en",
        };
        out.chunks.push(Chunk {
            id: format!("{}:{index}", doc.id),
            doc_id: doc.id.clone(),
            start,
            end: start + slice.chars().count(),
            text: slice.to_string(),
            tokens,
            lang,
        });
        index += 1;
        if last + 1 >= pieces.len() {
            break;
        }
        // Step back by the overlap, but always move forward by at least one piece.
        first = (last + 1).saturating_sub(options.overlap_sentences).max(first + 1);
    }
}

#[cfg(test)]
mod tests;
