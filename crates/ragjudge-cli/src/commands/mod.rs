//! One module per subcommand.

pub mod correlate;
pub mod score;
