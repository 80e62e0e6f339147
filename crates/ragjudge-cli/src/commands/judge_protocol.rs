//! How a pair is judged: the options the DICE commands and `serve` share.

use clap::Args;
use ragjudge_dice::protocol::Protocol;
use ragjudge_dice::run::run_protocol;

/// The judging protocol and its switches.
#[derive(Debug, Clone, Args)]
pub struct ProtocolArgs {
    /// How each pair is judged: `dice` (DICE's three labels A / B / tie, both orders, stage I
    /// unless --no-reasoning), `two-label` (a forced choice, both orders averaged), `pointwise`
    /// (each answer graded 1-5 alone), `claims` (each answer checked claim by claim against its
    /// reference, CRAG-style utility; needs references), `ragchecker` (RAGChecker's claim checks
    /// against the whole reference combined with ROUGE-L, declining on CRAG's scale; needs
    /// references) or `ensemble` (two-label + pointwise).
    /// Pointwise protocols grade each answer once. See docs/judge-eval.md for how they compare.
    #[arg(long, default_value = "dice", value_parser = run_protocol)]
    pub protocol: Protocol,
    /// Sentences shown as the premise of each claim check (`--protocol claims`).
    #[arg(long, default_value_t = ragjudge_dice::claims::DEFAULT_PREMISE_SENTENCES)]
    pub premise_sentences: usize,
    /// Skip stage I (the judge's analysis): score the verdict directly.
    #[arg(long)]
    pub no_reasoning: bool,
    /// Judge each pair in one order only (no position-bias averaging).
    #[arg(long)]
    pub no_swap: bool,
}

impl ProtocolArgs {
    /// Refuses the switches of DICE's protocol with another protocol.
    pub fn check_dice_switches(&self) -> anyhow::Result<()> {
        if self.protocol != Protocol::Dice && (self.no_reasoning || self.no_swap) {
            anyhow::bail!(
                "--no-reasoning and --no-swap are options of the dice protocol, not `{}`",
                self.protocol.name()
            );
        }
        Ok(())
    }
}
