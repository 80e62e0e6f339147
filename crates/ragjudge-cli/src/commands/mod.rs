//! One module per subcommand.

pub mod agree;
pub mod ask;
pub mod baseline;
pub mod calibrate;
pub mod compare;
pub mod correlate;
pub mod embed;
pub mod matches;
pub mod models;
pub mod probes;
pub mod score;
pub mod tournament;
