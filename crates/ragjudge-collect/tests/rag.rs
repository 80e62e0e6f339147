//! The built-in reference RAG and the reference tier with a scripted model: BM25 picks the
//! passages, the prompt numbers them and asks for `[n]` citations in the question's language,
//! the closed-book tier sends no passages, and the reference tier cites the question's sources.

use ragjudge_collect::questions::{question_from_json, Question};
use ragjudge_collect::rag::{Passages, RagOptions, ReferenceRag, Retrieval, RetrievalOnly};
use ragjudge_collect::reference::ReferenceAnswers;
use ragjudge_collect::run::{collect, CollectSettings, KNOWN_RELEVANT};
use ragjudge_collect::Target;
use ragjudge_models::{GenParams, Generation, Judge, LabelProbs, ModelError, Prompt, Usage};
use ragjudge_store::CallCache;
use ragjudge_testgen::{ChunkOptions, ReadOptions};
use serde_json::json;
use std::sync::{Arc, Mutex};

/// Answers "It is so [1]." and keeps every prompt.
#[derive(Default)]
struct Scripted {
    prompts: Arc<Mutex<Vec<Prompt>>>,
}

impl Judge for Scripted {
    fn identity(&self) -> String {
        "scripted".into()
    }
    fn generate(&self, prompt: &Prompt, _: &GenParams) -> Result<Generation, ModelError> {
        self.prompts.lock().unwrap().push(prompt.clone());
        Ok(Generation { text: "  It is so [1].\n".into(), ..Generation::default() })
    }
    fn label_probs(&self, _: &Prompt, _: &[String]) -> Result<LabelProbs, ModelError> {
        Err(ModelError::NoLogprobs)
    }
    fn usage(&self) -> Usage {
        Usage::default()
    }
}

fn corpus(dir: &std::path::Path) -> Arc<Passages> {
    let path = dir.join("docs.jsonl");
    let docs = [
        json!({"id": "water", "text": "Evaporation turns liquid water into water vapour. Condensation forms clouds from the vapour."}),
        json!({"id": "plants", "text": "Photosynthesis in chloroplasts turns light, water and carbon dioxide into sugar and oxygen."}),
        json!({"id": "rust", "text": "The borrow checker enforces that references never outlive the data they point to."}),
        json!({"id": "zh", "text": "蒸发是液态水变成水蒸气的过程。"}),
    ];
    std::fs::write(&path, docs.iter().map(|d| d.to_string() + "\n").collect::<String>()).unwrap();
    let (p, _) = Passages::from_corpus(&[path], ReadOptions::default(), ChunkOptions::default()).unwrap();
    Arc::new(p)
}

fn question(id: &str, query: &str, meta: serde_json::Value) -> Question {
    question_from_json(json!({"id": id, "query": query, "reference": "Evaporation.", "meta": meta}), "q.jsonl", 1)
        .unwrap()
}

#[test]
fn bm25_passages_are_numbered_in_the_prompt_and_cited_ids_kept() {
    let dir = tempfile::tempdir().unwrap();
    let passages = corpus(dir.path());
    assert_eq!(passages.len(), 4);
    let model = Scripted::default();
    let prompts = Arc::clone(&model.prompts);
    let options = RagOptions { k: 2, ..RagOptions::default() };
    let rag = ReferenceRag::new(
        Retrieval::Corpus { passages: Arc::clone(&passages), embedder: None },
        Box::new(model),
        options,
    )
    .unwrap();
    let q = question("q1", "What turns liquid water into vapour?", json!({"source_ids": ["water:0"]}));
    let out = collect(&[q], &rag, &CallCache::disabled(), &CollectSettings::default(), &|_, _| {});
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    let r = &out.records[0];
    assert_eq!(r.answer, "It is so [1].");
    assert_eq!(r.contexts.len(), 2);
    assert_eq!(r.contexts[0].id.as_deref(), Some("water:0"), "the water passage ranks first");
    assert_eq!(r.contexts[0].relevance, Some(KNOWN_RELEVANT));
    let p = prompts.lock().unwrap()[0].clone();
    assert_eq!(p.messages[0].role, "system");
    assert!(p.messages[0].content.contains("cite the passages"));
    let user = &p.messages.last().unwrap().content;
    assert!(user.starts_with("Passages:\n[1] Evaporation turns liquid water"), "{user}");
    assert!(user.contains("\n\n[2] "), "{user}");
    assert!(user.ends_with("Question: What turns liquid water into vapour?"), "{user}");
}

#[test]
fn chinese_questions_get_chinese_prompts_and_closed_book_gets_no_passages() {
    let dir = tempfile::tempdir().unwrap();
    let passages = corpus(dir.path());
    let model = Scripted::default();
    let prompts = Arc::clone(&model.prompts);
    let rag = ReferenceRag::new(Retrieval::Corpus { passages, embedder: None }, Box::new(model), RagOptions::default())
        .unwrap();
    let a = rag.answer(&question("z1", "什么是蒸发？", json!({}))).unwrap();
    assert_eq!(a.contexts[0].text, "蒸发是液态水变成水蒸气的过程。");
    let user = prompts.lock().unwrap()[0].messages.last().unwrap().content.clone();
    assert!(user.starts_with("段落：\n[1] 蒸发"), "{user}");
    assert!(user.ends_with("问题：什么是蒸发？"), "{user}");

    let model = Scripted::default();
    let prompts = Arc::clone(&model.prompts);
    let low = ReferenceRag::new(Retrieval::ClosedBook, Box::new(model), RagOptions::default()).unwrap();
    let a = low.answer(&question("q1", "What is evaporation?", json!({}))).unwrap();
    assert!(a.contexts.is_empty());
    let p = prompts.lock().unwrap()[0].clone();
    assert!(p.messages[0].content.contains("from your own knowledge"));
    assert_eq!(p.messages[1].content, "Question: What is evaporation?");
    assert_ne!(low.identity(), rag.identity());
}

#[test]
fn the_reference_tier_cites_the_sources_and_names_a_missing_one() {
    let dir = tempfile::tempdir().unwrap();
    let passages = corpus(dir.path());
    let high = ReferenceAnswers::new(passages);
    let a = high.answer(&question("q1", "x?", json!({"source_ids": ["water:0", "plants:0"]}))).unwrap();
    assert_eq!(a.answer, "Evaporation. [1][2]");
    assert_eq!(
        a.contexts[1].text,
        "Photosynthesis in chloroplasts turns light, water and carbon dioxide into sugar and oxygen."
    );
    let a =
        high.answer(&question("q2", "x?", json!({"source_ids": ["water:0"], "query_type": "unanswerable"}))).unwrap();
    assert_eq!(a.answer, "Evaporation.", "an unanswerable question cites nothing");
    let e = high.answer(&question("q3", "x?", json!({"source_ids": ["water:7"]}))).unwrap_err();
    assert!(
        e.message.contains("source passage \"water:7\" is neither a chunk nor a document of the corpus"),
        "{}",
        e.message
    );
    assert!(!e.retryable);
    let q = question_from_json(json!({"id": "q4", "query": "x?"}), "q.jsonl", 4).unwrap();
    assert_eq!(high.answer(&q).unwrap_err().message, "the question has no reference answer");
}

#[test]
fn a_source_named_by_document_cites_its_chunk_that_shares_most_with_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("docs.jsonl");
    // Chunks of at most 20 tokens (9, 12 and 19 characters a sentence), no overlap: one sentence each.
    let text = "特朗普宣布提高关税。美国股市创下最佳单月表现。钢铁和铝的关税从百分之二十五提高到五十。";
    std::fs::write(&path, json!({"id": "718524943", "text": text}).to_string() + "\n").unwrap();
    let chunking = ChunkOptions { max_tokens: 20, overlap_sentences: 0 };
    let (p, _) = Passages::from_corpus(&[path], ReadOptions::default(), chunking).unwrap();
    let ids: Vec<&str> = p.chunks().iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["718524943:0", "718524943:1", "718524943:2"]);
    let high = ReferenceAnswers::new(Arc::new(p));
    let q = question_from_json(
        json!({"id": "zh01", "query": "关税提高到多少？", "reference": "钢铁和铝的关税提高到五十。", "relevant": ["718524943"]}),
        "q.jsonl",
        1,
    )
    .unwrap();
    let a = high.answer(&q).unwrap();
    assert_eq!(a.answer, "钢铁和铝的关税提高到五十。 [1]");
    assert_eq!(a.contexts.len(), 1);
    assert_eq!(a.contexts[0].id.as_deref(), Some("718524943:2"));
    assert_eq!(a.contexts[0].text, "钢铁和铝的关税从百分之二十五提高到五十。");
}

#[test]
fn retrieval_alone_returns_the_rags_passages_and_no_answer() {
    let dir = tempfile::tempdir().unwrap();
    let passages = corpus(dir.path());
    let options = RagOptions { k: 2, ..RagOptions::default() };
    let only = RetrievalOnly::new(Arc::clone(&passages), None, options).unwrap();
    let rag = ReferenceRag::new(
        Retrieval::Corpus { passages: Arc::clone(&passages), embedder: None },
        Box::new(Scripted::default()),
        options,
    )
    .unwrap();
    let q = question("q1", "What turns liquid water into vapour?", json!({"source_ids": ["water:0"]}));
    let out = collect(std::slice::from_ref(&q), &only, &CallCache::disabled(), &CollectSettings::default(), &|_, _| {});
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    let r = &out.records[0];
    assert_eq!(r.answer, "");
    assert_eq!(
        r.contexts,
        rag.answer(&q)
            .unwrap()
            .contexts
            .into_iter()
            .map(|mut c| {
                c.relevance = Some(if c.id.as_deref() == Some("water:0") { KNOWN_RELEVANT } else { 0.0 });
                c
            })
            .collect::<Vec<_>>()
    );
    assert_eq!(r.contexts[0].relevance, Some(KNOWN_RELEVANT));
    assert!(only.identity().starts_with("retrieve-v1|"));
    assert_ne!(only.identity(), RetrievalOnly::new(passages, None, RagOptions { k: 3, ..options }).unwrap().identity());
    assert!(RetrievalOnly::new(Arc::new(Passages::new(Vec::new()).unwrap()), None, options).is_err());
}

#[test]
fn a_later_turn_reaches_the_model_as_chat_messages_with_its_own_earlier_answer() {
    let model = Scripted::default();
    let prompts = Arc::clone(&model.prompts);
    let low = ReferenceRag::new(Retrieval::ClosedBook, Box::new(model), RagOptions::default()).unwrap();
    let turn = |id: &str, query: &str, n: u64| question(id, query, json!({"session_id": "c", "turn": n}));
    let qs = [turn("t2", "And how fast?", 2), turn("t1", "What is evaporation?", 1)];
    let out = collect(&qs, &low, &CallCache::disabled(), &CollectSettings::default(), &|_, _| {});
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    // Turn 1 is asked first (one question in flight per conversation); turn 2's prompt holds the
    // system message, turn 1's question, the model's answer to it, then turn 2.
    let prompts = prompts.lock().unwrap();
    let p = &prompts[1];
    let roles: Vec<(&str, &str)> = p.messages.iter().map(|m| (m.role.as_str(), m.content.as_str())).collect();
    assert_eq!(
        roles[1..],
        [("user", "What is evaporation?"), ("assistant", "It is so [1]."), ("user", "Question: And how fast?")]
    );
}
