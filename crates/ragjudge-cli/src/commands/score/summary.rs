//! What `ragjudge score` prints beside the table: the `--json` summary and `--qrels` coverage.

use super::ScoreArgs;
use anyhow::Result;
use ragjudge_eval::EvalReport;
use serde_json::{Map, Value};

/// Says on stderr how many records `--qrels` judged: a record whose question is missing from the
/// file, or has no relevant passage, has empty `qrels_*` columns, and a file whose ids match no
/// record would otherwise only show as empty columns.
pub(super) fn report_qrels_coverage(qrels: &std::path::Path, summary: &ragjudge_eval::summary::SummaryReport) {
    let judged: u64 = summary
        .systems
        .iter()
        .flat_map(|s| s.metrics.iter().filter(|m| m.metric == ragjudge_lexical::qrels::RECALL_COLUMN))
        .map(|m| m.n)
        .sum();
    let file = qrels.display();
    if judged == 0 && summary.records > 0 {
        eprintln!("warning: --qrels {file}: no record's question has a relevant passage there (do the ids match?)");
    } else {
        let left = summary.records - judged;
        eprintln!(
            "--qrels {file}: {judged} of {} records judged, {left} left empty (no relevant passage there)",
            summary.records
        );
    }
}

/// The summary as `--json` prints it: the per-system report, the output file, and consistency.
pub(super) fn json_summary(args: &ScoreArgs, report: &EvalReport) -> Result<Value> {
    let mut v = serde_json::to_value(&report.summary)?;
    let Some(obj) = v.as_object_mut() else { return Ok(v) };
    if let Some(out) = &args.output {
        obj.insert("output".into(), Value::from(out.display().to_string()));
    }
    let consistency = report.stages.iter().find_map(|s| s.consistency());
    if let Some((c, r)) = consistency.and_then(|c| c.report.as_ref().map(|r| (c, r))) {
        let mut m = Map::new();
        m.insert("systems".into(), serde_json::to_value(&r.systems)?);
        m.insert("skipped_groups".into(), Value::from(r.skipped_groups));
        m.insert("bertscore_model".into(), serde_json::to_value(&r.bertscore_model)?);
        if let Some(p) = &c.output {
            m.insert("output".into(), Value::from(p.display().to_string()));
        }
        obj.insert("consistency".into(), Value::Object(m));
    }
    Ok(v)
}
