//! `ragjudge report` and `ragjudge plot` end to end on a hand-made score file.

mod common;

use common::*;

fn scores(dir: &std::path::Path) -> String {
    // System a: 0.8 and 0.6 (mean 0.7); system b: 0.2 and 0.4 (mean 0.3).
    write(dir, "scores.csv", "id,system,rougeL_f\nq1,a,0.8\nq2,a,0.6\nq1,b,0.2\nq2,b,0.4\n")
}

#[test]
fn report_writes_one_html_file_and_names_what_it_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let s = scores(dir.path());
    let junk = write(dir.path(), "notes.txt", "hello");
    let out = dir.path().join("r.html").display().to_string();
    let o = ragjudge(&["report", &s, &junk, "--output", &out]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("skipped") && stderr(&o).contains("notes.txt"), "{}", stderr(&o));
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("On rougeL_f, a leads with a mean of 0.700"), "the summary sentence");
    assert!(html.contains("ahead of b at 0.300"));

    let o = ragjudge(&["report", &junk, "--output", &out]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("no input could be used"), "{}", stderr(&o));
}

#[test]
fn plot_lists_and_draws_one_chart() {
    let dir = tempfile::tempdir().unwrap();
    let s = scores(dir.path());
    let o = ragjudge(&["plot", &s, "--list"]);
    let listed = stdout(&o);
    assert!(listed.contains("mean-rougeL_f") && listed.contains("distribution-rougeL_f"), "{listed}");
    let o = ragjudge(&["plot", &s, "--list", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v[0]["name"], "mean-rougeL_f");
    let png = dir.path().join("m.png").display().to_string();
    let o = ragjudge(&["plot", &s, "--chart", "mean-rougeL_f", "--output", &png]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let o = ragjudge(&["plot", &s, "--chart", "nope", "--output", &png]);
    assert_one_line_error(&o, "no chart `nope` in these inputs");
}
