//! What `ragjudge score` prints beside the table: the `--json` summary and `--qrels` coverage.

use super::ScoreArgs;
use ragjudge_eval::conversations::SystemConversations;
use ragjudge_eval::ppi::PpiReport;
use ragjudge_eval::stages::ModelShift;
use ragjudge_eval::summary::SummaryReport;
use ragjudge_eval::EvalReport;
use ragjudge_trec::answer::consistency::SystemConsistency;
use serde::Serialize;

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

/// The summary as `--json` prints it: the per-system report, the output file, consistency, the
/// prediction-powered estimates and the shift check of `fused:MODEL`.
#[derive(Serialize)]
pub(super) struct ScoreJson<'a> {
    #[serde(flatten)]
    summary: &'a SummaryReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    consistency: Option<ConsistencyJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ppi: Option<&'a PpiReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fused_shift: Option<&'a [ModelShift]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    conversations: Option<ConversationsJson<'a>>,
}

/// Conversation summaries without their per-conversation rows (those are in their own file).
#[derive(Serialize)]
struct ConversationsJson<'a> {
    systems: &'a [SystemConversations],
    outside: u64,
    level: f64,
    bootstrap: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<String>,
}

/// Consistency across runs without its per-query rows (those are in their own file).
#[derive(Serialize)]
struct ConsistencyJson<'a> {
    systems: &'a [SystemConsistency],
    skipped_groups: usize,
    bertscore_model: &'a Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<String>,
}

impl<'a> ScoreJson<'a> {
    pub(super) fn new(args: &ScoreArgs, report: &'a EvalReport, ppi: Option<&'a PpiReport>) -> Self {
        let consistency = report.stages.iter().find_map(|s| s.consistency());
        let consistency = consistency.and_then(|c| {
            c.report.as_ref().map(|r| ConsistencyJson {
                systems: &r.systems,
                skipped_groups: r.skipped_groups,
                bertscore_model: &r.bertscore_model,
                output: c.output.as_ref().map(|p| p.display().to_string()),
            })
        });
        let output = args.output.as_ref().map(|p| p.display().to_string());
        let fused_shift = report.stages.iter().find_map(|s| s.fused_shift());
        let conversations = report.stages.iter().find_map(|s| s.conversations()).and_then(|c| {
            c.report.as_ref().map(|r| ConversationsJson {
                systems: &r.systems,
                outside: r.outside,
                level: r.level,
                bootstrap: r.bootstrap,
                output: c.output.as_ref().map(|p| p.display().to_string()),
            })
        });
        ScoreJson { summary: &report.summary, output, consistency, ppi, fused_shift, conversations }
    }
}
