//! Errors of the TREC RAG metrics: [`TrecError`] for a record or a file, [`ParseError`] for a
//! judge output that could not be read (recorded as an invalid item and retried, never scored).

use ragjudge_core::MetricError;
use ragjudge_models::Reason;

/// Why a TREC metric could not be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TrecError {
    /// Options out of range.
    #[error("{0}")]
    Options(String),
    /// A model call failed after its retries; the model's error is kept as the source.
    #[error(transparent)]
    Model(Reason),
    /// A model answered, but its output stayed unusable after the retries.
    #[error("{0}")]
    Output(String),
    /// The record has nothing to check (no passage text, an empty answer): the metric does not
    /// apply, which is not a failure.
    #[error("{0}")]
    NothingToCheck(String),
    /// The record cannot be evaluated (e.g. an empty query).
    #[error("{0}")]
    Record(String),
    /// Inputs out of step with each other (a model returned too few results, columns and
    /// values of different lengths, a duplicate run).
    #[error("{0}")]
    Contract(String),
    /// A file could not be written; the message names it.
    #[error(transparent)]
    Io(Reason),
}

impl From<TrecError> for MetricError {
    fn from(e: TrecError) -> Self {
        match e {
            TrecError::Model(m) => MetricError::Model(m),
            TrecError::Output(m) => MetricError::Output(m),
            TrecError::NothingToCheck(m) | TrecError::Record(m) => MetricError::Record(m),
            TrecError::Options(m) | TrecError::Contract(m) => MetricError::Contract(m),
            TrecError::Io(m) => MetricError::Contract(m.to_string()),
        }
    }
}

/// Why a judge output could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// A label outside the allowed ones.
    #[error("unknown label `{0}`")]
    UnknownLabel(String),
    /// No allowed label in the text.
    #[error("no label found")]
    NoLabel,
    /// Several different labels in free text.
    #[error("ambiguous: several labels ({0})")]
    Ambiguous(String),
    /// A list of labels of the wrong length.
    #[error("{found} labels for {wanted} items")]
    LabelCount {
        /// Labels found.
        found: usize,
        /// Items to label.
        wanted: usize,
    },
    /// No list of `n` labels.
    #[error("no list of {0} labels found")]
    NoLabelList(usize),
    /// A list that should not be empty is.
    #[error("empty {0} list")]
    EmptyList(&'static str),
    /// No list where one was expected.
    #[error("no list of {0} found")]
    NoList(&'static str),
    /// No UMBRELA grade.
    #[error("no grade 0-3 found")]
    NoGrade,
    /// Anything else, with its reason.
    #[error("{0}")]
    Other(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_becomes_the_matching_metric_failure() {
        let m = |e: TrecError| MetricError::from(e);
        assert_eq!(m(TrecError::Model("down".into())), MetricError::Model("down".into()));
        assert_eq!(m(TrecError::Output("no JSON".into())), MetricError::Output("no JSON".into()));
        assert_eq!(m(TrecError::Record("the query is empty".into())), MetricError::Record("the query is empty".into()));
        assert_eq!(m(TrecError::Io("f.csv: full".into())), MetricError::Contract("f.csv: full".into()));
        assert_eq!(ParseError::LabelCount { found: 1, wanted: 2 }.to_string(), "1 labels for 2 items");
    }

    #[test]
    fn a_judge_timeout_stays_a_timeout_through_the_layers() {
        use ragjudge_models::ModelError;
        use std::error::Error;
        let e = MetricError::from(TrecError::Model(Reason::caused("entailment judge", ModelError::Timeout(30))));
        assert_eq!(e.to_string(), "entailment judge: timed out after 30 s");
        let mut cause = e.source();
        let mut timeout = false;
        while let Some(c) = cause {
            timeout |= c.downcast_ref::<ModelError>() == Some(&ModelError::Timeout(30));
            cause = c.source();
        }
        assert!(timeout);
    }
}
