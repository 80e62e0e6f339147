//! One module per subcommand.

pub mod agree;
pub mod annotate;
pub mod ask;
pub mod calibrate;
pub mod collect;
pub mod correlate;
pub mod dice;
pub mod embed;
pub mod fuse;
pub mod gate;
pub mod import;
pub mod judge_eval;
pub mod judge_protocol;
pub mod merge;
pub mod merge_caches;
pub mod models;
pub mod perturb;
pub mod probes;
pub mod report;
pub mod robustness;
pub mod score;
pub mod serve;
pub mod testgen;
pub mod validate;
pub mod weakness;
