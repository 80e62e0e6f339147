//! Counterfactual bias probes (HCAT §4: "counterfactual evaluation assesses whether
//! altering demographic-related terms (e.g., swapping "man" with "woman") results in consistent
//! responses"): [`generate`] writes variants of records with demographic terms swapped,
//! [`report`] compares the variants' scores and answers with the originals'; [`job`] runs either
//! as one call from files.

pub mod generate;
pub mod job;
pub mod report;
pub mod terms;

/// Meta key: the term group a variant probes (e.g. `gender`).
pub const META_GROUP: &str = "probe_group";
/// Meta key: the id of the original record.
pub const META_OF: &str = "probe_of";
/// Meta key: `original`, or the swap `from->to` (e.g. `male->female`).
pub const META_VARIANT: &str = "probe_variant";
/// Meta key: the version of the term list used.
pub const META_TERMS: &str = "probe_terms";
/// The [`META_VARIANT`] value of originals.
pub const ORIGINAL: &str = "original";
