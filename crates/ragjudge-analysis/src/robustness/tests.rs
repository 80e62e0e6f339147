use super::*;

fn rec(id: &str, values: &[Option<f64>], of: Option<&str>, kind: Option<&str>, severity: Option<&str>) -> ScoredRecord {
    ScoredRecord {
        id: id.into(),
        system: "s".into(),
        run: None,
        values: values.to_vec(),
        variant: VariantMeta {
            variant_of: of.map(Into::into),
            perturbation: kind.map(Into::into),
            severity: severity.map(Into::into),
        },
        query: None,
        answer: None,
    }
}

fn table(name: &str, columns: &[&str], rows: Vec<ScoredRecord>) -> ScoreTable {
    ScoreTable { name: name.into(), columns: columns.iter().map(|c| c.to_string()).collect(), rows }
}

/// Originals q1..q5 and their typo variants (severity 0.05), plus a variant whose original is
/// missing, a repeated variant and a row that is no variant.
fn fixture() -> (ScoreTable, ScoreTable) {
    let o = |id: &str, m: Option<f64>| rec(id, &[m], None, None, None);
    let originals = table(
        "orig.csv",
        &["m"],
        vec![o("q1", Some(1.0)), o("q2", Some(0.5)), o("q3", Some(0.75)), o("q4", Some(0.25)), o("q5", None)],
    );
    let v = |id: &str, of: &str, m: f64| rec(id, &[Some(m)], Some(of), Some("typo"), Some("0.05"));
    let variants = table(
        "var.csv",
        &["m"],
        vec![
            v("q1~typo", "q1", 0.5),
            v("q2~typo", "q2", 0.5),
            v("q3~typo", "q3", 0.25),
            v("q4~typo", "q4", 0.5),
            v("q5~typo", "q5", 0.3),
            v("q9~typo", "q9", 0.1),
            v("q1~typo", "q1", 0.0),
            rec("q1", &[Some(1.0)], None, None, None),
        ],
    );
    (originals, variants)
}

fn settings() -> RobustnessSettings {
    RobustnessSettings {
        metrics: vec!["m".into()],
        correct: Some(Correctness { column: "m".into(), threshold: 0.5 }),
        tolerance: 0.1,
        bootstrap: 500,
        ..RobustnessSettings::default()
    }
}

#[test]
fn deltas_worse_shares_and_flips_by_hand() {
    let (o, v) = fixture();
    let r = analyse(&o, &v, &settings()).unwrap();
    assert_eq!(r.deltas.len(), 1);
    let d = &r.deltas[0];
    assert_eq!((d.system.as_str(), d.perturbation.as_str(), d.severity.as_str()), ("s", "typo", "0.05"));
    // q5's original is empty: one pair left out for an empty cell, four pairs used.
    assert_eq!((d.n, d.empty), (4, 1));
    // By hand: originals (1 + 0.5 + 0.75 + 0.25) / 4 = 0.625; variants (0.5 + 0.5 + 0.25 + 0.5) / 4 = 0.4375.
    assert_eq!(d.original_mean, Some(0.625));
    assert_eq!(d.variant_mean, Some(0.4375));
    // Deltas -0.5, 0, -0.5, +0.25: mean -0.75 / 4 = -0.1875.
    let delta = d.delta.unwrap();
    assert!((delta + 0.1875).abs() < 1e-12, "{delta}");
    let (lo, hi) = (d.ci_low.unwrap(), d.ci_high.unwrap());
    assert!(lo <= delta && delta <= hi, "{lo} {delta} {hi}");
    // Resampled means of the four deltas lie within [min, max] = [-0.5, 0.25], and the interval is not a point.
    assert!(lo >= -0.5 && hi <= 0.25 && lo < hi, "{lo} {hi}");
    // Worse by more than 0.1: the two -0.5 deltas, 2 / 4.
    assert_eq!((d.worse, d.worse_share), (2, Some(0.5)));
    // Correct = m >= 0.5. Originals correct: q1, q2, q3; variants correct: q1, q2, q4.
    // Correct -> incorrect: q3; incorrect -> correct: q4. Rates 1 / 4 each.
    let f = d.flips.as_ref().unwrap();
    assert_eq!((f.n, f.original_correct, f.correct_to_incorrect, f.incorrect_to_correct), (4, 3, 1, 1));
    assert_eq!((f.rate, f.reverse_rate), (0.25, 0.25));
    assert_eq!(r.pairs, 5);
}

#[test]
fn variants_without_originals_are_named_not_dropped() {
    let (o, v) = fixture();
    let r = analyse(&o, &v, &settings()).unwrap();
    let ex: Vec<(&str, ExclusionReason)> = r.exclusions.iter().map(|e| (e.id.as_str(), e.reason)).collect();
    assert_eq!(
        ex,
        [
            ("q9~typo", ExclusionReason::OriginalMissing),
            ("q1~typo", ExclusionReason::Repeated),
            ("q1", ExclusionReason::NotAVariant)
        ]
    );
    assert_eq!(r.exclusions[0].variant_of.as_deref(), Some("q9"));
}

#[test]
fn tolerance_is_strict() {
    let (o, v) = fixture();
    // No delta is below -0.5: none counts as worse at tolerance 0.5.
    let r = analyse(&o, &v, &RobustnessSettings { tolerance: 0.5, ..settings() }).unwrap();
    assert_eq!((r.deltas[0].worse, r.deltas[0].worse_share), (0, Some(0.0)));
}

#[test]
fn equal_deltas_give_a_degenerate_interval() {
    let o = |id: &str, m: f64| rec(id, &[Some(m)], None, None, None);
    let v = |id: &str, m: f64| rec(&format!("{id}~case"), &[Some(m)], Some(id), Some("case"), None);
    let originals = table("o", &["m"], vec![o("a", 0.0), o("b", 0.5), o("c", 0.25)]);
    let variants = table("v", &["m"], vec![v("a", 0.25), v("b", 0.75), v("c", 0.5)]);
    let r = analyse(&originals, &variants, &settings()).unwrap();
    let d = &r.deltas[0];
    // Every delta is 0.25, so is every resampled mean.
    assert_eq!((d.delta, d.ci_low, d.ci_high), (Some(0.25), Some(0.25), Some(0.25)));
    assert_eq!(d.severity, "");
    assert_eq!(d.worse, 0);
}

#[test]
fn the_order_of_the_input_does_not_change_the_interval() {
    let (o, v) = fixture();
    let a = analyse(&o, &v, &settings()).unwrap();
    let mut v2 = v.clone();
    // The same variants in another order (the repeated one stays after its first).
    v2.rows.swap(0, 3);
    v2.rows.swap(1, 2);
    let mut o2 = o.clone();
    o2.rows.reverse();
    let b = analyse(&o2, &v2, &settings()).unwrap();
    assert_eq!(a.deltas, b.deltas);
}

#[test]
fn the_worst_pairs_are_the_largest_drops() {
    let (o, v) = fixture();
    let r = analyse(&o, &v, &RobustnessSettings { worst: 1, ..settings() }).unwrap();
    // q1 and q3 both drop by 0.5; ties go by variant id.
    assert_eq!(r.worst.len(), 1);
    assert_eq!((r.worst[0].variant_id.as_str(), r.worst[0].original_id.as_str()), ("q1~typo", "q1"));
    assert_eq!((r.worst[0].original, r.worst[0].variant, r.worst[0].delta), (1.0, 0.5, -0.5));
    // Only drops are listed: q1, q3 (q2 is unchanged, q4 and q5 improve or have no original value).
    let r = analyse(&o, &v, &RobustnessSettings { worst: 10, ..settings() }).unwrap();
    let ids: Vec<&str> = r.worst.iter().map(|w| w.variant_id.as_str()).collect();
    assert_eq!(ids, ["q1~typo", "q3~typo"]);
}

#[test]
fn groups_are_split_by_severity_in_numeric_order() {
    let o = |id: &str| rec(id, &[Some(1.0)], None, None, None);
    let v =
        |id: &str, sev: &str, m: f64| rec(&format!("{id}~d{sev}"), &[Some(m)], Some(id), Some("distractor"), Some(sev));
    let originals = table("o", &["m"], vec![o("a"), o("b")]);
    let variants = table("v", &["m"], vec![v("a", "10", 0.0), v("a", "2", 0.5), v("b", "2", 1.0)]);
    let r = analyse(&originals, &variants, &settings()).unwrap();
    let got: Vec<(&str, usize, Option<f64>)> = r.deltas.iter().map(|d| (d.severity.as_str(), d.n, d.delta)).collect();
    // By hand: severity 2: deltas -0.5, 0 -> -0.25; severity 10: -1.
    assert_eq!(got, [("2", 2, Some(-0.25)), ("10", 1, Some(-1.0))]);
}

#[test]
fn out_of_distribution_abstention_and_hallucination_by_hand() {
    let cols = ["m", "no_answer", "hallucination"];
    let ood = |id: &str, vals: [Option<f64>; 3]| rec(id, &vals, None, Some("ood"), None);
    let originals = table("o", &["m"], vec![]);
    let variants = table(
        "v",
        &cols,
        vec![
            ood("o1", [Some(0.0), Some(1.0), Some(0.2)]),
            ood("o2", [Some(1.0), Some(0.0), Some(0.4)]),
            ood("o3", [None, Some(1.0), None]),
            ood("o4", [Some(0.5), None, Some(0.6)]),
        ],
    );
    let r = analyse(&originals, &variants, &settings()).unwrap();
    assert!(r.deltas.is_empty() && r.exclusions.is_empty());
    let x = &r.ood[0];
    assert_eq!(x.n, 4);
    // no_answer >= 0.5 on o1, o3 of the three with a value: 2 / 3.
    let a = x.abstention.as_ref().unwrap();
    assert_eq!((a.rule.column.as_str(), a.n, a.abstained), ("no_answer", 3, 2));
    assert!((a.rate.unwrap() - 2.0 / 3.0).abs() < 1e-12);
    // (0.2 + 0.4 + 0.6) / 3 = 0.4.
    let h = x.hallucination.as_ref().unwrap();
    assert_eq!(h.n, 3);
    assert!((h.mean.unwrap() - 0.4).abs() < 1e-12);
    // m: (0 + 1 + 0.5) / 3 = 0.5.
    assert_eq!(x.metrics[0].mean, Some(0.5));

    // An "answered" column counts values below the threshold: o2 only (0 < 0.5): 1 / 3.
    let s = RobustnessSettings {
        abstention: Some(Abstention { column: "no_answer".into(), threshold: 0.5, at_least: false }),
        ..settings()
    };
    let a = analyse(&originals, &variants, &s).unwrap().ood[0].abstention.clone().unwrap();
    assert_eq!((a.n, a.abstained), (3, 1));
}

#[test]
fn an_unknown_metric_names_the_file_and_column() {
    let (o, v) = fixture();
    let e = analyse(&o, &v, &RobustnessSettings { metrics: vec!["rouge".into()], ..settings() }).unwrap_err();
    assert_eq!(e.to_string(), "orig.csv: no numeric column `rouge`");
    let mut v2 = v.clone();
    v2.columns = vec!["other".into()];
    let e = analyse(&o, &v2, &settings()).unwrap_err();
    assert_eq!(e.to_string(), "var.csv: no numeric column `m`");
    assert!(RobustnessSettings { bootstrap: 0, ..settings() }.check().is_err());
    assert!(RobustnessSettings { level: 1.0, ..settings() }.check().is_err());
    assert!(RobustnessSettings { tolerance: -1.0, ..settings() }.check().is_err());
}

#[test]
fn files_have_no_nan_and_one_row_per_group() {
    let (o, v) = fixture();
    let r = analyse(&o, &v, &settings()).unwrap();
    let dir = std::env::temp_dir().join(format!("ragjudge-robustness-{}", std::process::id()));
    write_files(&dir, &r, &ragjudge_artifacts::Provenance::version_only()).unwrap();
    let deltas = std::fs::read_to_string(dir.join("deltas.csv")).unwrap();
    assert_eq!(deltas.lines().count(), 2, "{deltas}");
    assert!(deltas.lines().next().unwrap().starts_with("metric,system,perturbation,severity,n,empty,"));
    assert!(!deltas.contains("NaN"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("robustness.json")).unwrap()).unwrap();
    assert_eq!(json["exclusions"].as_array().unwrap().len(), 3);
    // The JSON reads back into the same report (for reports built from the files).
    let back: RobustnessReport = serde_json::from_value(json).unwrap();
    assert_eq!(back, r);
    assert!(dir.join("worst.csv").exists() && dir.join("ood.csv").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
