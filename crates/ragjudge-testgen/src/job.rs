//! Test generation as one job shared by every face (HCAT §2): [`plan_collection`] chunks,
//! embeds, stratifies and samples a collection without calling a judge ([`Planned`]: the plan,
//! its call estimate and `topics.json`, artifact kind `testgen-topics`); [`Planned::generate`]
//! asks the judge for the questions and selects them ([`Generated`], with `summary.json`,
//! artifact kind `testgen-summary`). Both write their files on request, atomically.

use std::io::Write;
use std::path::{Path, PathBuf};

use ragjudge_artifacts::{to_json_bytes, write_atomic, AtomicFile, Provenance};
use ragjudge_models::{Embedder, Judge};
use serde::Serialize;

use crate::corpus::Corpus;
use crate::error::TestgenError;
use crate::pipeline::{
    estimate, plan, run, CallEstimate, Plan, TestgenOutput, TestgenSettings, TestgenSummary, TopicRow, TopicsDocument,
};
use crate::strata::topic_map;

/// The folder of a run's side files by default: `OUTPUT_STEM.testgen` beside the questions.
pub fn artifacts_dir(output: &Path) -> PathBuf {
    let stem = output.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "questions".into());
    output.with_file_name(format!("{stem}.testgen"))
}

/// Writes one JSON object per line to `path`, atomically.
pub fn write_jsonl<T: Serialize>(path: &Path, rows: impl IntoIterator<Item = T>) -> Result<(), TestgenError> {
    let mut w = AtomicFile::create(path)?;
    for r in rows {
        serde_json::to_writer(&mut w, &r)
            .map_err(std::io::Error::from)
            .and_then(|()| w.write_all(b"\n"))
            .map_err(|source| TestgenError::Io { path: path.into(), source })?;
    }
    Ok(w.commit()?)
}

/// What a dry run prints: the calls a run would make and the topics.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DryRunSummary {
    /// Always true.
    pub dry_run: bool,
    /// The calls a run would make.
    pub calls: CallEstimate,
    /// The topics.
    pub topics: Vec<TopicRow>,
}

/// A collection planned: nothing generated yet, no judge called.
#[derive(Debug, Clone)]
pub struct Planned {
    /// The collection read.
    pub corpus: Corpus,
    /// The plan.
    pub plan: Plan,
    /// The calls it will make.
    pub calls: CallEstimate,
    /// `topics.json`.
    pub topics: TopicsDocument,
    /// The provenance of its files: the collection (hashed), the embedder and the settings.
    pub provenance: Provenance,
}

/// Plans a run on `corpus`, read from `paths` (files or folders, hashed into the provenance).
pub fn plan_collection(
    corpus: Corpus,
    paths: &[PathBuf],
    embedder: &dyn Embedder,
    settings: &TestgenSettings,
) -> Result<Planned, TestgenError> {
    let plan = plan(&corpus, embedder, settings)?;
    let calls = estimate(&plan, settings);
    let topics = plan.topics_document(&corpus, &calls);
    let mut provenance = Provenance::version_only();
    provenance.add_inputs(paths)?;
    provenance.add_model("embedder", &embedder.identity());
    provenance.settings = serde_json::to_value(settings).map_err(TestgenError::Record)?;
    Ok(Planned { corpus, plan, calls, topics, provenance })
}

impl Planned {
    /// `topics.json` as its artifact document.
    pub fn topics_json(&self) -> Result<Vec<u8>, TestgenError> {
        to_json_bytes(&self.provenance, &self.topics).map_err(TestgenError::Record)
    }

    /// What a dry run prints.
    pub fn dry_run(&self) -> DryRunSummary {
        DryRunSummary { dry_run: true, calls: self.calls.clone(), topics: self.topics.topics.clone() }
    }

    /// Writes `topics.json`, `chunks.jsonl` and the topic map (`topic-map.svg`, `.png`) to `dir`,
    /// created if missing.
    pub fn write(&self, dir: &Path) -> Result<(), TestgenError> {
        std::fs::create_dir_all(dir).map_err(|source| TestgenError::Io { path: dir.into(), source })?;
        write_atomic(&dir.join("topics.json"), &self.topics_json()?)?;
        write_jsonl(&dir.join("chunks.jsonl"), self.plan.chunk_rows())?;
        let map = topic_map(&self.plan.strata, &self.plan.sample.indices);
        let size = map.suggested_size();
        ragjudge_charts::write_chart(&map, &dir.join("topic-map.svg"), size)?;
        ragjudge_charts::write_chart(&map, &dir.join("topic-map.png"), size)?;
        Ok(())
    }

    /// Generates and selects the questions of the plan.
    pub fn generate(
        self,
        judge: &dyn Judge,
        embedder: &dyn Embedder,
        settings: &TestgenSettings,
    ) -> Result<Generated, TestgenError> {
        let mut provenance = self.provenance;
        provenance.add_model("judge", &judge.identity());
        let output = run(self.plan, judge, embedder, settings)?;
        let summary = output.summary();
        Ok(Generated { output, summary, provenance })
    }
}

/// The questions of a run, those left out, and its summary.
#[derive(Debug, Clone)]
pub struct Generated {
    /// Everything the run produced.
    pub output: TestgenOutput,
    /// `summary.json`.
    pub summary: TestgenSummary,
    /// The provenance of its files.
    pub provenance: Provenance,
}

impl Generated {
    /// `summary.json` as its artifact document.
    pub fn summary_json(&self) -> Result<Vec<u8>, TestgenError> {
        to_json_bytes(&self.provenance, &self.summary).map_err(TestgenError::Record)
    }

    /// Writes the questions to `questions` (JSONL records), and `rejected.jsonl` and
    /// `summary.json` to `dir`.
    pub fn write(&self, questions: &Path, dir: &Path) -> Result<(), TestgenError> {
        write_jsonl(questions, self.output.questions.iter().map(|q| &q.record))?;
        write_jsonl(&dir.join("rejected.jsonl"), &self.output.rejected)?;
        write_atomic(&dir.join("summary.json"), &self.summary_json()?)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{CheckCounts, QualityReport};
    use ragjudge_artifacts::{read_artifact, write_artifact, Artifact};
    use std::collections::BTreeMap;

    #[test]
    fn side_files_go_beside_the_questions() {
        assert_eq!(artifacts_dir(Path::new("out/q.jsonl")), PathBuf::from("out/q.testgen"));
        assert_eq!(artifacts_dir(Path::new("q")), PathBuf::from("q.testgen"));
    }

    #[test]
    fn jsonl_rows_are_one_object_per_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows.jsonl");
        write_jsonl(&path, [BTreeMap::from([("a", 1)]), BTreeMap::from([("a", 2)])]).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"a\":1}\n{\"a\":2}\n");
    }

    #[test]
    fn a_summary_round_trips_as_its_artifact() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("summary.json");
        let summary = TestgenSummary {
            questions: 2,
            tasks: 3,
            attempts: 4,
            rejected: 1,
            rejected_by_reason: BTreeMap::from([("not grounded".to_string(), 1)]),
            per_type: BTreeMap::from([("factual".to_string(), 2)]),
            per_topic: BTreeMap::from([("t0".to_string(), 2)]),
            topics_without_questions: vec!["t1".into()],
            quality: QualityReport {
                checks: BTreeMap::from([("format".to_string(), CheckCounts { passed: 2, regenerated: 1, dropped: 0 })]),
                answer_letters_p: Some(0.5),
                ..QualityReport::default()
            },
        };
        write_artifact(&path, &Provenance::version_only(), &summary).unwrap();
        let doc = read_artifact::<TestgenSummary>(&path).unwrap();
        assert_eq!((doc.kind.as_str(), doc.body), (TestgenSummary::KIND, summary));
    }
}
