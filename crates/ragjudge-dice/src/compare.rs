//! One DICE match as one library call (DICE §3.3), shared by the command line and the Python
//! package: each question two runs share is judged in both orders, each verdict scored hard or
//! soft, the orders averaged, and the match score `S_A` is the mean of `s_A` over the
//! questions -> [`CompareReport`], written as `compare.json` (artifact kind `compare`) and
//! `questions.csv` in the run's output folder, with the run's traces and labels.

use crate::labels::PairLabels;
use crate::leaderboard::{records_digest, PpiSettings, RunFields};
use crate::ppi::PpiWinRate;
use crate::run::{DiceRun, DiceRunError, DryRunCounts, Failure, RunSettings};
use ragjudge_artifacts::{to_json_bytes, Artifact, Document, OutputSet, Provenance};
use ragjudge_core::Record;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// One question of a match, as `questions.csv` and the Python package give it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparedQuestion {
    /// Question id.
    pub id: String,
    /// DICE score of the first system.
    pub s_a: f64,
    /// DICE score of the second system, `1 - s_a`.
    pub s_b: f64,
    /// Whether both orders named the same winner.
    pub order_consistent: bool,
    /// The first system's answer category (`FullyCorrect`, ...), when the judge gave one.
    pub category_a: Option<String>,
    /// The second system's answer category.
    pub category_b: Option<String>,
}

/// `compare.json`: a match summed up from the first system's side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CompareReport {
    /// The first system.
    pub system_a: String,
    /// The second system.
    pub system_b: String,
    /// Questions scored.
    pub questions: usize,
    /// Judgements that failed.
    pub failed: usize,
    /// Each failed judgement with its reason.
    pub failures: Vec<Failure>,
    /// Mean DICE score of the first system.
    pub s_a: f64,
    /// Mean DICE score of the second system.
    pub s_b: f64,
    /// Questions won by the first system.
    pub wins_a: usize,
    /// Questions drawn.
    pub ties: usize,
    /// Questions won by the second system.
    pub wins_b: usize,
    /// Share of questions whose two orders named the same winner.
    pub order_consistency: f64,
    /// Per answer category (or `unparsed`): how often each system's answers fell in it.
    pub categories: BTreeMap<String, [usize; 2]>,
    /// Margin below which a verdict is scored softly.
    pub tau: f64,
    /// The prediction-powered win rate of the first system, with human labels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ppi_win_rate_a: Option<PpiWinRate>,
    /// The judge's fields.
    #[serde(flatten)]
    pub run: RunFields,
}

impl Artifact for CompareReport {
    const KIND: &'static str = "compare";
    const SCHEMA_VERSION: u32 = 1;

    /// Before artifacts were versioned: a match with both systems and `S_A`.
    fn is_legacy(value: &Value) -> bool {
        value.get("system_a").is_some() && value.get("s_a").is_some() && value.get("wins_a").is_some()
    }
}

/// What a match gave: the counts of a dry run, or the report with its per-question scores.
#[derive(Debug, Clone)]
pub enum CompareOutcome {
    /// A dry run: the calls it would make.
    DryRun(DryRunCounts),
    /// The report as written, and the questions.
    Played(Box<Document<CompareReport>>, Vec<ComparedQuestion>),
}

/// What decides a match's report besides its records and judge (its provenance's `settings`).
#[derive(Debug, Clone, Serialize)]
struct CompareSettings<'a> {
    run: &'a RunSettings,
    ppi_alpha: Option<f64>,
}

/// Plays `a` against `b` (joined on question id) through `run`; unless it is a dry run, writes
/// `compare.json`, `questions.csv` and the run's streams, all complete or none.
pub fn compare(
    run: &mut DiceRun,
    a: &[Record],
    b: &[Record],
    ppi: Option<&PpiSettings>,
) -> Result<CompareOutcome, DiceRunError> {
    if let Some(p) = ppi {
        if !(p.alpha > 0.0 && p.alpha < 1.0) {
            return Err(DiceRunError::PpiAlpha(p.alpha));
        }
    }
    let (name_a, name_b) = match (a.first(), b.first()) {
        (Some(x), Some(y)) => (x.system.clone(), y.system.clone()),
        _ => return Err(DiceRunError::NothingShared),
    };
    let by_id: HashMap<String, &Record> = b.iter().map(|r| (r.id.clone(), r)).collect();
    let played = run.play(a, &by_id)?;
    if let Some(counts) = run.dry_run_counts(played.judge_calls) {
        return Ok(CompareOutcome::DryRun(counts));
    }
    run.ensure_judged()?;
    let summary = played.summary().ok_or(DiceRunError::NothingShared)?;
    let questions: Vec<ComparedQuestion> = played
        .rows
        .iter()
        .map(|r| ComparedQuestion {
            id: r.id.clone(),
            s_a: r.s_a,
            s_b: 1.0 - r.s_a,
            order_consistent: r.consistent,
            category_a: r.category_a.map(|c| format!("{c:?}")),
            category_b: r.category_b.map(|c| format!("{c:?}")),
        })
        .collect();
    let ppi_win_rate_a = match ppi {
        Some(p) => {
            let labels = PairLabels::read(&p.labels)?;
            let scores = played.rows.iter().map(|r| (r.id.as_str(), r.s_a));
            let estimate = PpiWinRate::estimate(&labels, &p.labels, scores, (&name_a, &name_b), p.alpha)
                .map_err(DiceRunError::TooFewLabels)?;
            Some(estimate)
        }
        None => None,
    };
    let trust = run.trust();
    let report = CompareReport {
        system_a: name_a,
        system_b: name_b,
        questions: played.rows.len(),
        failed: played.failures.len(),
        failures: played.failures.clone(),
        s_a: summary.s_a,
        s_b: 1.0 - summary.s_a,
        wins_a: summary.wins_a,
        ties: summary.ties,
        wins_b: summary.wins_b,
        order_consistency: summary.order_consistency,
        categories: summary.categories,
        tau: run.run_settings().tau,
        ppi_win_rate_a,
        run: RunFields::of(run, &trust),
    };
    let mut provenance = run.provenance();
    provenance.inputs.push(records_digest("records of A", a)?);
    provenance.inputs.push(records_digest("records of B", b)?);
    if let Some(p) = ppi {
        provenance.add_inputs(&[&p.labels]).map_err(|e| DiceRunError::io(&p.labels, e))?;
    }
    let settings = CompareSettings { run: run.run_settings(), ppi_alpha: ppi.map(|p| p.alpha) };
    provenance.settings = serde_json::to_value(settings).map_err(|e| DiceRunError::io(Path::new(""), e))?;
    report.write(run, &provenance, &questions)?;
    let doc = Document {
        kind: CompareReport::KIND.to_string(),
        schema_version: CompareReport::SCHEMA_VERSION,
        provenance,
        body: report,
    };
    Ok(CompareOutcome::Played(Box::new(doc), questions))
}

impl CompareReport {
    /// Writes `compare.json` and `questions.csv` with the run's streams, all complete or none.
    fn write(
        &self,
        run: &mut DiceRun,
        provenance: &Provenance,
        questions: &[ComparedQuestion],
    ) -> Result<(), DiceRunError> {
        let dir = run.out_dir().to_path_buf();
        let (json_path, csv_path) = (dir.join("compare.json"), dir.join("questions.csv"));
        let json = to_json_bytes(provenance, self).map_err(|e| DiceRunError::io(&json_path, e))?;
        let csv = questions_csv(questions).map_err(|e| DiceRunError::io(&csv_path, e))?;
        let mut set = OutputSet::new();
        set.push_bytes(&json_path, &json).map_err(|e| DiceRunError::io(&json_path, e))?;
        set.push_bytes(&csv_path, &csv).map_err(|e| DiceRunError::io(&csv_path, e))?;
        run.commit_with_streams(set)
    }

    /// Two lines: the match score and the counts.
    pub fn render(&self, out_dir: &Path) -> String {
        let mut out = format!(
            "{} vs {}: S_A = {:.4}, S_B = {:.4} over {} questions\n",
            self.system_a, self.system_b, self.s_a, self.s_b, self.questions
        );
        out += &format!(
            "wins {} / ties {} / losses {}; order consistency {:.0}%; {} failed; details in {}\n",
            self.wins_a,
            self.ties,
            self.wins_b,
            100.0 * self.order_consistency,
            self.failed,
            out_dir.display()
        );
        if let Some(p) = &self.ppi_win_rate_a {
            out += &format!("{}\n", p.render());
        }
        out
    }
}

/// `questions.csv`: one row per question.
fn questions_csv(questions: &[ComparedQuestion]) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["id", "s_a", "s_b", "order_consistent", "category_a", "category_b"])?;
    for q in questions {
        w.write_record([
            q.id.clone(),
            q.s_a.to_string(),
            q.s_b.to_string(),
            q.order_consistent.to_string(),
            q.category_a.clone().unwrap_or_default(),
            q.category_b.clone().unwrap_or_default(),
        ])?;
    }
    w.into_inner().map_err(|e| csv::Error::from(e.into_error()))
}
