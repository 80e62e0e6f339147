//! Where a report file came from: the ragjudge version, the command line or the settings of the
//! library call, the inputs with their digests, the models and prompts (one type for every
//! artifact, `ragjudge_artifacts::Provenance`).

pub use ragjudge_artifacts::Provenance;
