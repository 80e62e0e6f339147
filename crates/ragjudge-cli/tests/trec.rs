//! `ragjudge score --metrics trec` against a scripted OpenAI-compatible judge on loopback.

use ragjudge_testserver::{Behavior, Normal, Script, TestServer};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// q1: three passages, an answer with three citations, a reference. q2: every generated judge
/// output is garbage (its reference's claims too).
const RECORDS: &str = r#"{"id": "q1", "system": "s", "query": "What is the capital of France?", "contexts": [{"text": "Paris is the capital of France."}, {"text": "France is a country in Europe."}, {"text": "Bananas are yellow."}], "answer": "Paris is the capital [1]. It is in Europe [2][3].", "reference": "Paris is the capital of France."}
{"id": "q2", "system": "s", "query": "GARBAGE question?", "contexts": [{"text": "Nothing here."}], "answer": "No idea [1].", "reference": "GARBAGE reference."}
"#;

/// all-MiniLM-L6-v2 references from `tests/fixtures/make_trec_similarity.py` (sentence-transformers
/// 6.2.0, torch 2.15.0, numpy 2.4.6): cosine of q1's answer and reference, and BERTScore F1 of
/// "Paris is the capital" vs "I don't know.".
#[cfg(feature = "candle")]
const SEMANTIC_SIMILARITY_Q1: f64 = 0.8431950211524963;
#[cfg(feature = "candle")]
const BERTSCORE_F1_Q1_RUNS_1_3: f64 = 0.06817207011226845;

/// Every label call (no-answer: `yes` / `no`, entailment: `Yes` / `No`) reads these first-token
/// logprobs: P(yes) = P(Yes) = 0.75 / (0.75 + 0.25) = 0.75.
fn yes_no_logprobs() -> [(&'static str, f64); 4] {
    [("yes", 0.75f64.ln()), ("no", 0.25f64.ln()), ("Yes", 0.75f64.ln()), ("No", 0.25f64.ln())]
}

/// The judge's answer to one request, chosen by the prompt's content.
fn answer(body: &Value) -> String {
    let user = body["messages"].as_array().and_then(|m| m.last()).and_then(|m| m["content"].as_str()).unwrap_or("");
    if user.contains("GARBAGE") || user.contains("Nothing here.") {
        return "I cannot help with that.".into();
    }
    if user.contains("Extract all atomic factual claims") {
        return if user.contains("Text: Paris is the capital [1]") {
            r#"{"claims": ["Paris is the capital", "Paris is in Europe"]}"#.into()
        } else if user.contains("Text: Paris is the capital of France.") {
            r#"{"claims": ["Paris is the capital of France"]}"#.into()
        } else {
            "no claims here".into()
        };
    }
    if user.contains("NuggetizeLLM") {
        return r#"{"nuggets": ["Paris is the capital of France", "France is in Europe"]}"#.into();
    }
    if user.contains("NuggetizeScoreLLM") {
        return "['vital', 'okay']".into();
    }
    if user.contains("NuggetizeAssignerLLM") {
        return r#"{"assignment": ["support", "partial_support"]}"#.into();
    }
    if user.contains("Statement:") {
        let cited = |s: &str| user.contains(&format!("Citation: {s}"));
        return if cited("Paris") {
            r#"{"support": "full_support"}"#.into()
        } else if cited("France") {
            "partial_support".into()
        } else {
            r#"{"support": "no_support"}"#.into()
        };
    }
    // UMBRELA: one JSON, one bare digit, one fenced JSON.
    if user.contains("Passage: Paris") {
        r#"{"score": "3"}"#.into()
    } else if user.contains("Passage: France") {
        "1".into()
    } else {
        "```json\n{\"score\": \"0\"}\n```".into()
    }
}

fn run(server: &TestServer, input: &Path, out: &Path, ore: &Path, cache: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ragjudge"))
        .args(["score", "-i", input.to_str().unwrap(), "--metrics", "trec", "--judge", "openai:test-model"])
        .args(["--cache", cache.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json", "--threads", "2"])
        .args(["--trec-open-rag-csv", ore.to_str().unwrap()])
        .env("OPENAI_BASE_URL", server.base_url())
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap()
}

fn close(v: &Value, want: f64) {
    let got = v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"));
    assert!((got - want).abs() < 1e-9, "{got} != {want}");
}

#[test]
fn score_trec_gives_hand_computed_values_records_garbage_as_invalid_and_resumes_from_the_cache() {
    let server =
        TestServer::start(Script::always(Behavior::Normal(Normal::func(answer).with_top_logprobs(&yes_no_logprobs()))));
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    std::fs::write(&input, RECORDS).unwrap();
    let (out, ore, cache) = (dir.path().join("out.jsonl"), dir.path().join("ore.csv"), dir.path().join("c.sqlite"));

    let o = run(&server, &input, &out, &ore, &cache);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows: Vec<Value> =
        std::fs::read_to_string(&out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let q1 = rows.iter().find(|r| r["id"] == "q1").unwrap();
    let q2 = rows.iter().find(|r| r["id"] == "q2").unwrap();

    // UMBRELA grades 3, 1, 0: mean 4/3; relevant (>= 2) only at rank 1.
    close(&q1["retrieval_score_mean_umbrela_score"], 4.0 / 3.0);
    close(&q1["retrieval_score_umbrela_precision@1"], 1.0);
    close(&q1["retrieval_score_umbrela_precision@3"], 1.0 / 3.0);
    // K = 5 exceeds the three passages: left out, as in Open RAG Eval.
    assert_eq!(q1["retrieval_score_umbrela_precision@5"], Value::Null);
    close(&q1["retrieval_score_umbrela_ap@3"], 1.0);
    close(&q1["retrieval_score_umbrela_mrr"], 1.0);
    // Nuggets: vital/support (1), okay/partial (0.5).
    // All = 1.5 / 2; strict 1 / 2; Vital = 1; Weighted = (1 + 0.5 * 0.5) / (1 + 0.5 * 1) = 1.25 / 1.5;
    // Weighted strict = (1 + 0.5 * 0) / 1.5.
    close(&q1["generation_score_nuggetizer_all"], 0.75);
    close(&q1["generation_score_nuggetizer_all_strict"], 0.5);
    close(&q1["generation_score_vital_nuggetizer_score"], 1.0);
    close(&q1["generation_score_nuggetizer_vital_strict"], 1.0);
    close(&q1["generation_score_nuggetizer_weighted"], 1.25 / 1.5);
    close(&q1["generation_score_nuggetizer_weighted_strict"], 1.0 / 1.5);
    // Citations: part 1 "Paris is the capital" [1] full (1); part 2 ". It is in Europe" [2] partial
    // (0.5), [3] none (0). Per citation 1, 0.5, 0 -> P = 0.5; per part 1, 0.25 -> R = 0.625;
    // F1 = 2 * 0.5 * 0.625 / 1.125 = 5/9.
    close(&q1["generation_score_citation_precision"], 0.5);
    close(&q1["generation_score_citation_recall"], 0.625);
    close(&q1["generation_score_citation_f1_score"], 5.0 / 9.0);
    close(&q1["judge_invalid_items"], 0.0);
    let d = &q1["detail"]["trec"];
    assert_eq!(d["nuggets"]["nuggets"], serde_json::json!(["Paris is the capital of France", "France is in Europe"]));
    assert_eq!(d["nuggets"]["labels"], serde_json::json!(["vital", "okay"]));
    assert_eq!(d["nuggets"]["rounds"], 5);

    // q2: every output is garbage -> invalid items with their raw output, no zeros.
    for c in ["retrieval_score_mean_umbrela_score", "retrieval_score_umbrela_mrr", "generation_score_nuggetizer_all"] {
        assert_eq!(q2[c], Value::Null, "{c}");
    }
    assert_eq!(q2["generation_score_citation_f1_score"], Value::Null);
    close(&q2["judge_invalid_items"], 3.0);
    let invalid = q2["detail"]["trec"]["invalid"].as_array().unwrap();
    let steps: Vec<&str> = invalid.iter().map(|i| i["step"].as_str().unwrap()).collect();
    assert_eq!(steps, vec!["umbrela", "nugget_creation", "citation"]);
    assert!(invalid.iter().all(|i| i["raw"] == "I cannot help with that." && i["attempts"] == 3));

    // Answer-level metrics; every label call gives P(yes) = 0.75.
    // Hallucination: two answer sentences, each entailed with 0.75: mean 0.75 (q2: one sentence).
    close(&q1["generation_score_hallucination_score"], 0.75);
    close(&q2["generation_score_hallucination_score"], 0.75);
    // No-answer: P(yes) = 0.75 >= 0.5: answered.
    close(&q1["generation_score_answered"], 1.0);
    close(&q1["generation_score_answered_prob"], 0.75);
    assert_eq!(q1["detail"]["no_answer"]["method"], "judge");
    // Factual correctness: generated claims 2, both entailed by the reference (0.75 >= 0.5): P = 2/2;
    // reference claims 1, entailed by the answer: R = 1/1; F1 = 1.
    close(&q1["generation_score_factual_correctness_precision"], 1.0);
    close(&q1["generation_score_factual_correctness_recall"], 1.0);
    close(&q1["generation_score_factual_correctness_f1"], 1.0);
    let fc = &q1["detail"]["golden_answer"]["factual_correctness"];
    assert_eq!(fc["generated_claims"].as_array().unwrap().len(), 2);
    close(&fc["expected_claims"][0]["entailment"], 0.75);
    #[cfg(feature = "candle")]
    {
        // all-MiniLM-L6-v2 cosine of answer and reference; reference value from
        // sentence-transformers (tests/fixtures/make_trec_similarity.py).
        let sim = q1["generation_score_semantic_similarity"].as_f64().unwrap();
        assert!((sim - SEMANTIC_SIMILARITY_Q1).abs() < 1e-4, "{sim}");
    }
    // q2: the claim extraction output is garbage: the golden metric fails on q2 with the reason
    // recorded, the other columns stand.
    assert_eq!(q2["generation_score_factual_correctness_f1"], Value::Null);
    assert!(q2["error"].as_str().unwrap().contains("golden_answer: claim extraction"), "{}", q2["error"]);

    // Requests: q1 3 grades + 2 creation rounds + 1 importance + 1 assignment + 3 citations = 10
    // (rounds 3-5 send round 2's prompt again, with the same list and seed: the call cache answers);
    // q2 three items, each tried 3 times = 9. Answer level: q1 2 hallucination sentences + 1
    // no-answer + 2 claim extractions + 3 claim checks = 8; q2 1 sentence + 1 no-answer + 2 claim
    // extractions = 4.
    assert_eq!(server.request_count(), 19 + 8 + 4);
    let bodies = server.requests();
    assert!(bodies.iter().any(|r| r.body["response_format"]["json_schema"]["name"] == "UMBRELAScore"));

    // Open RAG Eval layout: one row per query, run_1_ prefixes.
    let mut rdr = csv::Reader::from_path(&ore).unwrap();
    let header: Vec<String> = rdr.headers().unwrap().iter().map(str::to_string).collect();
    let col = |n: &str| header.iter().position(|h| h == n).unwrap_or_else(|| panic!("no column {n}"));
    let recs: Vec<csv::StringRecord> = rdr.records().map(Result::unwrap).collect();
    assert_eq!(recs.len(), 2);
    assert_eq!(&recs[0][col("query_id")], "q1");
    assert_eq!(&recs[0][col("run_1_retrieval_score_umbrela_scores")], r#"{"[1]":3,"[2]":1,"[3]":0}"#);
    assert_eq!(&recs[0][col("run_1_generation_score_vital_nuggetizer_score")], "1");
    let h: f64 = recs[0][col("run_1_generation_score_hallucination_score")].parse().unwrap();
    assert!((h - 0.75).abs() < 1e-12, "{h}");
    let na: Value = serde_json::from_str(&recs[0][col("run_1_generation_score_no_answer_score")]).unwrap();
    assert_eq!(na["query_answered"], "yes");
    close(&na["prob_answered"], 0.75);
    assert_eq!(&recs[0][col("run_1_generation_score_factual_correctness_f1")], "1");
    assert_eq!(&recs[1][col("run_1_generation_score_factual_correctness_f1")], "");
    // The summary: the mean of `generation_score_answered` is the share of questions answered (2/2).
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    let answered = summary["systems"][0]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == "generation_score_answered")
        .unwrap();
    close(&answered["mean"], 1.0);
    // No record has a `run`: no consistency.
    assert!(summary.get("consistency").is_none());

    // A re-run is answered from the call cache: no request reaches the server.
    let o = run(&server, &input, &out, &ore, &cache);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(server.request_count(), 31);
    let again = std::fs::read_to_string(&out).unwrap();
    assert!(again.contains("\"generation_score_citation_f1_score\":0.5555555555555556"));
}

#[test]
fn unknown_trec_part_is_a_one_line_error() {
    let o = Command::new(env!("CARGO_BIN_EXE_ragjudge"))
        .args(["score", "-i", "x.jsonl", "--metrics", "trec", "--trec-parts", "bogus"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("unknown part `bogus`"), "{err}");
}

/// Open RAG Eval input with repeated runs: q1 has runs 1-3 (two identical answers and a refusal),
/// q2 runs 1-2 only.
const RUNS_CSV: &str = "query_id,query,query_run,passage_id,passage,generated_answer
q1,Capital of France?,1,d1,Paris is the capital of France.,Paris is the capital
q1,Capital of France?,2,d1,Paris is the capital of France.,Paris is the capital
q1,Capital of France?,3,d1,Paris is the capital of France.,I don't know.
q2,Capital of Italy?,1,d2,Rome is the capital of Italy.,Rome
q2,Capital of Italy?,2,d2,Rome is the capital of Italy.,Rome
";

fn cell(header: &[String], row: &csv::StringRecord, name: &str) -> f64 {
    let i = header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name} in {header:?}"));
    row[i].parse().unwrap_or_else(|_| panic!("{name}: `{}` is not a number", &row[i]))
}

#[test]
fn repeated_runs_give_consistency_rows_and_open_rag_eval_run_columns() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("results.csv");
    std::fs::write(&input, RUNS_CSV).unwrap();
    let (out, ore) = (dir.path().join("out.jsonl"), dir.path().join("ore.csv"));
    // The lexical no-answer rule needs no judge; no other part runs.
    let o = Command::new(env!("CARGO_BIN_EXE_ragjudge"))
        .args(["score", "-i", input.to_str().unwrap(), "--metrics", "trec", "--trec-parts", "no_answer"])
        .args(["--trec-no-answer", "lexical", "-o", out.to_str().unwrap(), "--json"])
        .args(["--trec-open-rag-csv", ore.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    // Answered 4 of 5 runs: the share of answered questions is the column mean 0.8.
    let m = &summary["systems"][0]["metrics"][0];
    assert_eq!(m["metric"], "generation_score_answered");
    close(&m["mean"], 0.8);

    let path = dir.path().join("out.consistency.csv");
    let mut rdr = csv::Reader::from_path(&path).unwrap();
    let header: Vec<String> = rdr.headers().unwrap().iter().map(str::to_string).collect();
    let rows: Vec<csv::StringRecord> = rdr.records().map(Result::unwrap).collect();
    // q2 has two runs (< 3): left out.
    assert_eq!(rows.len(), 1);
    assert_eq!((&rows[0][1], &rows[0][2], &rows[0][3]), ("q1", "3", "3"));
    let r = &rows[0];
    // Pairs (1,2) identical: ROUGE 1; (1,3) and (2,3) share no token: 0. Mean 1/3; population
    // variance ((2/3)^2 + 2 (1/3)^2) / 3 = (6/9) / 3 = 2/9; CV = sqrt(2/9) / (1/3) = sqrt 2.
    for n in ["rouge1_f", "rouge2_f", "rougel_f"] {
        assert!((cell(&header, r, &format!("consistency_answer_{n}_mean")) - 1.0 / 3.0).abs() < 1e-12);
        assert!((cell(&header, r, &format!("consistency_answer_{n}_variance")) - 2.0 / 9.0).abs() < 1e-12);
        assert!((cell(&header, r, &format!("consistency_answer_{n}_cv")) - 2f64.sqrt()).abs() < 1e-12);
    }
    // Answered 1, 1, 0: mean 2/3; variance ((1/3)^2 * 2 + (2/3)^2) / 3 = 2/9; CV = sqrt(2/9) / (2/3)
    // = 1 / sqrt 2; CAI = (2/3) / (1 + sqrt(2/9)).
    let a = "consistency_generation_score_answered";
    assert!((cell(&header, r, &format!("{a}_mean")) - 2.0 / 3.0).abs() < 1e-12);
    assert!((cell(&header, r, &format!("{a}_variance")) - 2.0 / 9.0).abs() < 1e-12);
    assert!((cell(&header, r, &format!("{a}_cv")) - 0.5f64.sqrt()).abs() < 1e-12);
    assert!((cell(&header, r, &format!("{a}_cai")) - (2.0 / 3.0) / (1.0 + (2f64 / 9.0).sqrt())).abs() < 1e-12);
    // The lexical rule gives no probability: no statistic for it.
    assert!(!header.iter().any(|h| h.contains("answered_prob")));

    // The summary carries the per-system aggregates (one query: its own values).
    let c = &summary["consistency"];
    assert_eq!(c["skipped_groups"], 1);
    close(&c["systems"][0]["metrics"]["generation_score_answered"]["mean"], 2.0 / 3.0);
    close(&c["systems"][0]["similarity"]["rouge1_f"]["variance"], 2.0 / 9.0);

    #[cfg(feature = "candle")]
    {
        // BERTScore F1 with all-MiniLM-L6-v2 token vectors: the identical pair scores 1, the two
        // others the same b, so mean = (1 + 2b) / 3 and variance = 2 (1 - b)^2 / 9.
        let mean = cell(&header, r, "consistency_answer_bertscore_f1_mean");
        let var = cell(&header, r, "consistency_answer_bertscore_f1_variance");
        let b = (3.0 * mean - 1.0) / 2.0;
        assert!(b > 0.0 && b < 0.95, "{b}");
        assert!((var - 2.0 * (1.0 - b).powi(2) / 9.0).abs() < 1e-6, "{var}");
        assert!((b - BERTSCORE_F1_Q1_RUNS_1_3).abs() < 1e-4, "{b}");
        assert_eq!(c["bertscore_model"].as_str().map(|s| s.contains("minilm") || s.contains("MiniLM")), Some(true));
    }

    // Open RAG Eval layout: runs side by side, then the consistency columns.
    let mut rdr = csv::Reader::from_path(&ore).unwrap();
    let header: Vec<String> = rdr.headers().unwrap().iter().map(str::to_string).collect();
    let rows: Vec<csv::StringRecord> = rdr.records().map(Result::unwrap).collect();
    let col = |n: &str| header.iter().position(|h| h == n).unwrap_or_else(|| panic!("no column {n}"));
    assert_eq!(rows.len(), 2);
    assert_eq!(&rows[0][col("run_3_generation_score_no_answer_score")], r#"{"query_answered":"no"}"#);
    assert_eq!(&rows[0][col("run_2_generated_answer")], r#"[{"text":"Paris is the capital","citations":[]}]"#);
    assert_eq!(&rows[1][col("run_3_generated_answer")], "");
    assert!((rows[0][col("consistency_answer_rouge1_f_mean")].parse::<f64>().unwrap() - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(&rows[1][col("consistency_answer_rouge1_f_mean")], "");
}

/// `ragjudge similarity` in both number formats against the sentence-transformers cosine of q1's
/// answer and reference: `f32` to float rounding, bfloat16 products within 1e-3 (their embeddings
/// keep cosine >= 0.9999 with the `f32` ones, so a cosine between two of them moves by ~1e-4).
#[cfg(feature = "candle")]
#[test]
fn similarity_matches_sentence_transformers_in_f32_and_bf16() {
    let run = |precision: &str| -> Value {
        let o = Command::new(env!("CARGO_BIN_EXE_ragjudge"))
            .args(["similarity", "--json", "--precision", precision])
            .args(["Paris is the capital [1]. It is in Europe [2][3].", "Paris is the capital of France."])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let f32 = run("f32");
    let bf16 = run("bf16");
    let (c32, c16) = (f32["cosine"].as_f64().unwrap(), bf16["cosine"].as_f64().unwrap());
    assert!((c32 - SEMANTIC_SIMILARITY_Q1).abs() < 1e-6, "{c32}");
    assert!((c16 - SEMANTIC_SIMILARITY_Q1).abs() < 1e-3, "{c16}");
    assert_eq!(bf16["model"].as_str().unwrap(), format!("{}:bf16", f32["model"].as_str().unwrap()));
}
