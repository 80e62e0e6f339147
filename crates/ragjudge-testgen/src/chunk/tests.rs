use super::*;
use serde_json::Map;

fn doc(id: &str, text: &str) -> Document {
    Document { id: id.into(), title: None, text: text.into(), meta: Map::new(), source: String::new() }
}

fn span(text: &str, c: &Chunk) -> String {
    text.chars().skip(c.start).take(c.end - c.start).collect()
}

#[test]
fn chunks_pack_sentences_with_one_sentence_of_overlap() {
    // Sentences of 3, 2, 4 and 1 words.
    let text = "Caf\u{e9} is open. It rains. The sea is calm. Yes.";
    let d = doc("d", text);
    let out = chunk_documents(std::slice::from_ref(&d), ChunkOptions { max_tokens: 6, overlap_sentences: 1 }).unwrap();
    let texts: Vec<&str> = out.chunks.iter().map(|c| c.text.as_str()).collect();
    // [3+2], then back one sentence: [2+4], then [4+1].
    assert_eq!(texts, ["Caf\u{e9} is open. It rains.", "It rains. The sea is calm.", "The sea is calm. Yes."]);
    let tokens: Vec<usize> = out.chunks.iter().map(|c| c.tokens).collect();
    assert_eq!(tokens, [5, 6, 5]);
    assert_eq!(out.chunks[1].id, "d:1");
    // Character offsets ("é" is one character, two bytes).
    assert_eq!((out.chunks[1].start, out.chunks[1].end), (14, 40));
    for c in &out.chunks {
        assert_eq!(span(text, c), c.text);
    }
    let no_overlap =
        chunk_documents(std::slice::from_ref(&d), ChunkOptions { max_tokens: 6, overlap_sentences: 0 }).unwrap();
    let texts: Vec<&str> = no_overlap.chunks.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(texts, ["Caf\u{e9} is open. It rains.", "The sea is calm. Yes."]);
}

#[test]
fn a_sentence_over_the_budget_is_cut_at_words_and_counted() {
    let text = "one two three four five six seven. End.";
    let d = doc("d", text);
    let out = chunk_documents(std::slice::from_ref(&d), ChunkOptions { max_tokens: 3, overlap_sentences: 0 }).unwrap();
    let texts: Vec<&str> = out.chunks.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(texts, ["one two three", "four five six", "seven. End."]);
    assert_eq!(out.cut_sentences, 1);
    for c in &out.chunks {
        assert_eq!(span(text, c), c.text);
    }
}

#[test]
fn chinese_text_is_chunked_by_characters_and_marked_zh() {
    let text = "水在地球上循环。太阳提供能量。";
    let d = doc("z", text);
    let out = chunk_documents(std::slice::from_ref(&d), ChunkOptions { max_tokens: 8, overlap_sentences: 0 }).unwrap();
    let texts: Vec<&str> = out.chunks.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(texts, ["水在地球上循环。", "太阳提供能量。"]);
    assert_eq!(out.chunks[1].lang, "zh");
    assert_eq!((out.chunks[1].start, out.chunks[1].end), (8, 15));
}

#[test]
fn every_chunk_maps_back_to_its_document_on_the_example_collection() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/corpus/docs.jsonl");
    let corpus = crate::read_corpus(&[path], crate::ReadOptions::default()).unwrap();
    let out = chunk_documents(&corpus.documents, ChunkOptions { max_tokens: 40, overlap_sentences: 1 }).unwrap();
    assert!(out.chunks.len() > corpus.documents.len());
    for c in &out.chunks {
        let d = corpus.documents.iter().find(|d| d.id == c.doc_id).unwrap();
        assert_eq!(span(&d.text, c), c.text);
        assert!(c.tokens <= 40);
    }
    // Every non-space character of every document is in some chunk.
    for d in &corpus.documents {
        let mut covered: Vec<bool> = d.text.chars().map(char::is_whitespace).collect();
        for c in out.chunks.iter().filter(|c| c.doc_id == d.id) {
            covered[c.start..c.end].iter_mut().for_each(|x| *x = true);
        }
        assert!(covered.iter().all(|&x| x), "{}", d.id);
    }
    assert!(out.cut_sentences > 0);
}

#[test]
fn a_zero_budget_is_refused() {
    let err = chunk_documents(&[], ChunkOptions { max_tokens: 0, overlap_sentences: 0 }).unwrap_err();
    assert_eq!(err.to_string(), "invalid settings: chunk budget must be at least 1 token");
}
