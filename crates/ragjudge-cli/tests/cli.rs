//! End-to-end tests of the `ragjudge` binary: outputs, summaries and one-line input errors.

mod common;

use common::*;

use serde_json::Value;

/// `ragjudge args... --judge openai:test-model` against the test server at `base_url`, without an
/// API key.
const ONE_RECORD: &str = r#"{"id": "q1", "system": "s", "query": "Where did the cat sit?", "answer": "the cat sat", "reference": "the cat sat on the mat", "contexts": [{"text": "a", "relevance": 3}, {"text": "b", "relevance": 0}, {"text": "c", "relevance": 2}]}
"#;

#[test]
fn score_writes_hand_checked_values() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "one.jsonl", ONE_RECORD.as_bytes());
    let out = dir.path().join("scores.csv");
    let o = ragjudge(&["score", "--input", &input, "--output", out.to_str().unwrap(), "--k", "1,3,5"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut rdr = csv::Reader::from_path(&out).unwrap();
    let headers = rdr.headers().unwrap().clone();
    let row = rdr.records().next().unwrap().unwrap();
    let get = |c: &str| -> String {
        row[headers.iter().position(|h| h == c).unwrap_or_else(|| panic!("no column {c}"))].to_string()
    };
    let num = |c: &str| -> f64 { get(c).parse().unwrap() };
    assert_eq!(get("id"), "q1");
    assert_eq!(get("system"), "s");
    // 3 answer tokens all in the 6 reference tokens: P = 1, R = 1/2, F = 2/3.
    assert_eq!(num("rouge1_p"), 1.0);
    assert_eq!(num("rouge1_r"), 0.5);
    assert!((num("rouge1_f") - 2.0 / 3.0).abs() < 1e-12);
    // bigrams "the cat", "cat sat" both in the reference's 5: P = 1, R = 2/5.
    assert!((num("rouge2_r") - 0.4).abs() < 1e-12);
    assert_eq!(num("exact_match"), 0.0);
    // grades 3, 0, 2 with threshold 2: relevant at ranks 1 and 3.
    assert_eq!(num("precision@1"), 1.0);
    assert!((num("precision@3") - 2.0 / 3.0).abs() < 1e-12);
    // AP@3 = (P@1 + P@3) / 2 = (1 + 2/3) / 2.
    assert!((num("ap@3") - 5.0 / 6.0).abs() < 1e-12);
    assert_eq!(num("mrr"), 1.0);
    // K = 5 beyond 3 passages: missing ranks count as non-relevant, P@5 = 2/5.
    assert!((num("precision@5") - 0.4).abs() < 1e-12);
    assert_eq!(get("error"), "");
}

#[test]
fn skip_short_lists_leaves_k_beyond_the_list_empty() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "one.jsonl", ONE_RECORD.as_bytes());
    let o = ragjudge(&["score", "--input", &input, "--metrics", "retrieval", "--skip-short-lists", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let metrics = v["systems"][0]["metrics"].as_array().unwrap();
    let p5 = metrics.iter().find(|m| m["metric"] == "precision@5").unwrap();
    assert_eq!(p5["n"], 0);
    assert!(p5["mean"].is_null());
}

#[test]
fn score_runs_on_the_bundled_example() {
    let root = repo_root();
    let runs: Vec<String> = ["oracle", "partial", "abstain", "wrong"]
        .iter()
        .map(|s| root.join(format!("examples/runs/{s}.jsonl")).display().to_string())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("scores.jsonl");
    let mut args = vec!["score", "--input"];
    args.extend(runs.iter().map(String::as_str));
    args.extend(["--output", out.to_str().unwrap(), "--json"]);
    let o = ragjudge(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let systems = v["systems"].as_array().unwrap();
    assert_eq!(systems.len(), 4);
    let mean = |system: &str, metric: &str| -> f64 {
        let s = systems.iter().find(|s| s["system"] == system).unwrap();
        let m = s["metrics"].as_array().unwrap().iter().find(|m| m["metric"] == metric).unwrap();
        m["mean"].as_f64().unwrap()
    };
    // The oracle system is written to be fully correct and well retrieved; `wrong` is neither.
    assert!(mean("oracle", "rouge1_f") > mean("wrong", "rouge1_f"));
    assert!(mean("oracle", "ciu") > mean("wrong", "ciu"));
    assert!(mean("oracle", "mrr") > mean("wrong", "mrr"));
    // Per-record JSONL keeps CIU's evidence.
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().count(), v["records"].as_u64().unwrap() as usize);
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert!(first["detail"]["ciu"]["matches"].is_array(), "{first}");
}

#[test]
fn bad_inputs_give_one_line_errors_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let good = r#"{"id":"a","query":"q","answer":"x","reference":"x"}"#;
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.jsonl", vec![], "empty.jsonl: no records"),
        (
            "truncated.jsonl",
            format!("{good}\n{{\"id\":\"b\",\"query\":\"x").into_bytes(),
            "truncated.jsonl:2: invalid JSON",
        ),
        ("noquery.jsonl", br#"{"id":"a","answer":"x"}"#.to_vec(), "noquery.jsonl:1: field `query`: missing"),
        ("types.jsonl", br#"{"id":"a","query":5,"answer":"x"}"#.to_vec(), "types.jsonl:1: field `query`"),
        (
            "ctxtype.jsonl",
            br#"{"id":"a","query":"q","answer":"x","contexts":"x"}"#.to_vec(),
            "ctxtype.jsonl:1: field `contexts`",
        ),
        (
            "utf8.jsonl",
            b"{\"id\":\"a\",\"query\":\"\xff\xfe\",\"answer\":\"x\"}\n".to_vec(),
            "utf8.jsonl:1: invalid UTF-8",
        ),
        ("missing.csv", b"id,query\n1,x\n".to_vec(), "missing.csv: missing column `answer`"),
    ];
    for (name, bytes, want) in cases {
        let path = write(dir.path(), name, &bytes);
        let o = ragjudge(&["score", "--input", &path]);
        assert_one_line_error(&o, want);
    }
}

#[test]
fn a_huge_line_is_an_error_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let mut line = br#"{"id":"a","query":""#.to_vec();
    line.resize(line.len() + (3 << 20), b'x');
    line.extend_from_slice(b"\",\"answer\":\"x\"}\n");
    let path = write(dir.path(), "huge.jsonl", &line);
    let o = ragjudge(&["score", "--input", &path, "--max-line-mib", "1"]);
    assert_one_line_error(&o, "huge.jsonl:1: line is longer than");
}

#[test]
fn skip_invalid_scores_good_records_and_counts_bad_ones() {
    let dir = tempfile::tempdir().unwrap();
    let text = concat!(
        r#"{"id":"a","query":"q","answer":"x y","reference":"x y"}"#,
        "\n",
        r#"{"id":"b","query":"q"#,
        "\n",
        r#"{"id":"c","answer":"x"}"#,
        "\n",
        r#"{"id":"d","query":5,"answer":"x"}"#,
        "\n",
        r#"{"id":"e","query":"q","answer":"z","reference":"x y"}"#,
        "\n",
    );
    let path = write(dir.path(), "mixed.jsonl", text.as_bytes());
    let o = ragjudge(&["score", "--input", &path, "--metrics", "lexical", "--skip-invalid", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["records"], 2);
    assert_eq!(v["skipped"], 3);
    let err = stderr(&o);
    assert!(
        err.contains("mixed.jsonl:2:") && err.contains("mixed.jsonl:3:") && err.contains("mixed.jsonl:4:"),
        "{err}"
    );
    // exact match over the two good records: (1 + 0) / 2.
    let em = v["systems"][0]["metrics"].as_array().unwrap().iter().find(|m| m["metric"] == "exact_match").unwrap();
    assert_eq!(em["mean"], 0.5);
}

#[test]
fn unknown_metric_is_refused() {
    let root = repo_root();
    let input = root.join("examples/runs/oracle.jsonl");
    let o = ragjudge(&["score", "--input", input.to_str().unwrap(), "--metrics", "lexical,nope"]);
    assert_one_line_error(&o, "unknown metric `nope`");
}

#[test]
fn testgen_refuses_a_share_of_follow_ups_outside_zero_to_one_before_reading_anything() {
    // The corpus does not exist: the settings are refused first.
    let o = ragjudge(&["testgen", "--corpus", "/no/such/docs.jsonl", "--output", "q.jsonl", "--follow-ups", "1.5"]);
    assert_one_line_error(&o, "invalid settings: follow-ups must be a share of the questions between 0 and 1, got 1.5");
}

#[test]
fn testgen_embeds_a_collection_with_chinese_documents_with_the_multilingual_encoder() {
    let dir = tempfile::tempdir().unwrap();
    let docs = "{\"id\": \"d1\", \"text\": \"The central bank raised its rate in May. Markets fell.\"}\n\
                {\"id\": \"d2\", \"text\": \"央行五月上调利率。市场随即下跌，投资者转向债券。\"}\n\
                {\"id\": \"d3\", \"text\": \"铀矿价格有望保持上升趋势，供需缺口仍然存在。\"}\n";
    let zh = write(dir.path(), "mixed.jsonl", docs.as_bytes());
    let en = repo_root().join("examples/corpus/docs.jsonl").display().to_string();
    for (corpus, want, sample) in [(zh.as_str(), "multilingual-e5-small", "2"), (en.as_str(), "minilm", "12")] {
        let out = dir.path().join("q.jsonl").display().to_string();
        let o = ragjudge(&["testgen", "--corpus", corpus, "--output", &out, "--dry-run", "--sample", sample]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stderr(&o).contains(&format!("embedder: {want} (the collection's language")), "{}", stderr(&o));
    }
}

#[test]
fn correlate_matches_scipy_on_a_small_table() {
    // scipy 1.17.1: pearsonr -> (0.8, 0.10408803866182782); spearmanr -> (0.8, 0.104088...);
    // kendalltau -> (0.6, 0.23333333333333334) (exact: 2 * 14/120).
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "xy.csv", b"x,y,note\n1,2,a\n2,1,b\n3,4,c\n4,3,d\n5,5,e\n6,,f\n");
    let o = ragjudge(&["correlate", &path, "--x", "x", "--y", "y", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["n"], 5);
    assert_eq!(v["missing"], 1);
    let close = |a: &Value, b: f64| (a.as_f64().unwrap() - b).abs() < 1e-9;
    assert!(close(&v["pearson"]["coefficient"], 0.8));
    assert!(close(&v["pearson"]["p_value"], 0.10408803866182782));
    assert!(close(&v["spearman"]["coefficient"], 0.8));
    assert!(close(&v["kendall_tau_b"]["coefficient"], 0.6));
    assert!(close(&v["kendall_tau_b"]["p_value"], 0.23333333333333334));
}

#[test]
fn correlate_reads_nested_jsonl_paths_and_names_bad_cells() {
    let dir = tempfile::tempdir().unwrap();
    let rows =
        "{\"a\":{\"b\":1},\"y\":2}\n{\"a\":{\"b\":2},\"y\":1}\n{\"a\":{\"b\":3},\"y\":4}\n{\"a\":{\"b\":4},\"y\":3}\n";
    let path = write(dir.path(), "xy.jsonl", rows.as_bytes());
    let o = ragjudge(&["correlate", &path, "--x", "a.b", "--y", "y", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    // dx = (-1.5, -0.5, 0.5, 1.5), dy = (-0.5, -1.5, 1.5, 0.5): r = (0.75 + 0.75 + 0.75 + 0.75) / 5 = 0.6.
    assert!((v["pearson"]["coefficient"].as_f64().unwrap() - 0.6).abs() < 1e-12);
    let bad = write(dir.path(), "bad.csv", b"x,y\n1,2\n2,oops\n");
    let o = ragjudge(&["correlate", &bad, "--x", "x", "--y", "y"]);
    assert_one_line_error(&o, "bad.csv:3: field `y`: not a finite number: oops");
}

#[test]
fn correlate_joins_a_second_file_on_keys() {
    let dir = tempfile::tempdir().unwrap();
    let scores = write(dir.path(), "scores.csv", b"id,system,m\nq1,a,1\nq2,a,2\nq3,a,3\nq4,a,4\nq1,b,9\n");
    // Rows in another order; q1/b has no rating, so n = 4 of 5 rows.
    let ratings = write(dir.path(), "ratings.csv", b"id,system,h\nq4,a,3\nq3,a,4\nq2,a,1\nq1,a,2\n");
    let o = ragjudge(&["correlate", &scores, "--x", "m", "--with", &ratings, "--y", "h", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["n"], 4);
    assert_eq!(v["missing"], 1);
    // m = 1..4 against h = 2, 1, 4, 3: r = 0.6 as in the JSONL test above.
    assert!((v["pearson"]["coefficient"].as_f64().unwrap() - 0.6).abs() < 1e-12);
}

#[test]
fn correlate_joins_on_id_alone_when_the_ratings_name_no_system() {
    let dir = tempfile::tempdir().unwrap();
    let scores = write(
        dir.path(),
        "scores.csv",
        b"id,system,m
q1,a,1
q2,a,2
q3,a,3
q4,a,4
",
    );
    let ratings = write(
        dir.path(),
        "ratings.jsonl",
        b"{\"id\":\"q4\",\"h\":3}\n{\"id\":\"q3\",\"h\":4}\n{\"id\":\"q2\",\"h\":1}\n{\"id\":\"q1\",\"h\":2}\n",
    );
    let o = ragjudge(&["correlate", &scores, "--x", "m", "--with", &ratings, "--y", "h", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["n"], 4);
    // The same pairs as above: r = 0.6.
    assert!((v["pearson"]["coefficient"].as_f64().unwrap() - 0.6).abs() < 1e-12);
}

#[test]
fn ask_an_http_judge_through_the_call_cache() {
    use ragjudge_testserver::{Behavior, Normal, Script, TestServer};
    let server = TestServer::start(Script::always(Behavior::Normal(Normal::text("Paris").with_top_logprobs(&[
        ("A", -0.1),
        ("B", -2.5),
        ("x", -4.0),
    ]))));
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache.sqlite");
    let run = |extra: &[&str]| {
        let mut args = vec!["ask", "--cache", cache.to_str().unwrap(), "--json"];
        args.extend_from_slice(extra);
        ragjudge_http(&server.base_url(), &args)
    };
    let o = run(&["Capital of France?"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["generation"]["text"], "Paris");
    // label probabilities: softmax over the labels' logprobs only, e.g. p(A) = 1 / (1 + e^(-2.4)).
    let o = run(&["--labels", "A,B", "Pick one."]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let p_a = v["label_probs"]["probs"][0].as_f64().unwrap();
    assert!((p_a - 1.0 / (1.0 + (-2.4f64).exp())).abs() < 1e-9, "{v}");
    assert_eq!(server.request_count(), 2);
    // The same two questions again: answered from the cache, no request reaches the server.
    assert!(run(&["Capital of France?"]).status.success());
    assert!(run(&["--labels", "A,B", "Pick one."]).status.success());
    assert_eq!(server.request_count(), 2);
}

#[test]
fn agree_matches_scikit_learn() {
    // Gold: the bundled human labels. Prediction: every 5th label flipped (A<->B, tie->A), every
    // other 7th set to tie; every 3rd pair written with A and B swapped (the label flipped too).
    // scikit-learn 1.9.1 on the same 72 pairs: accuracy_score = 0.6805555555555556,
    // cohen_kappa_score = 0.48698884758364314, confusion_matrix(labels=[A, B, tie]) =
    // [[22, 5, 5], [7, 21, 3], [3, 0, 6]].
    let root = repo_root();
    let gold_path = root.join("examples/human/pairwise_labels.jsonl");
    let gold = std::fs::read_to_string(&gold_path).unwrap();
    let mut pred = String::new();
    for (i, line) in gold.lines().enumerate() {
        let g: Value = serde_json::from_str(line).unwrap();
        let mut label = g["label"].as_str().unwrap().to_string();
        if i % 5 == 0 {
            label = match label.as_str() {
                "A" => "B",
                "B" => "A",
                _ => "A",
            }
            .to_string();
        } else if i % 7 == 0 {
            label = "tie".to_string();
        }
        let (a, b) = (g["system_a"].clone(), g["system_b"].clone());
        let row = if i % 3 == 0 {
            let flipped = match label.as_str() {
                "A" => "B",
                "B" => "A",
                t => t,
            };
            serde_json::json!({"id": g["id"], "system_a": b, "system_b": a, "label": flipped})
        } else {
            serde_json::json!({"id": g["id"], "system_a": a, "system_b": b, "label": label})
        };
        pred.push_str(&format!("{row}\n"));
    }
    let dir = tempfile::tempdir().unwrap();
    let pred_path = write(dir.path(), "pred.jsonl", pred.as_bytes());
    let o = ragjudge(&["agree", "--pred", &pred_path, "--gold", gold_path.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["n"], 72);
    assert!((v["accuracy"].as_f64().unwrap() - 0.6805555555555556).abs() < 1e-12);
    assert!((v["kappa"].as_f64().unwrap() - 0.48698884758364314).abs() < 1e-12);
    assert_eq!(v["confusion_matrix"], serde_json::json!([[22, 5, 5], [7, 21, 3], [3, 0, 6]]));
}

#[test]
fn agree_turns_a_metric_into_pairwise_labels() {
    // Per-record scores: q1 a=0.9 b=0.5 (A), q2 a=0.50 b=0.52 (tie within delta 0.05), q3 a=0.1 b=0.8 (B).
    let dir = tempfile::tempdir().unwrap();
    let scores =
        write(dir.path(), "scores.csv", b"id,system,m\nq1,a,0.9\nq1,b,0.5\nq2,a,0.50\nq2,b,0.52\nq3,a,0.1\nq3,b,0.8\n");
    let gold = write(
        dir.path(),
        "gold.jsonl",
        concat!(
            r#"{"id":"q1","system_a":"a","system_b":"b","label":"A"}"#,
            "\n",
            r#"{"id":"q2","system_a":"a","system_b":"b","label":"tie"}"#,
            "\n",
            r#"{"id":"q3","system_a":"a","system_b":"b","label":"A"}"#,
            "\n",
        )
        .as_bytes(),
    );
    let o =
        ragjudge(&["agree", "--scorer", "metric:m", "--scores", &scores, "--delta", "0.05", "--gold", &gold, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    // Predicted A, tie, B against gold A, tie, A: 2 of 3 right.
    assert!((v["accuracy"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(v["confusion_matrix"], serde_json::json!([[1, 1, 0], [0, 0, 0], [0, 0, 1]]));
}

#[test]
fn compare_runs_a_dice_match_against_an_http_judge_and_resumes_from_the_cache() {
    use ragjudge_testserver::{Behavior, Normal, Script, TestServer};
    // Every answer: an analysis naming the categories, and verdict log-probabilities A -0.05, B -3.5,
    // C -4.0. Softmax over the three: p_A = 0.9517..., margin far above 0.1, so each question is a
    // hard win for the answer shown first.
    let server = TestServer::start(Script::always(Behavior::Normal(
        Normal::text("A matches the reference.\nCategory A: fully correct\nCategory B: incorrect")
            .with_top_logprobs(&[("A", -0.05), ("B", -3.5), ("C", -4.0)]),
    )));
    let root = repo_root();
    let a = root.join("examples/runs/oracle.jsonl");
    let b = root.join("examples/runs/wrong.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("match");
    let cache = dir.path().join("cache.sqlite");
    let run = || {
        let (a, b, out, cache) =
            (a.to_str().unwrap(), b.to_str().unwrap(), out.to_str().unwrap(), cache.to_str().unwrap());
        let args = ["compare", a, b, "--output", out, "--cache", cache, "--limit", "3", "--no-swap", "--json"];
        ragjudge_http(&server.base_url(), &args)
    };
    let o = run();
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["questions"], 3);
    assert_eq!(v["s_a"], 1.0);
    assert_eq!(v["wins_a"], 3);
    assert_eq!(v["categories"]["FullyCorrect"], serde_json::json!([3, 0]));
    // The match's key figures: oracle won the 3 questions (DICE score 1), shown first each time.
    assert_report_and_gate_read(
        &out.join("compare.json"),
        &["--on", "mean", "--system", "oracle", "--min", "win_rate=1"],
    );
    // Stage I (generate) and stage II (label probabilities) per question.
    assert_eq!(server.request_count(), 6);
    let traces = std::fs::read_to_string(out.join("traces.jsonl")).unwrap();
    assert_eq!(traces.lines().count(), 3);
    // A re-run is answered from the call cache.
    let o = run();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(server.request_count(), 6);
    assert_eq!(std::fs::read_to_string(out.join("traces.jsonl")).unwrap().lines().count(), 3);
}

#[test]
fn tournament_ranks_the_example_systems_and_resumes_from_the_cache() {
    use ragjudge_testserver::{Behavior, Normal, Script, TestServer};
    let server = TestServer::start(Script::always(Behavior::Normal(Normal::text("A").with_top_logprobs(&[
        ("A", -0.05),
        ("B", -3.5),
        ("C", -4.0),
    ]))));
    let root = repo_root();
    let runs: Vec<String> = ["oracle", "partial", "abstain", "wrong"]
        .iter()
        .map(|s| root.join(format!("examples/runs/{s}.jsonl")).display().to_string())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    let cache = dir.path().join("cache.sqlite");
    let run = |format: &str| {
        let mut args: Vec<&str> = vec!["tournament"];
        args.extend(runs.iter().map(String::as_str));
        args.extend(["--format", format, "--output", out.to_str().unwrap(), "--cache", cache.to_str().unwrap()]);
        args.extend(["--limit", "2", "--no-swap", "--no-reasoning", "--json"]);
        ragjudge_http(&server.base_url(), &args)
    };
    let o = run("round-robin");
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    // 4 systems: 6 matches x 2 questions x 1 call (one order, no analysis).
    assert_eq!(v["judge_calls"], 12);
    assert_eq!(v["round_robin_calls"], 12);
    assert_eq!(server.request_count(), 12);
    let systems = v["systems"].as_array().unwrap();
    assert_eq!(systems.len(), 4);
    for key in ["system", "rank", "elo", "bt", "bt_ci_low", "bt_ci_high", "wins", "ties", "losses", "matches"] {
        assert!(systems[0].get(key).is_some(), "missing {key}: {}", systems[0]);
    }
    // Elo is zero-sum: the ratings still average the 1000 start.
    let mean_elo: f64 = systems.iter().map(|s| s["elo"].as_f64().unwrap()).sum::<f64>() / 4.0;
    assert!((mean_elo - 1000.0).abs() < 1e-9);
    assert!(out.join("leaderboard.csv").is_file());
    // A leaderboard is read for `--beats` (whose outcome two questions a match cannot settle).
    report_and_gate(&out.join("leaderboard.json"), &["--system", "oracle", "--beats", "wrong"]);
    // The length-controlled refit: one row per system, over the 12 judged questions.
    let lc = &v["length_control"];
    assert_eq!(lc["systems"].as_array().unwrap().len(), 4);
    assert_eq!(lc["skipped"], 0);
    assert!(lc["fit"]["gamma"].as_f64().unwrap().is_finite());
    // Swiss over the same systems reuses every judgement from the cache.
    let o = run("swiss");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(server.request_count(), 12);
}

#[test]
fn baseline_places_a_system_among_three_tiers() {
    use ragjudge_testserver::{Behavior, Normal, Script, TestServer};
    let server = TestServer::start(Script::always(Behavior::Normal(Normal::text("A").with_top_logprobs(&[
        ("A", -0.05),
        ("B", -3.5),
        ("C", -4.0),
    ]))));
    let root = repo_root();
    let run = |s: &str| root.join(format!("examples/runs/{s}.jsonl")).display().to_string();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("b");
    let (target, high, medium, low) = (run("partial"), run("oracle"), run("abstain"), run("wrong"));
    let args = ["baseline", &target, "--high", &high, "--medium", &medium, "--low", &low];
    let mut args = args.to_vec();
    args.extend([
        "--output",
        out.to_str().unwrap(),
        "--no-cache",
        "--limit",
        "2",
        "--no-swap",
        "--no-reasoning",
        "--json",
    ]);
    let o = ragjudge_http(&server.base_url(), &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    // A round robin among target + 3 tiers: 6 matches x 2 questions, one call each.
    assert_eq!(server.request_count(), 12);
    let placements = ["above high", "between high and medium", "between medium and low", "below low"];
    assert!(placements.contains(&v["placement"].as_str().unwrap()), "{v}");
    for t in v["tiers"].as_array().unwrap() {
        let n = t["wins"].as_u64().unwrap() + t["ties"].as_u64().unwrap() + t["losses"].as_u64().unwrap();
        assert_eq!(n, 2, "{t}");
    }
    report_and_gate(&out.join("baseline.json"), &["--system", "target", "--beats", "low"]);
}

/// Word-level F1 of `answer` against `reference` (lower case, alphanumeric words).
fn overlap_f1(answer: &str, reference: &str) -> f64 {
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
    };
    let (a, r) = (words(answer), words(reference));
    let mut pool = r.clone();
    let mut common = 0usize;
    for w in &a {
        if let Some(i) = pool.iter().position(|x| x == w) {
            pool.swap_remove(i);
            common += 1;
        }
    }
    if common == 0 {
        return 0.0;
    }
    let (p, q) = (common as f64 / a.len() as f64, common as f64 / r.len() as f64);
    2.0 * p * q / (p + q)
}

/// The text between `start` and `end` in `s`.
fn between<'s>(s: &'s str, start: &str, end: &str) -> &'s str {
    let from = s.find(start).map(|i| i + start.len()).unwrap_or(s.len());
    let to = s[from..].find(end).map_or(s.len(), |i| from + i);
    &s[from..to]
}

#[test]
fn baseline_places_the_target_by_content_with_a_content_following_judge() {
    use ragjudge_testserver::{Behavior, Normal, Script, TestServer};
    // A judge that reads the prompt: the answer closer to the reference (word F1) wins, a
    // difference under 0.05 is a tie (C). No logprobs, so verdicts are hard labels.
    let judge = Normal::func(|body: &Value| {
        let user = body["messages"]
            .as_array()
            .and_then(|m| m.iter().rev().find(|x| x["role"] == "user"))
            .and_then(|m| m["content"].as_str())
            .unwrap_or("")
            .to_string();
        let reference = between(&user, "Reference answer:\n", "\n\nAnswer A:");
        let a = between(&user, "Answer A:\n", "\n\nEvidence retrieved for answer A");
        let b = between(&user, "Answer B:\n", "\n\nEvidence retrieved for answer B");
        let (fa, fb) = (overlap_f1(a, reference), overlap_f1(b, reference));
        if (fa - fb).abs() < 0.05 {
            "C"
        } else if fa > fb {
            "A"
        } else {
            "B"
        }
        .to_string()
    })
    .with_top_logprobs(&[]);
    let server = TestServer::start(Script::always(Behavior::Normal(judge)));
    let dir = tempfile::tempdir().unwrap();
    // Five questions; the reference has 12 words. Tiers keep 12 (high), 4 (medium) and 0 (low)
    // of them; the target keeps 8: word F1 1.0, 0.5, 0 and 0.8, so the target beats medium and
    // low on every question and loses to high on every question.
    let reference_words: Vec<String> = (0..12).map(|i| format!("fact{i}")).collect();
    let keep = |n: usize, filler: &str| -> String {
        let mut w: Vec<String> = reference_words[..n].to_vec();
        w.extend(std::iter::repeat_n(filler.to_string(), 12 - n));
        w.join(" ")
    };
    let run = |name: &str, kept: usize| -> String {
        let lines: Vec<String> = (1..=5)
            .map(|q| {
                serde_json::json!({"id": format!("q{q}"), "system": name, "query": format!("question {q}?"),
                    "answer": keep(kept, "unrelated"), "reference": reference_words.join(" ")})
                .to_string()
            })
            .collect();
        write(dir.path(), &format!("{name}.jsonl"), (lines.join("\n") + "\n").as_bytes())
    };
    let (target, high, medium, low) = (run("t", 8), run("h", 12), run("m", 4), run("l", 0));
    let out = dir.path().join("b");
    let args = ["baseline", &target, "--high", &high, "--medium", &medium, "--low", &low];
    let mut args = args.to_vec();
    args.extend(["--output", out.to_str().unwrap(), "--no-cache", "--no-reasoning", "--hard-labels", "--json"]);
    let o = ragjudge_http(&server.base_url(), &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    // 6 matches x 5 questions x 2 orders.
    assert_eq!(server.request_count(), 60);
    assert_eq!(v["placement"], "between high and medium", "{v}");
    let tier = |name: &str| v["tiers"].as_array().unwrap().iter().find(|t| t["tier"] == name).unwrap().clone();
    let wtl = |t: Value| (t["wins"].as_u64().unwrap(), t["ties"].as_u64().unwrap(), t["losses"].as_u64().unwrap());
    assert_eq!(wtl(tier("high")), (0, 0, 5));
    assert_eq!(wtl(tier("medium")), (5, 0, 0));
    assert_eq!(wtl(tier("low")), (5, 0, 0));
    // The scripted judge is order-consistent and never ties here.
    assert_eq!(v["trust"]["order_consistency"], 1.0);
    assert_eq!(v["trust"]["tie_rate"], 0.0);
    // Pairwise labels for `agree` are written too: 30 pairs.
    let labels = std::fs::read_to_string(out.join("labels.jsonl")).unwrap();
    assert_eq!(labels.lines().count(), 30);
}

#[test]
fn dry_run_counts_calls_without_calling_and_counts_cached_calls_as_free() {
    use ragjudge_testserver::{Behavior, Normal, Script, TestServer};
    let server = TestServer::start(Script::always(Behavior::Normal(Normal::text("A"))));
    let root = repo_root();
    let run = |s: &str| root.join(format!("examples/runs/{s}.jsonl")).display().to_string();
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache.sqlite");
    let out = dir.path().join("c");
    let compare = |extra: &[&str]| {
        let (a, b) = (run("oracle"), run("wrong"));
        let mut args = vec!["compare", &a, &b, "--output", out.to_str().unwrap(), "--cache", cache.to_str().unwrap()];
        args.extend(["--limit", "3", "--no-reasoning", "--json"]);
        args.extend_from_slice(extra);
        ragjudge_http(&server.base_url(), &args)
    };
    let o = compare(&["--dry-run"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(server.request_count(), 0);
    // 3 questions x 2 orders, none cached.
    assert_eq!((v["judge_calls"].as_u64(), v["uncached_calls"].as_u64()), (Some(6), Some(6)));
    assert!(v["estimated_prompt_tokens"].as_u64().unwrap() > 6 * 100, "{v}");
    // Judge 2 of the 3 questions for real, then the dry run counts 2 x 2 calls as cached.
    let o = compare(&["--ids", "q01,q02"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(server.request_count(), 4);
    let o = compare(&["--dry-run"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["judge_calls"].as_u64(), v["uncached_calls"].as_u64()), (Some(6), Some(2)));
    assert_eq!(server.request_count(), 4);
}

#[test]
fn score_ppi_joins_labels_and_falls_back_to_the_labels_when_the_metric_is_constant() {
    // Six records of one system, every answer equal to its reference (exact_match 1 throughout:
    // a constant prediction has no variance, so lambda is 0 and the estimate is the labels' mean).
    let dir = tempfile::tempdir().unwrap();
    let recs: String = (1..=6)
        .map(|i| format!("{{\"id\": \"q{i}\", \"system\": \"s\", \"query\": \"q\", \"answer\": \"yes\", \"reference\": \"yes\"}}\n"))
        .collect();
    let input = write(dir.path(), "recs.jsonl", recs.as_bytes());
    let labels = write(dir.path(), "labels.csv", "id,system,label\nq1,s,1\nq2,s,2\nq3,s,3\nq9,s,5\n");
    let out = dir.path().join("s.csv").display().to_string();
    let o = ragjudge(&[
        "score",
        "--input",
        &input,
        "--metrics",
        "lexical",
        "-o",
        &out,
        "--ppi-labels",
        &labels,
        "--ppi-metrics",
        "exact_match",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let row = &v["ppi"]["rows"][0];
    assert_eq!((row["system"].as_str(), row["metric"].as_str()), (Some("s"), Some("exact_match")));
    assert_eq!((row["n"].as_u64(), row["unlabelled"].as_u64()), (Some(3), Some(3)));
    assert_eq!(row["lambda"].as_f64(), Some(0.0));
    // mean 2; population sd sqrt(2/3); z(0.95) = 1.6448536269514722; half width z * sqrt(2/3) / sqrt(3).
    let half = 1.6448536269514722 * (2.0f64 / 3.0).sqrt() / 3f64.sqrt();
    assert!((row["ppi"]["estimate"].as_f64().unwrap() - 2.0).abs() < 1e-12);
    assert!((row["ppi"]["high"].as_f64().unwrap() - (2.0 + half)).abs() < 1e-12);
    assert!((row["classical"]["low"].as_f64().unwrap() - (2.0 - half)).abs() < 1e-12);
    let o = ragjudge(&["score", "--input", &input, "--ppi-labels", &labels]);
    assert_one_line_error(&o, "--ppi-labels needs --output");
    let o = ragjudge(&["score", "--input", &input, "-o", &out, "--ppi-labels", &labels, "--ppi-metrics", "nope"]);
    assert_one_line_error(&o, "`nope` is not a column");
}

/// Runs `command` (with its own options) on oracle against wrong over the first 4 questions, one
/// order and no reasoning, with `labels` (JSONL lines) as `--ppi-labels`, against a judge whose
/// verdict is always a hard A (s = 1 for the answer shown first); returns the JSON output.
fn ppi_with_a_first_judge(command: &[&str], labels: &str) -> Value {
    use ragjudge_testserver::{Behavior, Normal, Script, TestServer};
    let server = TestServer::start(Script::always(Behavior::Normal(Normal::text("A").with_top_logprobs(&[
        ("A", -0.05),
        ("B", -3.5),
        ("C", -4.0),
    ]))));
    let root = repo_root();
    let (a, b) = (root.join("examples/runs/oracle.jsonl"), root.join("examples/runs/wrong.jsonl"));
    let dir = tempfile::tempdir().unwrap();
    let labels = write(dir.path(), "labels.jsonl", labels);
    let out = dir.path().join("out").display().to_string();
    let mut args = vec![command[0], a.to_str().unwrap(), b.to_str().unwrap()];
    args.extend(&command[1..]);
    args.extend(["--output", &out, "--no-cache", "--limit", "4", "--no-swap", "--no-reasoning"]);
    args.extend(["--ppi-labels", &labels, "--json"]);
    let o = ragjudge_http(&server.base_url(), &args);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn compare_estimates_a_prediction_powered_win_rate_from_a_few_labels() {
    // People agree on q01 and disagree on q02; q03 and q04 are unlabelled.
    let v = ppi_with_a_first_judge(
        &["compare"],
        "{\"id\": \"q01\", \"system_a\": \"oracle\", \"system_b\": \"wrong\", \"label\": \"A\"}\n{\"id\": \"q02\", \"system_a\": \"wrong\", \"system_b\": \"oracle\", \"label\": \"A\"}\n",
    );
    let e = &v["ppi_win_rate_a"]["estimate"];
    // Y = (1, 0) (q02's label is for wrong over oracle), every s_A = 1: the predictions have no
    // variance, lambda = 0, and the estimate is the labels' mean 0.5 with se 0.5 / sqrt(2).
    assert_eq!((e["n"].as_u64(), e["unlabelled"].as_u64(), e["lambda"].as_f64()), (Some(2), Some(2), Some(0.0)));
    let half = 1.6448536269514722 * 0.5 / 2f64.sqrt();
    assert!((e["ppi"]["estimate"].as_f64().unwrap() - 0.5).abs() < 1e-12);
    assert!((e["ppi"]["low"].as_f64().unwrap() - (0.5 - half)).abs() < 1e-12);
}

#[test]
fn tournament_gives_prediction_powered_win_rates_per_pair() {
    // People call q01 and q02 ties; q03 and q04 are unlabelled.
    let v = ppi_with_a_first_judge(
        &["tournament", "--format", "round-robin"],
        "{\"id\": \"q01\", \"system_a\": \"oracle\", \"system_b\": \"wrong\", \"label\": \"tie\"}\n{\"id\": \"q02\", \"system_a\": \"oracle\", \"system_b\": \"wrong\", \"label\": \"tie\"}\n",
    );
    let pair = &v["ppi"]["pairs"][0];
    let e = &pair["estimate"];
    // Every judged s is 1 for the system shown first: no variance, lambda 0, and the estimate
    // is the labels' mean 1/2 with no spread.
    assert_eq!((e["n"].as_u64(), e["unlabelled"].as_u64(), e["lambda"].as_f64()), (Some(2), Some(2), Some(0.0)));
    assert_eq!((e["ppi"]["estimate"].as_f64(), e["ppi"]["low"].as_f64()), (Some(0.5), Some(0.5)));
    assert!(v["ppi"]["notes"].as_array().unwrap().is_empty());
}

/// `--lang auto`: a Chinese record gets the CMRC 2018 exact match (its punctuation list drops
/// 《》, so 《证券法》 equals 证券法) where SQuAD's, which drops ASCII punctuation only, gives 0; an
/// English record keeps SQuAD's. Each row says its language; the definitions name both sets.
#[test]
fn score_lang_auto_uses_chinese_tokenisers_for_chinese_records() {
    let dir = tempfile::tempdir().unwrap();
    let text = concat!(
        r#"{"id":"zh","query":"q","answer":"《证券法》","reference":"证券法"}"#,
        "\n",
        r#"{"id":"en","query":"q","answer":"The cat.","reference":"the cat"}"#,
        "\n",
    );
    let input = write(dir.path(), "mixed.jsonl", text.as_bytes());
    let out = dir.path().join("scores.jsonl");
    let run = |lang: &str| {
        let o = ragjudge(&[
            "score",
            "--input",
            &input,
            "--metrics",
            "lexical",
            "--lang",
            lang,
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let rows: Vec<Value> =
            std::fs::read_to_string(&out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        rows
    };
    let en = run("en");
    assert_eq!((en[0]["exact_match"].as_f64(), en[1]["exact_match"].as_f64()), (Some(0.0), Some(1.0)));
    assert!(en[0].get("detail").and_then(|d| d.get("lexical")).is_none());
    let auto = run("auto");
    assert_eq!((auto[0]["exact_match"].as_f64(), auto[1]["exact_match"].as_f64()), (Some(1.0), Some(1.0)));
    assert_eq!(auto[0]["detail"]["lexical"]["lang"], "zh");
    assert_eq!(auto[1]["detail"]["lexical"]["lang"], "en");
    let defs: Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{}.columns.json", out.display())).unwrap()).unwrap();
    let s = &defs["columns"]["bleu"]["settings"];
    assert_eq!((s["lang"].as_str(), s["tokenizers"]["zh"]["bleu"].as_str()), (Some("auto"), Some("zh")));
}
