//! The HTML report end to end on hand-made outputs: what it recognises, what it says first, that
//! it refers to nothing outside itself, and that large inputs are summarised, not dropped.

use ragjudge_report::html::{render, ReportOptions};
use ragjudge_report::inputs::{read_inputs, Input};
use serde_json::json;
use std::path::{Path, PathBuf};

/// A tournament directory of `n` systems `s0..`, system `s0` strongest, with one trace and label.
fn tournament_dir(dir: &Path, n: usize) -> PathBuf {
    let t = dir.join("tournament");
    std::fs::create_dir_all(&t).unwrap();
    let systems: Vec<_> = (0..n)
        .map(|i| {
            let bt = 1.0 - i as f64 * 0.5;
            json!({"system": format!("s{i}"), "rank": i + 1, "elo": 1100.0 - 10.0 * i as f64, "bt": bt,
                   "bt_ci_low": bt - 0.2, "bt_ci_high": bt + 0.2, "wins": n - 1 - i, "ties": 0, "losses": i, "matches": n - 1})
        })
        .collect();
    let mut matches = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            matches.push(json!({"round": 0, "a": format!("s{i}"), "b": format!("s{j}"), "s_a": 0.75, "elo_a": 1016.0, "elo_b": 984.0}));
        }
    }
    let report = json!({
        "systems": systems, "rank_by": "bt", "judge_calls": 4, "round_robin_calls": 4, "failed": 0, "failures": [],
        "matches": matches, "judge": "local:test-model@abc123", "usage": null, "label_prior": null,
        "trust": {"pairs": 2, "orders": 4, "order_consistency": 0.5, "first_position_rate": 0.75, "tie_rate": 0.0,
                  "label_mass": {"n": 4, "mean": 0.9, "min": 0.8, "median": 0.9, "max": 1.0},
                  "margin": {"n": 2, "mean": 0.05, "min": 0.01, "median": 0.05, "max": 0.09},
                  "margin_histogram": [2, 0, 0, 0], "hard_rate": 0.0, "length_agreement": 1.0, "length_pairs": 2,
                  "warnings": ["the answer shown first wins 75% of verdicts: the judge looks position-biased"]},
        "provenance": {"ragjudge": "0.1.0", "command": ["ragjudge", "tournament", "a b.jsonl"]}
    });
    std::fs::write(t.join("leaderboard.json"), serde_json::to_string_pretty(&report).unwrap()).unwrap();
    let probs = json!({"a": 0.6, "b": 0.3, "tie": 0.1});
    let trace = json!({"question_id": "q1", "system_a": "s0", "system_b": "s1", "order": "ab", "prompt_version": "dice-en-v2",
        "lang": "en", "judge": "local:test-model@abc123", "reference_free": false, "reasoning": "A is <right>.",
        "category_a": null, "category_b": null, "category_a_raw": "Fully correct", "category_b_raw": null,
        "label_probs": [0.6, 0.3, 0.1], "label_logits": [0.0, 0.0, 0.0], "probs": probs, "label_mass": 0.9,
        "source": "logits", "bias_applied": false, "prior": null, "corrected": null, "pair_probs": probs, "order_consistent": true});
    std::fs::write(t.join("traces.jsonl"), format!("{trace}\n")).unwrap();
    t
}

fn scores_csv(dir: &Path, rows: usize, systems: usize) -> PathBuf {
    let p = dir.join("scores.csv");
    let mut s = String::from("id,system,rougeL_f,ciu,error\n");
    for i in 0..rows {
        let sys = i % systems;
        s.push_str(&format!(
            "q{},s{sys},{},{},\n",
            i / systems,
            0.9 - 0.1 * sys as f64 + (i % 7) as f64 * 0.01,
            (i % 5) as f64
        ));
    }
    std::fs::write(&p, s).unwrap();
    p
}

fn records(dir: &Path) -> PathBuf {
    let p = dir.join("runs.jsonl");
    let lines = [
        json!({"id": "q0", "system": "s0", "query": "What is <b>2+2</b>?", "answer": "4 [1]", "reference": "4"}),
        json!({"id": "q0", "system": "s1", "query": "What is <b>2+2</b>?", "answer": "5", "reference": "4"}),
    ];
    std::fs::write(&p, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    p
}

#[test]
fn report_leads_with_the_winner_and_refers_to_nothing_outside() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tournament_dir(tmp.path(), 4);
    let scores = scores_csv(tmp.path(), 40, 4);
    let runs = records(tmp.path());
    let junk = tmp.path().join("notes.txt");
    std::fs::write(&junk, "hello").unwrap();
    let inputs = read_inputs(&[t, scores, runs, junk.clone()]);
    let kinds: Vec<&str> = inputs.loaded.iter().map(|l| l.input.kind()).collect();
    assert_eq!(kinds, ["tournament", "per-record scores", "records"]);
    assert_eq!(inputs.skipped.len(), 1);
    assert_eq!(inputs.skipped[0].path, junk);

    let r = render(&inputs, &ReportOptions::default());
    assert_eq!(r.sections[0], "Summary");
    assert!(r.sections.contains(&"Leaderboard".to_string()) && r.sections.contains(&"Provenance".to_string()));
    // The first sentence names the winner and whether its lead is clear: s0 at 1.0 [0.8, 1.2]
    // against s1 at 0.5 [0.3, 0.7]: the intervals do not overlap.
    let lede_at = r.html.find("<p class=\"lede\">").unwrap();
    let lede = &r.html[lede_at..lede_at + 400];
    assert!(lede.contains("s0 ranks first of 4 systems"), "{lede}");
    assert!(lede.contains("difference 0.50") && lede.contains("do not overlap"), "{lede}");
    // Escaped user text, warnings in words, the unused file named with its reason.
    assert!(r.html.contains("What is &lt;b&gt;2+2&lt;/b&gt;?"));
    assert!(r.html.contains("A is &lt;right&gt;."));
    assert!(r.html.contains("looks position-biased"));
    assert!(r.html.contains("notes.txt"));
    assert!(r.html.contains("ragjudge tournament &#39;a b.jsonl&#39;"), "the exact command, quoted");
    // Charts: leaderboard, Elo by round, win matrix, margins, means and distributions.
    for name in ["leaderboard", "elo-by-round", "win-matrix", "margins", "mean-rougeL_f", "distribution-ciu"] {
        assert!(r.charts.iter().any(|c| c == name), "{name} missing from {:?}", r.charts);
    }
    // Nothing loaded from anywhere: no src, no external href, no url(), no import; a CSP that forbids it.
    assert!(!r.html.contains(" src="));
    assert!(!r.html.contains("url("));
    assert!(!r.html.contains("@import"));
    for (i, _) in r.html.match_indices("href=\"") {
        assert_eq!(&r.html[i + 6..i + 7], "#", "only in-page links");
    }
    assert!(r.html.contains("default-src 'none'"));
    let page = &r.html[..r.html.find("<script>").unwrap()];
    assert!(!page.contains("NaN"), "no non-finite number shown");
}

#[test]
fn a_partial_directory_renders_what_it_can_and_says_what_it_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("out");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("leaderboard.json"), "{ not json").unwrap();
    scores_csv(&dir, 8, 2);
    let inputs = read_inputs(std::slice::from_ref(&dir));
    assert_eq!(inputs.loaded.len(), 1);
    assert!(matches!(inputs.loaded[0].input, Input::Scores(_)));
    assert_eq!(inputs.skipped.len(), 1);
    assert!(inputs.skipped[0].reason.starts_with("not JSON"), "{:?}", inputs.skipped);
    let r = render(&inputs, &ReportOptions::default());
    assert!(r.html.contains("1 input(s) not used"));
    assert!(r.html.contains("leaderboard.json"));
}

#[test]
fn large_inputs_are_summarised_not_dropped() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tournament_dir(tmp.path(), 64);
    let scores = scores_csv(tmp.path(), 10_000, 4);
    let inputs = read_inputs(&[t, scores]);
    let opts = ReportOptions { max_questions: 10, ..ReportOptions::default() };
    let r = render(&inputs, &opts);
    // 10,000 rows: violins instead of a point per record, and the drill-down says how many it shows.
    assert!(r.notes.iter().any(|n| n.contains("violins")), "{:?}", r.notes);
    assert!(r.notes.iter().any(|n| n.contains("10 of 2500 questions")), "{:?}", r.notes);
    // Every system of the tournament in the table.
    assert!(r.html.contains("<td>s63</td>"));
    assert!(r.html.len() < 10_000_000, "{} bytes", r.html.len());
}

#[test]
fn the_win_matrix_counts_question_labels_from_both_sides() {
    use ragjudge_charts::ChartBody;
    let tmp = tempfile::tempdir().unwrap();
    let t = tournament_dir(tmp.path(), 2);
    let label = |id: &str, l: &str| json!({"id": id, "system_a": "s0", "system_b": "s1", "label": l, "s_a": 0.5, "probs": {"a": 0.4, "b": 0.3, "tie": 0.3}});
    let lines = [label("q1", "A"), label("q2", "A"), label("q3", "tie")];
    std::fs::write(t.join("labels.jsonl"), lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let charts = ragjudge_report::charts::all_charts(&read_inputs(&[t]));
    let m = charts.iter().find(|c| c.name == "win-matrix").unwrap();
    let ChartBody::Heatmap { cells, .. } = &m.chart.body else { panic!("not a heatmap") };
    // s0 beat s1 on two questions and tied one; the one match scored s_a = 0.75.
    assert_eq!(cells[0][1].as_ref().unwrap().text, "0.75\n2-1-0");
    assert_eq!(cells[1][0].as_ref().unwrap().text, "0.25\n0-1-2");
    assert!(cells[0][0].is_none());
}

#[test]
fn the_drill_down_shows_earlier_turns_and_an_agents_steps() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("agent.jsonl");
    let rec = json!({"id": "a1", "system": "planner", "query": "Pro plan per year?", "answer": "120 EUR [1].",
        "history": [{"role": "user", "text": "Hi <there>"}, {"role": "assistant", "text": "Hello."}],
        "steps": [
            {"kind": "retrieval", "name": "search", "input": "Pro plan", "contexts": [{"id": "p1", "text": "10 EUR a month."}], "latency_ms": 40.4},
            {"kind": "tool", "name": "calculator", "input": "10*12", "error": "timeout after 5 s"}]});
    std::fs::write(&p, format!("{rec}\n")).unwrap();
    let r = render(&read_inputs(&[p]), &ReportOptions::default());
    assert!(r.html.contains("<summary>2 earlier turns</summary>"), "{}", r.html);
    assert!(r.html.contains("<li><strong>user:</strong> Hi &lt;there&gt;</li>"));
    assert!(r.html.contains("<summary>2 steps</summary>"));
    assert!(r.html.contains("<td>retrieval</td><td>search</td><td>Pro plan</td>"), "{}", r.html);
    assert!(r.html.contains("failed: timeout after 5 s"));
}
