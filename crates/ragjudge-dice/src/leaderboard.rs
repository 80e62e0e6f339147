//! A DICE tournament as one library call (DICE §3.3), shared by the command line and the Python
//! package: records grouped by system -> matches played through a [`DiceRun`] -> Elo and
//! Bradley-Terry standings, the length-controlled refit, prediction-powered win rates from human
//! labels and the judge's trust fields -> [`LeaderboardReport`], written as `leaderboard.json`
//! (artifact kind `leaderboard`) and `leaderboard.csv` in the run's output folder.

use crate::calibration::LabelPrior;
use crate::labels::PairLabels;
use crate::length_control::{length_control, LengthControl};
use crate::ppi::PpiWinRates;
use crate::run::RunSettings;
use crate::run::{index_by_id, DiceRun, DiceRunError, DryRunCounts, Failure};
use crate::tournament::{run as run_tournament, PlayedMatch, RankBy, Standing, TournamentConfig};
use crate::trust::TrustReport;
use ragjudge_artifacts::{to_json_bytes, Artifact, Document, InputFile, OutputSet, Provenance};
use ragjudge_core::Record;
use ragjudge_models::Usage;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The systems of a tournament with their records, systems in order of first appearance.
#[derive(Debug, Clone)]
pub struct Tournament {
    order: Vec<String>,
    by_system: HashMap<String, Vec<Record>>,
}

/// Human pairwise labels for prediction-powered win rates.
#[derive(Debug, Clone)]
pub struct PpiSettings {
    /// The label file (`{"id", "system_a", "system_b", "label"}` lines).
    pub labels: PathBuf,
    /// Error level of the intervals, in (0, 1).
    pub alpha: f64,
}

/// What a tournament gave: the counts of a dry run, or the leaderboard.
#[derive(Debug, Clone)]
pub enum TournamentOutcome {
    /// `--dry-run`: the calls it would make.
    DryRun(DryRunCounts),
    /// The leaderboard with its provenance, as written to the output folder.
    Played(Box<Document<LeaderboardReport>>),
}

/// What decides a tournament's leaderboard besides its records and judge (its provenance's
/// `settings`).
#[derive(Debug, Clone, Serialize)]
struct TournamentSettings<'a> {
    run: &'a RunSettings,
    tournament: &'a TournamentConfig,
    ppi_alpha: Option<f64>,
}

/// The judge's fields of every DICE report: who judged, how, at what cost, how trustworthy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunFields {
    /// The judge's identity.
    pub judge: String,
    /// The judging protocol.
    pub protocol: String,
    /// Calls and tokens.
    pub usage: Usage,
    /// The label prior divided out (`--debias`).
    pub label_prior: Option<LabelPrior>,
    /// How far the verdicts can be trusted.
    pub trust: TrustReport,
}

impl RunFields {
    /// The fields of `run`, with its trust report.
    pub fn of(run: &DiceRun, trust: &TrustReport) -> Self {
        RunFields {
            judge: run.judge().identity(),
            protocol: run.protocol().name().to_string(),
            usage: run.judge().usage(),
            label_prior: run.prior().cloned(),
            trust: trust.clone(),
        }
    }
}

/// `leaderboard.json`: the standings, every match, and how far they can be trusted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LeaderboardReport {
    /// Standings, best first.
    pub systems: Vec<Standing>,
    /// The ranking key: `bt` or `elo`.
    pub rank_by: String,
    /// Judge calls made.
    pub judge_calls: usize,
    /// Judge calls a round robin would have needed.
    pub round_robin_calls: usize,
    /// Judgements that failed.
    pub failed: usize,
    /// Each failed judgement with its reason.
    pub failures: Vec<Failure>,
    /// Matches in play order.
    pub matches: Vec<PlayedMatch>,
    /// Bradley-Terry refitted with and without a length term (absent in files of older versions).
    #[serde(default)]
    pub length_control: Option<LengthControl>,
    /// Prediction-powered win rates, with `--ppi-labels`.
    #[serde(default)]
    pub ppi: Option<PpiWinRates>,
    /// The judge's fields.
    #[serde(flatten)]
    pub run: RunFields,
}

impl Artifact for LeaderboardReport {
    const KIND: &'static str = "leaderboard";
    const SCHEMA_VERSION: u32 = 1;

    /// Before artifacts were versioned: standings with Bradley-Terry strengths, and matches.
    fn is_legacy(value: &Value) -> bool {
        value.get("systems").is_some() && value.get("matches").is_some() && value.get("rank_by").is_some()
    }
}

/// The digest of `records` as JSON lines, named `name` in a provenance: what a job read, the same
/// whether the records came from a file or from memory.
pub fn records_digest(name: &str, records: &[Record]) -> Result<InputFile, DiceRunError> {
    let mut bytes = Vec::new();
    for r in records {
        serde_json::to_writer(&mut bytes, r).map_err(|e| DiceRunError::io(Path::new(name), e))?;
        bytes.push(b'\n');
    }
    Ok(InputFile::of_bytes(name, &bytes))
}

impl Tournament {
    /// Groups `records` by system; fewer than two systems is an error.
    pub fn from_records(records: impl IntoIterator<Item = Record>) -> Result<Self, DiceRunError> {
        let mut order: Vec<String> = Vec::new();
        let mut by_system: HashMap<String, Vec<Record>> = HashMap::new();
        for r in records {
            if !by_system.contains_key(&r.system) {
                order.push(r.system.clone());
            }
            by_system.entry(r.system.clone()).or_default().push(r);
        }
        if order.len() < 2 {
            return Err(DiceRunError::TooFewSystems { found: order.len() });
        }
        Ok(Tournament { order, by_system })
    }

    /// The systems, in order of first appearance.
    pub fn systems(&self) -> &[String] {
        &self.order
    }

    /// The provenance of this tournament's leaderboard: the records of each system (hashed), the
    /// judge, the prompts and the settings; the same whichever face plays it.
    pub fn provenance(
        &self,
        run: &DiceRun,
        config: &TournamentConfig,
        ppi: Option<&PpiSettings>,
    ) -> Result<Provenance, DiceRunError> {
        let mut p = run.provenance();
        for system in &self.order {
            p.inputs.push(records_digest(&format!("records of {system}"), &self.by_system[system])?);
        }
        if let Some(s) = ppi {
            p.add_inputs(&[&s.labels]).map_err(|e| DiceRunError::io(&s.labels, e))?;
        }
        let settings =
            TournamentSettings { run: run.run_settings(), tournament: config, ppi_alpha: ppi.map(|s| s.alpha) };
        p.settings = serde_json::to_value(settings).map_err(|e| DiceRunError::io(Path::new(""), e))?;
        Ok(p)
    }

    /// Plays the tournament through `run`; unless it is a dry run, writes `leaderboard.json`
    /// and `leaderboard.csv` to the run's output folder, both complete or neither.
    pub fn play(
        &self,
        run: &mut DiceRun,
        config: &TournamentConfig,
        ppi: Option<&PpiSettings>,
    ) -> Result<TournamentOutcome, DiceRunError> {
        if let Some(p) = ppi {
            if !(p.alpha > 0.0 && p.alpha < 1.0) {
                return Err(DiceRunError::PpiAlpha(p.alpha));
            }
        }
        let index = index_by_id(self.by_system.iter().map(|(s, recs)| (s.as_str(), recs)));
        let by_system = &self.by_system;
        let board =
            run_tournament(&self.order, config, |a, b| run.play(&by_system[a], &index[b]).map(|p| p.match_result()))?;
        if let Some(counts) = run.dry_run_counts(board.judge_calls) {
            return Ok(TournamentOutcome::DryRun(counts));
        }
        run.ensure_judged()?;
        let trust = run.trust();
        // Answer lengths (characters) by system and question, for the length-controlled refit.
        let lengths: HashMap<(usize, &str), f64> = self
            .order
            .iter()
            .enumerate()
            .flat_map(|(i, s)| by_system[s].iter().map(move |r| ((i, r.id.as_str()), r.answer.chars().count() as f64)))
            .collect();
        let lc = length_control(&self.order, &board.outcomes, |i, q| lengths.get(&(i, q)).copied(), config.bt.prior);
        let ppi_rates = match ppi {
            Some(p) => {
                let labels = PairLabels::read(&p.labels)?;
                Some(PpiWinRates::of_outcomes(&labels, &p.labels, &self.order, &board.outcomes, p.alpha))
            }
            None => None,
        };
        let failures = run.failures().to_vec();
        let report = LeaderboardReport {
            systems: board.systems,
            rank_by: match config.rank_by {
                RankBy::Elo => "elo",
                RankBy::BradleyTerry => "bt",
            }
            .to_string(),
            judge_calls: board.judge_calls,
            round_robin_calls: board.round_robin_calls,
            failed: failures.len(),
            failures,
            matches: board.matches,
            length_control: Some(lc),
            ppi: ppi_rates,
            run: RunFields::of(run, &trust),
        };
        let provenance = self.provenance(run, config, ppi)?;
        report.write(run, &provenance)?;
        Ok(TournamentOutcome::Played(Box::new(Document {
            kind: LeaderboardReport::KIND.to_string(),
            schema_version: LeaderboardReport::SCHEMA_VERSION,
            provenance,
            body: report,
        })))
    }
}

impl LeaderboardReport {
    /// Writes `leaderboard.json` and `leaderboard.csv` with the run's streams to the run's output
    /// folder, all complete or none.
    pub fn write(&self, run: &mut DiceRun, provenance: &Provenance) -> Result<(), DiceRunError> {
        let dir = run.out_dir().to_path_buf();
        let (json_path, csv_path) = (dir.join("leaderboard.json"), dir.join("leaderboard.csv"));
        let json = to_json_bytes(provenance, self).map_err(|e| DiceRunError::io(&json_path, e))?;
        let csv = self.csv().map_err(|e| DiceRunError::io(&csv_path, e))?;
        let mut set = OutputSet::new();
        set.push_bytes(&json_path, &json).map_err(|e| DiceRunError::io(&json_path, e))?;
        set.push_bytes(&csv_path, &csv).map_err(|e| DiceRunError::io(&csv_path, e))?;
        run.commit_with_streams(set)
    }

    /// `leaderboard.csv`: one row per system, best first.
    pub fn csv(&self) -> Result<Vec<u8>, csv::Error> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record([
            "rank",
            "system",
            "elo",
            "bt",
            "bt_ci_low",
            "bt_ci_high",
            "wins",
            "ties",
            "losses",
            "matches",
        ])?;
        for s in &self.systems {
            w.write_record([
                s.rank.to_string(),
                s.system.clone(),
                format!("{:.2}", s.elo),
                format!("{:.4}", s.bt),
                format!("{:.4}", s.bt_ci_low),
                format!("{:.4}", s.bt_ci_high),
                s.wins.to_string(),
                s.ties.to_string(),
                s.losses.to_string(),
                s.matches.to_string(),
            ])?;
        }
        w.into_inner().map_err(|e| csv::Error::from(e.into_error()))
    }

    /// The standings as a table, the call counts, the length control and the PPI lines.
    pub fn render(&self, out_dir: &Path) -> String {
        let mut out =
            format!("{:>4}  {:<16} {:>8} {:>8} {:>19}  {:>5}\n", "rank", "system", "elo", "bt", "bt 95% CI", "W-T-L");
        for s in &self.systems {
            out += &format!(
                "{:>4}  {:<16} {:>8.1} {:>8.3} {:>19}  {}-{}-{}\n",
                s.rank,
                s.system,
                s.elo,
                s.bt,
                format!("[{:.3}, {:.3}]", s.bt_ci_low, s.bt_ci_high),
                s.wins,
                s.ties,
                s.losses
            );
        }
        out += &format!(
            "{} judge calls (round robin: {}); {} failed judgements; details in {}\n",
            self.judge_calls,
            self.round_robin_calls,
            self.failed,
            out_dir.display()
        );
        if let Some(lc) = &self.length_control {
            out += &lc.render();
        }
        if let Some(p) = &self.ppi {
            for r in &p.pairs {
                out += &format!("{}\n", r.render());
            }
            for n in &p.notes {
                out += &format!("  {n}\n");
            }
        }
        out
    }
}
