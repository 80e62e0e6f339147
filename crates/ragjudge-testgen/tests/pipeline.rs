//! The whole generation pipeline on a small collection with a scripted judge and a hashing
//! embedder: retries, selection reasons, strata in `meta`, and the call estimate.

use std::sync::atomic::{AtomicU64, Ordering};

use ragjudge_models::{Embedder, GenParams, Generation, Judge, LabelProbs, ModelError, ProbSource, Prompt, Usage};
use ragjudge_testgen::cluster::KMeansOptions;
use ragjudge_testgen::generate::GenOptions;
use ragjudge_testgen::pipeline::CheckCounts;
use ragjudge_testgen::select::SelectOptions;
use ragjudge_testgen::verify::VerifyOptions;
use ragjudge_testgen::{
    estimate, plan, run, Allocation, ChunkOptions, ClusterMethod, Corpus, Document, QueryType, SampleOptions,
    StrataOptions, TestgenSettings,
};

/// Bag of words hashed into 1024 dimensions (few collisions), L2-normalised.
struct HashEmbedder;

impl Embedder for HashEmbedder {
    fn identity(&self) -> String {
        "hash".into()
    }
    fn dim(&self) -> usize {
        1024
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0f32; 1024];
                for w in ragjudge_core::text::words(t) {
                    let h = w.to_lowercase().bytes().fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
                    v[(h % 1024) as usize] += 1.0;
                }
                let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
                v.iter().map(|x| x / n).collect()
            })
            .collect())
    }
}

/// Replies garbage to every greedy factual request, then a question too vague to find its source
/// in the collection, then a valid one; a yes/no question about "the passage" (so the retry must
/// fix it), valid JSON otherwise; says Yes to "does the passage answer" unless the question is
/// about a colour, answers "Is X made of cheese?" with No, and any other question with the
/// passage's first sentence.
#[derive(Default)]
struct ScriptedJudge {
    calls: AtomicU64,
}

impl Judge for ScriptedJudge {
    fn identity(&self) -> String {
        "scripted".into()
    }
    fn generate(&self, prompt: &Prompt, params: &GenParams) -> Result<Generation, ModelError> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let user = &prompt.messages.last().unwrap().content;
        if let Some(passage) = user.strip_prefix("Passage:\n").filter(|_| user.contains("from the passage alone")) {
            // The reference check's own answer: the passage's first sentence; for the colour of
            // anything (the unanswerable questions), nothing.
            let text = if user.contains("What colour") {
                "not stated".to_string()
            } else {
                passage.split('.').next().unwrap_or_default().to_string()
            };
            return Ok(Generation { text, prompt_tokens: 10, completion_tokens: 10, finish_reason: "stop".into() });
        }
        assert!(params.grammar.as_deref().is_some_and(|g| g.starts_with("root ::=")));
        assert!(params.json_schema.is_some());
        let passage = user.lines().nth(1).unwrap_or_default();
        let first_word = passage.split_whitespace().next().unwrap_or("it").to_string();
        let tail: Vec<&str> = passage.trim_end_matches('.').split_whitespace().rev().take(3).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        let text = if user.contains("ask next in the same conversation") {
            follow_up(&first_word, &tail.join(" "), passage, params.temperature)
        } else if user.contains("one factual question") {
            match params.seed {
                0 => "Sure! Here is a question:".to_string(),
                1 => format!(r#"{{"question": "What does it do?", "answer": "{passage}"}}"#),
                // The first sentence: a follow-up then has the rest of the passage to ask about.
                _ => format!(
                    r#"{{"question": "What does {first_word} do in {}?", "answer": "{}."}}"#,
                    tail.join(" "),
                    passage.split('.').next().unwrap_or_default()
                ),
            }
        } else if user.contains("yes/no question") {
            let (question, answer) = if user.contains("is no:") {
                (format!("Is {first_word} made of cheese?"), "no")
            } else {
                (format!("Is {first_word} part of nature?"), "yes")
            };
            if params.temperature == 0.0 {
                format!(r#"{{"question": "Is {first_word} mentioned in the passage?", "answer": "{answer}"}}"#)
            } else {
                format!(r#"{{"question": "{question}", "answer": "{answer}"}}"#)
            }
        } else if user.contains("NOT in the passage") {
            // Greedy: the same question for every chunk, so all but the first are near-duplicates.
            let subject = if params.temperature == 0.0 { "nature" } else { &first_word };
            format!(
                r#"{{"question": "What colour is {subject}?", "answer": "The documents do not contain this information."}}"#
            )
        } else {
            // Multi-hop, inference, multiple choice: a reply that breaks the schema every time.
            r#"{"question": "x"}"#.to_string()
        };
        Ok(Generation { text, prompt_tokens: 10, completion_tokens: 10, finish_reason: "stop".into() })
    }
    fn label_probs(&self, prompt: &Prompt, labels: &[String]) -> Result<LabelProbs, ModelError> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let user = &prompt.messages.last().unwrap().content;
        let yes = if user.contains("general knowledge") {
            0.2
        } else if user.contains("What colour") || (user.contains("cheese") && !user.contains("contain the answer")) {
            0.1
        } else {
            0.9
        };
        Ok(LabelProbs {
            labels: labels.to_vec(),
            probs: vec![yes, 1.0 - yes],
            logits: vec![0.0, 0.0],
            label_mass: Some(1.0),
            source: ProbSource::Logits,
        })
    }
    fn usage(&self) -> Usage {
        Usage { calls: self.calls.load(Ordering::Relaxed), ..Usage::default() }
    }
}

/// A follow-up to a question on `subject`'s passage, which ends in `tail`: on the volcano passages
/// the greedy reply's follow-up is its own rewrite (so it must be regenerated), on the ocean
/// passages the answer is never in the passage, on the others the reply is valid at once.
fn follow_up(subject: &str, tail: &str, passage: &str, temperature: f32) -> String {
    let standalone = format!("What else does {subject} do in {tail}?");
    let (question, answer) = match subject {
        "Volcanoes" if temperature == 0.0 => (standalone.as_str(), passage),
        "Oceans" => ("And what else happens there?", "Bananas ripen slowly."),
        _ => ("And what else happens there?", passage),
    };
    format!(r#"{{"question": "{question}", "standalone": "{standalone}", "answer": "{answer}"}}"#)
}

fn corpus() -> Corpus {
    let topics = [
        ("volcano", "Volcanoes erupt lava and ash. Magma rises through the crust. Eruptions change the land."),
        ("ocean", "Oceans hold salt water. Tides follow the moon. Currents move heat around the planet."),
        ("forest", "Forests store carbon in trees. Leaves fall in autumn. Fungi recycle dead wood."),
    ];
    let mut documents = Vec::new();
    for (t, text) in topics {
        for k in 0..4 {
            documents.push(Document {
                id: format!("{t}{k}"),
                title: None,
                text: format!("{text} {t} note {k}."),
                meta: Default::default(),
                source: String::new(),
            });
        }
    }
    Corpus { documents, skipped: Vec::new() }
}

fn settings(total: usize, types: Vec<QueryType>) -> TestgenSettings {
    TestgenSettings {
        chunk: ChunkOptions { max_tokens: 200, overlap_sentences: 0 },
        strata: StrataOptions {
            dims: 4,
            method: ClusterMethod::KMeans(KMeansOptions { k: Some(3), ..KMeansOptions::default() }),
            top_terms: 5,
        },
        sample: SampleOptions { total, allocation: Allocation::Equal, min_per_stratum: 1, seed: 1 },
        types,
        per_chunk: 1,
        generation: GenOptions { retries: 2, ..GenOptions::default() },
        // The scripted judge says Yes to every passage and answers with its first sentence, so
        // every other document would hold another answer: that check has its own tests (verify).
        selection: SelectOptions {
            verify: VerifyOptions { other_answer_chunks: 0, ..VerifyOptions::default() },
            ..SelectOptions::default()
        },
        batch: 8,
        follow_ups: 0.0,
    }
}

#[test]
fn every_kept_question_is_valid_and_carries_its_strata() {
    let types = vec![QueryType::Factual, QueryType::YesNo, QueryType::Unanswerable, QueryType::MultipleChoice];
    let s = settings(12, types);
    let p = plan(&corpus(), &HashEmbedder, &s).unwrap();
    assert_eq!(p.strata.topics.len(), 3);
    // Each topic is one subject: its three chunks... four documents each, one chunk per document.
    assert_eq!(p.chunking.chunks.len(), 12);
    assert_eq!(p.sample.indices.len(), 12);
    let judge = ScriptedJudge::default();
    let out = run(p, &judge, &HashEmbedder, &s).unwrap();
    // Multiple choice never parses: 3 attempts each, then rejected with the raw replies.
    let mc: Vec<_> = out.rejected.iter().filter(|r| r.query_type == QueryType::MultipleChoice).collect();
    assert_eq!(mc.len(), 3);
    assert!(mc.iter().all(|r| r.reason == "no valid reply in 3 attempt(s)" && r.raw.len() == 3));
    assert!(mc[0].raw[0].1.starts_with("answer: missing"), "{:?}", mc[0].raw[0]);
    // Factual: the greedy reply is garbage, the first sampled retry too vague to find its source
    // (it shares no word with any chunk), the second valid.
    let factual: Vec<_> = out.questions.iter().filter(|q| q.record["meta"]["query_type"] == "factual").collect();
    assert_eq!(factual.len(), 3);
    // Yes/no: the greedy question points at the passage, the first retry does not.
    assert_eq!(out.attempts, 3 * 3 + 3 * 3 + 3 * 2 + (1 + 2 + 2));
    let yes_no: Vec<_> = out.questions.iter().filter(|q| q.record["meta"]["query_type"] == "yes_no").collect();
    assert_eq!(yes_no.len(), 3);
    // The yes/no tasks alternate between yes and no answers, and the judge agrees with both.
    let answers: Vec<(&str, &str)> =
        yes_no.iter().map(|q| (q.record["query"].as_str().unwrap(), q.record["reference"].as_str().unwrap())).collect();
    assert_eq!(answers.iter().filter(|(_, a)| *a == "no").count(), 1, "{answers:?}");
    assert!(answers.iter().all(|(q, a)| q.ends_with(if *a == "no" { "made of cheese?" } else { "part of nature?" })));
    // The quality report: the format check regenerated the three factual questions and dropped the
    // three multiple-choice ones; the self-contained check regenerated the three yes/no ones.
    let checks = &out.quality.checks;
    assert_eq!(checks["format"], CheckCounts { passed: 6, regenerated: 3, dropped: 3 });
    assert_eq!(checks["self_contained"], CheckCounts { passed: 6, regenerated: 3, dropped: 0 });
    // The round trip regenerated the three factual questions; the yes/no ones found their source.
    assert_eq!(checks["round_trip"], CheckCounts { passed: 3, regenerated: 3, dropped: 0 });
    assert!(out.quality.examples["round_trip"][0].contains("does not find its source"));
    for q in out.questions.iter().filter(|q| q.record["meta"]["query_type"] == "factual") {
        let rank = |name: &str| q.record["meta"]["checks"][name].as_u64().unwrap_or(u64::MAX);
        assert!(rank("bm25_rank").min(rank("embedding_rank")) <= 5, "{}", q.record);
    }
    assert!(out.quality.examples["self_contained"][0].contains("mentioned in the passage?"));
    for q in &out.questions {
        let m = &q.record["meta"];
        assert!(m["topic"].as_str().unwrap().starts_with('t'));
        assert!(!m["topic_terms"].as_array().unwrap().is_empty());
        assert!(!m["source_ids"].as_array().unwrap().is_empty());
        assert!(["easy", "medium", "hard"].contains(&m["difficulty"].as_str().unwrap()));
        assert_eq!(m["needs_retrieval"], true);
        assert!(q.record["query"].as_str().unwrap().ends_with('?'));
    }
    // Unanswerable: the source does not answer (P(yes) 0.1), so they are kept.
    assert_eq!(out.questions.iter().filter(|q| q.record["meta"]["query_type"] == "unanswerable").count(), 3);
    // Unanswerable: the greedy question is the same for every chunk; the first is kept, the
    // other two are near-duplicates and regenerated.
    assert_eq!(checks["near_duplicate"], CheckCounts { passed: 7, regenerated: 2, dropped: 0 });
    let colours: Vec<&str> = out
        .questions
        .iter()
        .filter(|q| q.record["meta"]["query_type"] == "unanswerable")
        .map(|q| q.record["query"].as_str().unwrap())
        .collect();
    assert_eq!(colours.iter().filter(|q| **q == "What colour is nature?").count(), 1, "{colours:?}");
    // Every topic is represented.
    let topics: std::collections::BTreeSet<String> =
        out.questions.iter().map(|q| q.record["meta"]["topic"].as_str().unwrap().to_string()).collect();
    assert_eq!(topics.len(), 3);
}

#[test]
fn the_estimate_grows_linearly_with_the_sample() {
    let types = QueryType::ALL.to_vec();
    let with_other_answers = |n| {
        let mut s = settings(n, types.clone());
        s.selection.verify.other_answer_chunks = 1;
        s
    };
    let (small, large) = (with_other_answers(6), with_other_answers(12));
    let a = estimate(&plan(&corpus(), &HashEmbedder, &small).unwrap(), &small);
    let b = estimate(&plan(&corpus(), &HashEmbedder, &large).unwrap(), &large);
    assert_eq!((a.tasks, b.tasks), (6, 12));
    assert_eq!(b.generation_calls_max, 12 * 3);
    // Per attempt (3 at most): two checks of a yes/no question, three of another answerable one
    // (answerable, the reference, the judge's own answer) and four more to look for another
    // answer (two chunks of other documents, each asked and answered from), six of an
    // unanswerable one (the source, four retrieved chunks, the judge's own answer); and one
    // closed-book flag per task.
    let per_attempt = |t: &str| match t {
        "unanswerable" => 6,
        "yes_no" => 2,
        _ => 7,
    };
    let want: usize = b.per_type.iter().map(|(t, n)| n * (3 * per_attempt(t) + 1)).sum();
    assert_eq!(b.selection_calls_max, want);
    let ratio = b.generation_prompt_tokens as f64 / a.generation_prompt_tokens as f64;
    assert!((1.6..=2.4).contains(&ratio), "{ratio}");
}

#[test]
fn the_job_writes_the_plan_and_the_questions_as_artifacts() {
    use ragjudge_artifacts::read_artifact;
    use ragjudge_testgen::{plan_collection, read_corpus, ReadOptions, TestgenSummary, TopicsDocument};
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("docs.jsonl");
    let lines: Vec<String> =
        corpus().documents.iter().map(|d| serde_json::json!({"id": d.id, "text": d.text}).to_string()).collect();
    std::fs::write(&file, lines.join("\n")).unwrap();
    let s = settings(12, vec![QueryType::Factual]);
    let paths = [file];
    let read = read_corpus(&paths, ReadOptions::default()).unwrap();
    let planned = plan_collection(read, &paths, &HashEmbedder, &s).unwrap();
    let side = dir.path().join("q.testgen");
    planned.write(&side).unwrap();
    let topics = read_artifact::<TopicsDocument>(&side.join("topics.json")).unwrap();
    assert_eq!((topics.body.documents, topics.body.chunks, topics.body.topics.len()), (12, 12, 3));
    assert_eq!(topics.provenance.inputs.len(), 1);
    assert_eq!(topics.provenance.settings["sample"]["total"], 12);
    assert_eq!(std::fs::read_to_string(side.join("chunks.jsonl")).unwrap().lines().count(), 12);
    assert!(side.join("topic-map.svg").is_file() && side.join("topic-map.png").is_file());
    let dry = planned.dry_run();
    assert!(dry.dry_run && dry.calls.tasks == 12);
    let judge = ScriptedJudge::default();
    let generated = planned.generate(&judge, &HashEmbedder, &s).unwrap();
    let questions = dir.path().join("q.jsonl");
    generated.write(&questions, &side).unwrap();
    // Factual: the greedy reply is garbage, the first retry valid; all three topics kept.
    let summary = read_artifact::<TestgenSummary>(&side.join("summary.json")).unwrap().body;
    assert_eq!(summary.questions, std::fs::read_to_string(&questions).unwrap().lines().count());
    assert_eq!(summary.per_type.get("factual"), Some(&summary.questions));
    assert_eq!(summary.questions + summary.rejected, 12);
    assert_eq!(std::fs::read_to_string(side.join("rejected.jsonl")).unwrap().lines().count(), summary.rejected);
}

/// Twelve factual questions (one per chunk, four per topic) and follow-ups for a share of them.
fn with_follow_ups(share: f64) -> (TestgenSettings, ragjudge_testgen::TestgenOutput) {
    let s = TestgenSettings { follow_ups: share, ..settings(12, vec![QueryType::Factual]) };
    let out = run(plan(&corpus(), &HashEmbedder, &s).unwrap(), &ScriptedJudge::default(), &HashEmbedder, &s).unwrap();
    (s, out)
}

fn meta<'a>(q: &'a ragjudge_testgen::pipeline::Question, key: &str) -> &'a serde_json::Value {
    &q.record["meta"][key]
}

#[test]
fn a_kept_follow_up_comes_right_after_its_first_turn_as_turn_two() {
    let (_, out) = with_follow_ups(1.0);
    // By hand: the twelve factual questions are kept (each names its own note, so no two are
    // near-duplicates: 7 of 8 words shared, cosine 0.875); every one is asked for a follow-up;
    // the four on ocean passages are never grounded, the eight others are kept.
    let follow: Vec<usize> =
        (0..out.questions.len()).filter(|&k| meta(&out.questions[k], "query_type") == "follow_up").collect();
    assert_eq!((out.questions.len(), follow.len()), (20, 8));
    for &k in &follow {
        let (first, f) = (&out.questions[k - 1].record, &out.questions[k].record);
        let id = first["id"].as_str().unwrap();
        assert_eq!(first["meta"]["query_type"], "factual");
        assert_eq!(f["id"], format!("{id}-f1"));
        assert_eq!(f["query"], "And what else happens there?");
        let history = serde_json::json!([{"role": "user", "text": first["query"]}, {"role": "assistant", "text": first["reference"]}]);
        assert_eq!(f["history"], history);
        assert_eq!((&f["meta"]["session_id"], &f["meta"]["turn"]), (&first["id"], &serde_json::json!(2)));
        assert_eq!((&first["meta"]["session_id"], &first["meta"]["turn"]), (&first["id"], &serde_json::json!(1)));
        for key in ["source_ids", "source_docs", "topic", "topic_label", "lang"] {
            assert_eq!(f["meta"][key], first["meta"][key], "{key}");
        }
        // The scripted rewrite of "What does SUBJECT do in NOTE?" is "What else does SUBJECT do
        // in NOTE?", and the reference is the passage, which ends in that note.
        let query = first["query"].as_str().unwrap();
        assert_eq!(f["meta"]["standalone"], query.replacen("What does", "What else does", 1));
        let note = query.rsplit(" in ").next().unwrap().trim_end_matches('?');
        assert!(f["reference"].as_str().unwrap().ends_with(&format!("{note}.")), "{f}");
        assert_eq!(f["meta"]["prompt_version"], "followup-en-v1");
        assert_eq!(f["meta"]["needs_retrieval"], true);
        // A follow-up's base difficulty is 2, one more when fewer than half of its words are in
        // the passage: "And what else happens there" shares at most "and" with it: hard.
        assert_eq!(f["meta"]["difficulty"], "hard");
    }
    // Questions without a kept follow-up stay on their own.
    let alone = out.questions.iter().filter(|q| meta(q, "session_id").is_null()).count();
    assert_eq!(alone, 4);
    let summary = out.summary();
    assert_eq!((summary.per_type["factual"], summary.per_type["follow_up"]), (12, 8));
    assert_eq!(out.quality.topics.iter().map(|t| t.questions).sum::<usize>(), 20);
}

#[test]
fn a_follow_up_whose_rewrite_is_not_grounded_is_retried_then_counted_as_rejected() {
    let (s, out) = with_follow_ups(1.0);
    let rejected: Vec<_> = out.rejected.iter().filter(|r| r.query_type == QueryType::FollowUp).collect();
    assert_eq!(rejected.len(), 4);
    for r in &rejected {
        let first = r.follow_up_of.as_deref().unwrap();
        assert!(first.starts_with("tg"), "{first}");
        assert!(
            r.reason.starts_with(
                "no valid follow-up in 3 attempt(s): the reference answer is not grounded in the source (grounding"
            ),
            "{}",
            r.reason
        );
        assert_eq!(r.raw.len(), 3);
        assert!(r.raw.iter().all(|(raw, _)| raw.contains("Bananas ripen slowly.")));
        assert!(r.source_ids[0].starts_with("ocean"), "{:?}", r.source_ids);
    }
    // Forest follow-ups pass at once, volcano ones after their greedy reply failed the wording
    // check, ocean ones never.
    assert_eq!(out.quality.checks["follow_up"], CheckCounts { passed: 4, regenerated: 4, dropped: 4 });
    assert!(out.quality.examples["follow_up"].iter().any(|e| e.ends_with("it is its own standalone rewrite")));
    // Tasks: 12 questions and 12 follow-ups; attempts: 3 per factual question (garbage, too
    // vague, valid), follow-ups 4 x 1 + 4 x 2 + 4 x 3.
    let summary = out.summary();
    assert_eq!((summary.tasks, summary.questions, summary.rejected), (24, 20, 4));
    assert_eq!(summary.attempts, 12 * 3 + 4 + 8 + 12);
    assert_eq!(
        summary.rejected_by_reason
            ["no valid follow-up in 3 attempt(s): the reference answer is not grounded in the source"],
        4
    );
    // The estimate: twelve follow-ups at most, three attempts each of one generation and three
    // checks, and one closed-book flag: (12 + 12) x 3 generations; 12 x (3 x 3 + 1) twice.
    let e = estimate(&plan(&corpus(), &HashEmbedder, &s).unwrap(), &s);
    assert_eq!((e.follow_ups_max, e.generation_calls_max, e.selection_calls_max), (12, 72, 240));
}

#[test]
fn no_follow_ups_leave_the_questions_and_the_summary_as_they_were() {
    let (none_settings, none) = with_follow_ups(0.0);
    let (_, all) = with_follow_ups(1.0);
    let line = |q: &ragjudge_testgen::pipeline::Question| serde_json::to_string(&q.record).unwrap();
    // The first turns of the run with follow-ups, without them and their conversation fields.
    let stripped: Vec<String> = all
        .questions
        .iter()
        .filter(|q| meta(q, "query_type") != "follow_up")
        .map(|q| {
            let mut q = q.clone();
            let m = q.record["meta"].as_object_mut().unwrap();
            m.remove("session_id");
            m.remove("turn");
            line(&q)
        })
        .collect();
    let plain: Vec<String> = none.questions.iter().map(line).collect();
    assert_eq!(plain, stripped);
    assert!(plain.iter().all(|l| !l.contains("session_id") && !l.contains("history") && !l.contains("\"turn\"")));
    assert!(none.rejected.iter().all(|r| r.follow_up_of.is_none()));
    // ("follow" alone is a word of the ocean passages: "Tides follow the moon".)
    let mentions = |json: String| json.contains("follow_up") || json.contains("follow-up");
    let summary = serde_json::to_string(&none.summary()).unwrap();
    assert!(!mentions(summary.clone()), "{summary}");
    assert_eq!(none.summary().tasks, 12);
    // Nor do the recorded settings or the estimate mention them.
    assert!(!mentions(serde_json::to_string(&none_settings).unwrap()));
    let e = estimate(&plan(&corpus(), &HashEmbedder, &none_settings).unwrap(), &none_settings);
    assert!(!mentions(serde_json::to_string(&e).unwrap()));
}

#[test]
fn a_share_of_follow_ups_outside_zero_to_one_is_refused() {
    for (share, shown) in [(1.5, "1.5"), (-0.1, "-0.1"), (f64::NAN, "NaN")] {
        let s = TestgenSettings { follow_ups: share, ..settings(12, vec![QueryType::Factual]) };
        let e = plan(&corpus(), &HashEmbedder, &s).unwrap_err().to_string();
        assert_eq!(
            e,
            format!("invalid settings: follow-ups must be a share of the questions between 0 and 1, got {shown}")
        );
    }
}
