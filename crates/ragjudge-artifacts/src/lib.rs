//! The files ragjudge commands write for one another, in one place.
//!
//! - [`AtomicFile`]: every output is written to a temporary file in its destination's folder and
//!   renamed over the destination only when complete, under an advisory lock that turns a second
//!   writer into a clear error; the previous output stays intact until then.
//! - [`OutputSet`]: a main file and its sidecars (`.columns.json`, `.shard.json`, ...) replaced
//!   together, stale sidecars removed.
//! - [`check_not_input`]: an output that is one of the inputs (by path or by inode) is refused.
//! - [`Artifact`], [`Provenance`]: JSON documents with `kind`, `schema_version` and provenance;
//!   readers dispatch on `kind` ([`peek_header`]) and refuse a newer schema with one line.
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

mod atomic;
mod document;
mod error;
mod guard;
mod lock;

pub use atomic::{abandon_all, create_parent_dirs, write_atomic, AtomicFile, OutputSet};
pub use document::{
    document_schema, peek_header, read_artifact, read_artifact_value, to_json_bytes, write_artifact, Artifact,
    Document, Header, InputFile, Provenance,
};
pub use error::ArtifactError;
pub use guard::{check_not_input, repeated_inputs};
pub use lock::OutputLock;
