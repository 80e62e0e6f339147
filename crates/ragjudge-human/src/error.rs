//! Why a labelling job could not be done.

use ragjudge_artifacts::ArtifactError;
use ragjudge_core::InputError;
use std::path::PathBuf;

/// The error of every job in this crate; its message is one line naming the file, line and
/// field, or the option, at fault.
#[derive(Debug, thiserror::Error)]
pub enum HumanError {
    /// A run, score or label file could not be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// An artifact could not be read or written.
    #[error(transparent)]
    Artifact(#[from] ArtifactError),
    /// A label file holds labels of another view than asked for.
    #[error("{path}: holds {found} labels, not {wanted} (one label file per view)")]
    ViewMismatch {
        /// The label file.
        path: PathBuf,
        /// The view of its labels.
        found: &'static str,
        /// The view asked for.
        wanted: &'static str,
    },
    /// A label that does not fit its task (unknown task, wrong view, grade off the scale ...).
    #[error("label for {task}: {message}")]
    Label {
        /// The task, as `id / system [/ system_b]`.
        task: String,
        /// What is wrong.
        message: String,
    },
    /// An option out of range or inconsistent with the inputs.
    #[error("{0}")]
    Settings(String),
    /// Nothing to label: the runs give no task of the view asked for.
    #[error("no task to label: {0}")]
    NoTasks(String),
    /// A statistic could not be computed.
    #[error(transparent)]
    Stats(#[from] ragjudge_stats::StatsError),
}
