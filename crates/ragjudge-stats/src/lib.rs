//! Statistics for ragjudge: correlations with p-values, agreement, bootstrap CIs, descriptive statistics.
#![deny(missing_docs)]
