//! Reports of ragjudge: the self-contained HTML report ([`html`]) of what the commands wrote
//! ([`inputs`], dispatched on their artifact kind by [`kinds`]), the chart catalogue it and
//! `ragjudge plot` share ([`charts`]), run summaries read back ([`summary`]), the gate that CI runs on them ([`gate`], with [`junit`] XML), and the
//! provenance every report file carries ([`provenance`]).
#![deny(missing_docs)]
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod charts;
pub mod figures;
pub mod gate;
pub mod html;
pub mod inputs;
pub mod junit;
pub mod kinds;
pub mod provenance;
pub mod summary;

pub use gate::{Check, CheckOutcome, Gate, GateError, GateReport, Statistic};
pub use provenance::Provenance;
pub use summary::{read_summary, Summary};
