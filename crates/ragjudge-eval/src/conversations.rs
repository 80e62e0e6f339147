//! Conversation-level summaries: per-turn scores grouped by conversation (`Record::conversation`)
//! and system.
//!
//! The turns of one conversation are not independent (one system's bad start spoils its later
//! turns), so an interval that treats turns as separate draws is too narrow. Here every
//! conversation is one unit: each column gets
//! - the **mean over turns** with a cluster bootstrap interval: all turns of a conversation share
//!   one Poisson(1) weight per replicate (keyed by system and conversation, as the keyed online
//!   bootstrap of [`crate::summary`]), so replicates resample conversations, not turns; and
//! - the **mean over conversations** of each conversation's mean (every conversation counts once,
//!   however long), with the bootstrap interval of that mean;
//!
//! and one row per conversation keeps its turn count, failed turns, and each column's mean, least
//! value and the turn it was reached at.

use crate::summary::ColumnReport;
use ragjudge_core::stable_hash;
use ragjudge_stats::bootstrap::{PoissonBootstrapMean, PoissonWeights};
use ragjudge_stats::describe::Summary;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// One column of one conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConversationCell {
    /// Mean over the turns with a value; `None` when no turn has one.
    pub mean: Option<f64>,
    /// The least value.
    pub min: Option<f64>,
    /// The turn the least value was reached at (the first such turn).
    pub min_turn: Option<u64>,
}

/// One conversation of one system.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConversationRow {
    /// System name.
    pub system: String,
    /// Conversation id.
    pub conversation: String,
    /// Turns scored.
    pub turns: u64,
    /// Turns on which a metric failed.
    pub failed: u64,
    /// One cell per column, in column order.
    pub cells: Vec<ConversationCell>,
}

/// One system's conversations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemConversations {
    /// System name.
    pub system: String,
    /// Conversations.
    pub conversations: u64,
    /// Turns in them.
    pub turns: u64,
    /// Per column: the mean over turns, with a conversation-clustered interval (`n` counts turns).
    pub turn_means: Vec<ColumnReport>,
    /// Per column: the mean over conversations of their means (`n` counts conversations).
    pub conversation_means: Vec<ColumnReport>,
}

/// Every system's conversations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConversationReport {
    /// Value columns, in order.
    pub columns: Vec<String>,
    /// Per system, in order of first appearance.
    pub systems: Vec<SystemConversations>,
    /// Per conversation, grouped by system in order of first appearance, conversations in order
    /// of first appearance.
    pub rows: Vec<ConversationRow>,
    /// Turns that name no conversation (left out).
    pub outside: u64,
    /// Confidence level of the intervals.
    pub level: f64,
    /// Bootstrap replicates behind them.
    pub bootstrap: usize,
}

#[derive(Clone)]
struct Cell {
    sum: f64,
    n: u64,
    min: Option<(f64, u64)>,
}

struct Conversation {
    system: usize,
    name: String,
    turns: u64,
    failed: u64,
    cells: Vec<Cell>,
}

struct SystemAcc {
    name: String,
    turns: Vec<(Summary, PoissonBootstrapMean)>,
}

/// Accumulates scored turns into conversations.
pub struct ConversationSummarizer {
    columns: Vec<String>,
    systems: Vec<SystemAcc>,
    conversations: Vec<Conversation>,
    index: HashMap<(String, String), usize>,
    weights: PoissonWeights,
    replicates: usize,
    outside: u64,
}

impl ConversationSummarizer {
    /// A summarizer over `columns` with `replicates` bootstrap replicates seeded by `seed`.
    pub fn new(columns: Vec<String>, replicates: usize, seed: u64) -> Self {
        let replicates = replicates.max(1);
        Self {
            columns,
            systems: Vec::new(),
            conversations: Vec::new(),
            index: HashMap::new(),
            weights: PoissonWeights::new(replicates, seed),
            replicates,
            outside: 0,
        }
    }

    /// Adds one scored turn; `conversation: None` counts it as outside any conversation.
    pub fn add(&mut self, system: &str, conversation: Option<&str>, turn: u64, values: &[Option<f64>], failed: bool) {
        let Some(conversation) = conversation else {
            self.outside += 1;
            return;
        };
        let s = match self.systems.iter().position(|s| s.name == system) {
            Some(s) => s,
            None => {
                let turns = (0..self.columns.len())
                    .map(|_| (Summary::new(), PoissonBootstrapMean::new(self.replicates, 0)))
                    .collect();
                self.systems.push(SystemAcc { name: system.to_string(), turns });
                self.systems.len() - 1
            }
        };
        let key = (system.to_string(), conversation.to_string());
        let c = *self.index.entry(key).or_insert_with(|| {
            self.conversations.push(Conversation {
                system: s,
                name: conversation.to_string(),
                turns: 0,
                failed: 0,
                cells: vec![Cell { sum: 0.0, n: 0, min: None }; self.columns.len()],
            });
            self.conversations.len() - 1
        });
        let conv = &mut self.conversations[c];
        conv.turns += 1;
        conv.failed += u64::from(failed);
        let w = self.weights.draw_keyed(conversation_key(system, conversation));
        for ((cell, acc), v) in conv.cells.iter_mut().zip(&mut self.systems[s].turns).zip(values) {
            let Some(x) = v.filter(|x| x.is_finite()) else { continue };
            cell.sum += x;
            cell.n += 1;
            // The first turn at the least value: an equal value at a later turn does not move it.
            if cell.min.is_none_or(|(m, t)| x < m || (x == m && turn < t)) {
                cell.min = Some((x, turn));
            }
            acc.0.push(x);
            acc.1.push_weighted(x, w);
        }
    }

    /// The report at confidence `level`.
    pub fn report(&mut self, level: f64) -> ConversationReport {
        let mut systems = Vec::with_capacity(self.systems.len());
        for (s, acc) in self.systems.iter().enumerate() {
            let convs: Vec<&Conversation> = self.conversations.iter().filter(|c| c.system == s).collect();
            let mut conversation_means = Vec::with_capacity(self.columns.len());
            for (j, name) in self.columns.iter().enumerate() {
                let mut moments = Summary::new();
                let mut boot = PoissonBootstrapMean::new(self.replicates, 0);
                for c in convs.iter().filter(|c| c.cells[j].n > 0) {
                    let mean = c.cells[j].sum / c.cells[j].n as f64;
                    moments.push(mean);
                    boot.push_weighted(mean, self.weights.draw_keyed(conversation_key(&acc.name, &c.name)));
                }
                conversation_means.push(column_report(name, &moments, &boot, level));
            }
            let turn_means =
                self.columns.iter().zip(&acc.turns).map(|(name, (m, b))| column_report(name, m, b, level)).collect();
            systems.push(SystemConversations {
                system: acc.name.clone(),
                conversations: convs.len() as u64,
                turns: convs.iter().map(|c| c.turns).sum(),
                turn_means,
                conversation_means,
            });
        }
        let mut rows: Vec<ConversationRow> = self
            .conversations
            .iter()
            .map(|c| ConversationRow {
                system: self.systems[c.system].name.clone(),
                conversation: c.name.clone(),
                turns: c.turns,
                failed: c.failed,
                cells: c
                    .cells
                    .iter()
                    .map(|cell| ConversationCell {
                        mean: (cell.n > 0).then(|| cell.sum / cell.n as f64),
                        min: cell.min.map(|(m, _)| m),
                        min_turn: cell.min.map(|(_, t)| t),
                    })
                    .collect(),
            })
            .collect();
        // Grouped by system (stable: conversations keep their order within a system).
        let order: HashMap<&str, usize> = self.systems.iter().enumerate().map(|(i, s)| (s.name.as_str(), i)).collect();
        rows.sort_by_key(|r| order[r.system.as_str()]);
        ConversationReport {
            columns: self.columns.clone(),
            systems,
            rows,
            outside: self.outside,
            level,
            bootstrap: self.replicates,
        }
    }
}

/// The bootstrap key of a conversation: a stable hash of system and conversation id.
fn conversation_key(system: &str, conversation: &str) -> u64 {
    stable_hash(&[b"conversation", system.as_bytes(), conversation.as_bytes()])
}

fn column_report(name: &str, moments: &Summary, boot: &PoissonBootstrapMean, level: f64) -> ColumnReport {
    let ci = boot.ci(level);
    ColumnReport {
        metric: name.to_string(),
        n: moments.count(),
        mean: boot.mean(),
        std: moments.std_dev(),
        ci_low: ci.as_ref().map(|c| c.low),
        ci_high: ci.as_ref().map(|c| c.high),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(turns: &[(&str, Option<&str>, u64, Option<f64>)]) -> ConversationReport {
        let mut s = ConversationSummarizer::new(vec!["x".into()], 200, 7);
        for &(system, conv, turn, v) in turns {
            s.add(system, conv, turn, &[v], v.is_none());
        }
        s.report(0.9)
    }

    #[test]
    fn conversations_are_averaged_once_each_and_turns_over_all() {
        // A: c1 turns 1.0, 0.0, 0.5 (mean 0.5, least 0.0 at turn 2); c2 one turn 1.0.
        // Turn mean (1 + 0 + 0.5 + 1) / 4 = 0.625; conversation mean (0.5 + 1) / 2 = 0.75.
        let r = report(&[
            ("A", Some("c1"), 1, Some(1.0)),
            ("A", Some("c2"), 1, Some(1.0)),
            ("A", Some("c1"), 2, Some(0.0)),
            ("A", Some("c1"), 3, Some(0.5)),
            ("A", None, 1, Some(0.2)),
            ("B", Some("c1"), 1, None),
        ]);
        assert_eq!(r.outside, 1);
        let a = &r.systems[0];
        assert_eq!((a.conversations, a.turns), (2, 4));
        assert_eq!((a.turn_means[0].n, a.turn_means[0].mean), (4, Some(0.625)));
        assert_eq!((a.conversation_means[0].n, a.conversation_means[0].mean), (2, Some(0.75)));
        let c1 = &r.rows[0];
        assert_eq!((c1.conversation.as_str(), c1.turns, c1.failed), ("c1", 3, 0));
        assert_eq!(c1.cells[0], ConversationCell { mean: Some(0.5), min: Some(0.0), min_turn: Some(2) });
        // B's conversation has a failed turn and no value: counted, its cell empty.
        let b = r.rows.iter().find(|r| r.system == "B").unwrap();
        assert_eq!((b.turns, b.failed, b.cells[0].mean), (1, 1, None));
        assert_eq!(r.systems[1].conversation_means[0].n, 0);
    }

    #[test]
    fn the_turn_interval_resamples_whole_conversations() {
        // Two conversations of 50 turns each, one all 0, one all 1. Resampling turns would give
        // a narrow interval around 0.5; resampling the two conversations gives replicates that
        // are often all 0 or all 1 (each conversation is drawn as a block).
        let mut turns = Vec::new();
        for t in 1..=50 {
            turns.push(("A", Some("zero"), t, Some(0.0)));
            turns.push(("A", Some("one"), t, Some(1.0)));
        }
        let r = report(&turns);
        let m = &r.systems[0].turn_means[0];
        assert_eq!(m.mean, Some(0.5));
        assert_eq!((m.ci_low, m.ci_high), (Some(0.0), Some(1.0)));
    }
}
