//! Test-set generation from a document collection (HCAT, section 2): read the collection,
//! [`chunk`] it, embed the chunks, reduce them ([`reduce`]), cluster them into topic strata
//! ([`cluster`], [`strata`]) labelled by class-based TF-IDF ([`topics`]), draw a stratified
//! sample ([`sample`]) so that every topic of the collection is covered by construction, have
//! the judge model write questions of several types under a grammar ([`generate`], [`schema`]),
//! regenerate those that fail a check of their own ([`standalone`], [`verify`]: the round trip
//! to their source through [`bm25`] and embeddings, answerable, grounded, a reference that
//! answers, unanswerable against the whole collection) and select the set ([`select`]); a share
//! of the kept questions can get a follow-up, the second turn of a conversation ([`followup`]).
#![deny(missing_docs)]
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod bm25;
pub mod chunk;
pub mod cluster;
pub mod corpus;
pub mod error;
pub mod followup;
pub mod generate;
pub mod job;
pub mod lists;
pub mod pipeline;
pub mod reduce;
pub mod sample;
pub mod schema;
pub mod select;
pub mod standalone;
pub mod strata;
pub mod topics;
pub mod verify;

pub use chunk::{chunk_documents, Chunk, ChunkOptions, Chunking};
pub use corpus::{read_corpus, Corpus, Document, ReadOptions, Skip};
pub use error::TestgenError;
pub use generate::QueryType;
pub use job::{artifacts_dir, plan_collection, write_jsonl, DryRunSummary, Generated, Planned};
pub use pipeline::{
    estimate, plan, run, CallEstimate, ChunkRow, Plan, TestgenOutput, TestgenSettings, TestgenSummary, TopicRow,
    TopicsDocument,
};
pub use sample::{stratified_sample, Allocation, Sample, SampleOptions};
pub use strata::{build_strata, embed_chunks, topic_map, ClusterMethod, Strata, StrataOptions, Topic};
