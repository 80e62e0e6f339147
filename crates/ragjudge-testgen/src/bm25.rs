//! BM25 retrieval over corpus chunks through tantivy (Robertson and Zaragoza 2009, the Okapi
//! BM25 form with `k1 = 1.2`, `b = 0.75`: `score(q, d) = sum over distinct query terms t of
//! idf(t) * (k1 + 1) * tf / (tf + k1 * (1 - b + b * |d| / avgdl))`, `idf(t) = ln(1 + (N - n_t +
//! 0.5) / (n_t + 0.5))`).
//!
//! Texts are split into lower-cased word tokens by [`ragjudge_core::text::words`] (a CJK
//! character is one token, so Chinese is searched by characters) before tantivy sees them, so
//! the index and the rest of ragjudge agree on what a word is. tantivy stores document lengths
//! in a lossy one-byte code: lengths up to 40 tokens are exact, longer ones are rounded.

use crate::error::TestgenError;
use ragjudge_core::text::words;
use std::collections::HashSet;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, Value as _, STORED};
use tantivy::{doc, Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

/// Memory budget of the index writer.
const WRITER_BYTES: usize = 64 << 20;

/// An in-memory BM25 index over a list of texts, searched by position in that list.
pub struct Bm25Index {
    reader: IndexReader,
    body: Field,
    position: Field,
    len: usize,
}

impl std::fmt::Debug for Bm25Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bm25Index").field("len", &self.len).finish_non_exhaustive()
    }
}

/// Lower-cased word tokens.
fn terms(text: &str) -> Vec<String> {
    words(text).into_iter().map(str::to_lowercase).collect()
}

impl Bm25Index {
    /// Indexes `texts`; a hit names its text by position.
    pub fn build<'a>(texts: impl IntoIterator<Item = &'a str>) -> Result<Self, TestgenError> {
        let mut schema = Schema::builder();
        let indexing =
            TextFieldIndexing::default().set_tokenizer("whitespace").set_index_option(IndexRecordOption::WithFreqs);
        let body = schema.add_text_field("body", TextOptions::default().set_indexing_options(indexing));
        let position = schema.add_u64_field("position", STORED);
        let index = Index::create_in_ram(schema.build());
        let mut writer: IndexWriter = index.writer_with_num_threads(1, WRITER_BYTES)?;
        let mut len = 0usize;
        for text in texts {
            writer.add_document(doc!(body => terms(text).join(" "), position => len as u64))?;
            len += 1;
        }
        writer.commit()?;
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        Ok(Self { reader, body, position, len })
    }

    /// Texts indexed.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The `k` best texts for `query` as (position, BM25 score), best first; texts that share
    /// no term with the query are not returned.
    pub fn search(&self, query: &str, k: usize) -> Result<Vec<(usize, f32)>, TestgenError> {
        let mut seen = HashSet::new();
        let clauses: Vec<(Occur, Box<dyn Query>)> = terms(query)
            .into_iter()
            .filter(|t| seen.insert(t.clone()))
            .map(|t| {
                let q = TermQuery::new(Term::from_field_text(self.body, &t), IndexRecordOption::WithFreqs);
                (Occur::Should, Box::new(q) as Box<dyn Query>)
            })
            .collect();
        if clauses.is_empty() || k == 0 || self.len == 0 {
            return Ok(Vec::new());
        }
        let searcher = self.reader.searcher();
        let top = searcher.search(&BooleanQuery::new(clauses), &TopDocs::with_limit(k).order_by_score())?;
        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            let doc: TantivyDocument = searcher.doc(address)?;
            let pos = doc
                .get_first(self.position)
                .and_then(|v| v.as_u64())
                .ok_or_else(|| TestgenError::Index("a document lost its position".into()))?;
            hits.push((pos as usize, score));
        }
        Ok(hits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// BM25 by hand, from the formula in the module documentation.
    fn bm25(tf: f64, dl: f64, avgdl: f64, n_docs: f64, df: f64) -> f64 {
        let idf = (1.0 + (n_docs - df + 0.5) / (df + 0.5)).ln();
        idf * 2.2 * tf / (tf + 1.2 * (0.25 + 0.75 * dl / avgdl))
    }

    #[test]
    fn scores_follow_the_okapi_formula() {
        let docs = ["the cat sat on the mat", "the dog chased the cat", "birds fly south", "a cat and a cat"];
        let index = Bm25Index::build(docs).unwrap();
        // Lengths 6, 5, 3, 5: avgdl 19/4. "cat" is in 3 of 4 texts, "dog" in 1.
        let avgdl = 19.0 / 4.0;
        let hits = index.search("Cat dog cat", 10).unwrap();
        let got: Vec<usize> = hits.iter().map(|h| h.0).collect();
        let expect1 = bm25(1.0, 5.0, avgdl, 4.0, 3.0) + bm25(1.0, 5.0, avgdl, 4.0, 1.0);
        let expect3 = bm25(2.0, 5.0, avgdl, 4.0, 3.0);
        let expect0 = bm25(1.0, 6.0, avgdl, 4.0, 3.0);
        assert_eq!(got, vec![1, 3, 0], "text 2 shares no term and is not returned");
        for ((_, s), e) in hits.iter().zip([expect1, expect3, expect0]) {
            assert!((f64::from(*s) - e).abs() < 1e-4, "{s} vs {e}");
        }
    }

    #[test]
    fn chinese_is_searched_by_characters_and_k_bounds_the_hits() {
        let docs = ["水循环包括蒸发和降水", "光合作用发生在叶绿体中", "蒸发是水变成水蒸气"];
        let index = Bm25Index::build(docs).unwrap();
        let hits = index.search("什么是蒸发？", 1).unwrap();
        assert_eq!(hits.len(), 1);
        assert!(hits[0].0 == 0 || hits[0].0 == 2);
        assert!(index.search("", 5).unwrap().is_empty());
        assert!(index.search("叶绿体", 5).unwrap().iter().any(|h| h.0 == 1));
    }
}
