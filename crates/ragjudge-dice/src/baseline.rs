//! DICE's baseline mode (DICE §3.3): the system under test plays high, medium and low quality
//! baselines (a round robin among the four, so the baselines calibrate each other), and is
//! placed by Elo among them -> [`BaselineReport`], written as `baseline.json` (artifact kind
//! `baseline`) with the run's traces and labels; one library call for every face.

use crate::leaderboard::{records_digest, RunFields};
use crate::run::{index_by_id, DiceRun, DiceRunError, DryRunCounts, Failure, RunSettings};
use crate::tournament::{run as run_tournament, Format, Standing, TournamentConfig};
use ragjudge_artifacts::{to_json_bytes, Artifact, Document, OutputSet};
use ragjudge_core::Record;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// The baseline tiers, best first.
pub const TIERS: [&str; 3] = ["high", "medium", "low"];

/// Where an Elo rating falls among the tiers' ratings (given best tier first).
pub fn placement(target: f64, tiers: &[f64]) -> &'static str {
    match tiers.iter().take_while(|&&t| t > target).count() {
        0 => "above high",
        1 => "between high and medium",
        2 => "between medium and low",
        _ => "below low",
    }
}

/// Whether the judge ordered the tiers as they are meant (each at least as strong as the next).
pub fn tiers_in_order(tiers: &[f64]) -> bool {
    tiers.windows(2).all(|w| w[0] >= w[1])
}

/// The target's record against one tier, over questions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TierRecord {
    /// Questions the target won.
    pub wins: usize,
    /// Questions drawn.
    pub ties: usize,
    /// Questions the target lost.
    pub losses: usize,
}

impl TierRecord {
    /// Adds one question with the target's DICE score `s`.
    pub fn add(&mut self, s: f64) {
        if s > 0.5 {
            self.wins += 1;
        } else if s < 0.5 {
            self.losses += 1;
        } else {
            self.ties += 1;
        }
    }
}

/// The target against one tier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TierResult {
    /// `high`, `medium` or `low`.
    pub tier: String,
    /// The target's questions won, drawn and lost against it.
    #[serde(flatten)]
    pub record: TierRecord,
    /// The tier's Elo rating.
    pub elo: Option<f64>,
}

/// `baseline.json`: where the system under test falls among the baselines.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BaselineReport {
    /// The target's Elo rating.
    pub target_elo: Option<f64>,
    /// Where it falls (`above high`, `between high and medium`, ...).
    pub placement: String,
    /// Whether the judge ordered the baselines high > medium > low (else the placement is
    /// unreliable).
    #[serde(default = "yes")]
    pub tiers_in_order: bool,
    /// The target against each tier, best tier first.
    pub tiers: Vec<TierResult>,
    /// The round robin's standings.
    pub leaderboard: Vec<Standing>,
    /// Judgements that failed.
    pub failed: usize,
    /// Each failed judgement with its reason.
    pub failures: Vec<Failure>,
    /// The judge's fields.
    #[serde(flatten)]
    pub run: RunFields,
}

fn yes() -> bool {
    true
}

impl Artifact for BaselineReport {
    const KIND: &'static str = "baseline";
    const SCHEMA_VERSION: u32 = 1;

    /// Before artifacts were versioned: a placement among tiers.
    fn is_legacy(value: &Value) -> bool {
        value.get("placement").is_some() && value.get("tiers").is_some()
    }
}

/// The system under test and the three baselines' records.
#[derive(Debug, Clone)]
pub struct BaselineRuns {
    /// The system under test.
    pub target: Vec<Record>,
    /// High, medium and low quality baselines, in that order.
    pub tiers: [Vec<Record>; 3],
}

/// What a baseline run gave: the counts of a dry run, or the report as written.
#[derive(Debug, Clone)]
pub enum BaselineOutcome {
    /// A dry run: the calls it would make.
    DryRun(DryRunCounts),
    /// The report with its provenance.
    Played(Box<Document<BaselineReport>>),
}

/// The name the system under test plays under.
pub const TARGET: &str = "target";

impl BaselineRuns {
    /// Plays the round robin of the target and the tiers through `run` (every record renamed to
    /// its role: `target`, `high`, `medium`, `low`); unless it is a dry run, writes
    /// `baseline.json` with the run's streams, all complete or none.
    pub fn play(mut self, run: &mut DiceRun) -> Result<BaselineOutcome, DiceRunError> {
        let names: Vec<&str> = std::iter::once(TARGET).chain(TIERS).collect();
        for (name, records) in names.iter().zip(std::iter::once(&mut self.target).chain(self.tiers.iter_mut())) {
            for r in records.iter_mut() {
                r.system = name.to_string();
            }
        }
        let runs: HashMap<&str, &Vec<Record>> =
            names.iter().copied().zip(std::iter::once(&self.target).chain(self.tiers.iter())).collect();
        let index = index_by_id(runs.iter().map(|(s, recs)| (*s, *recs)));
        let systems: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let cfg = TournamentConfig { format: Format::RoundRobin, ..TournamentConfig::default() };
        let mut record: HashMap<String, TierRecord> = HashMap::new();
        let board = run_tournament(&systems, &cfg, |a, b| {
            let played = run.play(runs[a], &index[b])?;
            for r in &played.rows {
                // From the target's side: its score is s_a when it was A, else 1 - s_a.
                let (tier, s) = match (a == TARGET, b == TARGET) {
                    (true, _) => (b, r.s_a),
                    (_, true) => (a, 1.0 - r.s_a),
                    _ => continue,
                };
                record.entry(tier.to_string()).or_default().add(s);
            }
            Ok::<_, DiceRunError>(played.match_result())
        })?;
        if let Some(counts) = run.dry_run_counts(board.judge_calls) {
            return Ok(BaselineOutcome::DryRun(counts));
        }
        run.ensure_judged()?;
        let trust = run.trust();
        let elo = |name: &str| board.systems.iter().find(|s| s.system == name).map(|s| s.elo);
        let target_elo = elo(TARGET);
        let tier_elos: Vec<f64> = TIERS.iter().map(|t| elo(t).unwrap_or(f64::NAN)).collect();
        let failures = run.failures().to_vec();
        let report = BaselineReport {
            target_elo,
            placement: placement(target_elo.unwrap_or(f64::NAN), &tier_elos).to_string(),
            tiers_in_order: tiers_in_order(&tier_elos),
            tiers: TIERS
                .iter()
                .map(|t| TierResult {
                    tier: t.to_string(),
                    record: record.get(*t).copied().unwrap_or_default(),
                    elo: elo(t),
                })
                .collect(),
            leaderboard: board.systems,
            failed: failures.len(),
            failures,
            run: RunFields::of(run, &trust),
        };
        let mut provenance = run.provenance();
        for (name, records) in names.iter().zip(std::iter::once(&self.target).chain(self.tiers.iter())) {
            provenance.inputs.push(records_digest(&format!("records of {name}"), records)?);
        }
        provenance.settings = serde_json::to_value(BaselineSettings { run: run.run_settings() })
            .map_err(|e| DiceRunError::io(Path::new(""), e))?;
        let path = run.out_dir().join("baseline.json");
        let bytes = to_json_bytes(&provenance, &report).map_err(|e| DiceRunError::io(&path, e))?;
        let mut set = OutputSet::new();
        set.push_bytes(&path, &bytes).map_err(|e| DiceRunError::io(&path, e.detail()))?;
        run.commit_with_streams(set)?;
        Ok(BaselineOutcome::Played(Box::new(Document {
            kind: BaselineReport::KIND.to_string(),
            schema_version: BaselineReport::SCHEMA_VERSION,
            provenance,
            body: report,
        })))
    }
}

/// What decides a baseline report besides its records and judge.
#[derive(Debug, Clone, Serialize)]
struct BaselineSettings<'a> {
    run: &'a RunSettings,
}

impl BaselineReport {
    /// The target's Elo and placement, and its record against each tier.
    pub fn render(&self) -> String {
        let mut out = match self.target_elo {
            Some(e) => format!("target Elo {e:.1}: {}\n", self.placement),
            None => "no Elo for the target\n".to_string(),
        };
        for t in &self.tiers {
            out += &format!(
                "  vs {:<6} (Elo {:>7.1}): {} wins, {} ties, {} losses\n",
                t.tier,
                t.elo.unwrap_or(f64::NAN),
                t.record.wins,
                t.record.ties,
                t.record.losses
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_counts_the_tiers_above_the_target() {
        let tiers = [1100.0, 1000.0, 900.0];
        assert_eq!(placement(1150.0, &tiers), "above high");
        assert_eq!(placement(1050.0, &tiers), "between high and medium");
        // Equal to the medium tier: not below it, so still between high and medium.
        assert_eq!(placement(1000.0, &tiers), "between high and medium");
        assert_eq!(placement(950.0, &tiers), "between medium and low");
        assert_eq!(placement(800.0, &tiers), "below low");
        assert!(tiers_in_order(&tiers));
        assert!(!tiers_in_order(&[1000.0, 1100.0, 900.0]));
    }

    #[test]
    fn a_record_counts_wins_ties_and_losses() {
        let mut r = TierRecord::default();
        for s in [1.0, 0.5, 0.2, 0.75] {
            r.add(s);
        }
        assert_eq!(r, TierRecord { wins: 2, ties: 1, losses: 1 });
    }
}
