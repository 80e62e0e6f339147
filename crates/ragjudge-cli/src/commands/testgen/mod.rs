//! `ragjudge testgen`: questions from a document collection, stratified by topic (HCAT section
//! 2), through the library's job (`ragjudge_testgen::job`). Writes the questions, the rejected
//! tasks with their reasons, the chunks, the topics, the summary and the topic map.

mod args;

use crate::backends;
use anyhow::{bail, Context as _, Result};
use ragjudge_eval::models::default_embedder_for;
use ragjudge_testgen::cluster::KMeansOptions;
use ragjudge_testgen::generate::GenOptions;
use ragjudge_testgen::select::SelectOptions;
use ragjudge_testgen::verify::VerifyOptions;
use ragjudge_testgen::{
    artifacts_dir, plan_collection, read_corpus, Allocation, ChunkOptions, ClusterMethod, QueryType, ReadOptions,
    SampleOptions, StrataOptions, TestgenSettings, TestgenSummary,
};
use serde::Serialize;
use std::collections::BTreeMap;

pub use args::{Allocate, Clusterer, TestgenArgs};

pub(crate) fn settings(args: &TestgenArgs) -> Result<TestgenSettings> {
    let types = args
        .types
        .iter()
        .map(|t| QueryType::parse(t).with_context(|| format!("--types: unknown query type `{t}`")))
        .collect::<Result<Vec<_>>>()?;
    let allocation = match (&args.weights, args.allocation) {
        (Some(path), _) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("{}: cannot read", path.display()))?;
            let w: BTreeMap<String, f64> = serde_json::from_str(&text)
                .with_context(|| format!("{}: expected a JSON object of topic -> weight", path.display()))?;
            Allocation::Weights(w)
        }
        (None, Allocate::Proportional) => Allocation::Proportional,
        (None, Allocate::Equal) => Allocation::Equal,
    };
    let method = match args.cluster {
        Clusterer::Kmeans => ClusterMethod::KMeans(KMeansOptions {
            k: args.topics,
            k_max: args.max_topics,
            seed: args.seed,
            ..KMeansOptions::default()
        }),
        Clusterer::Dbscan => ClusterMethod::Dbscan { eps: args.eps, min_points: args.min_points },
    };
    let settings = TestgenSettings {
        chunk: ChunkOptions { max_tokens: args.chunk_tokens, overlap_sentences: args.overlap },
        strata: StrataOptions { dims: args.dims, method, top_terms: 8 },
        sample: SampleOptions { total: args.sample, allocation, min_per_stratum: args.min_per_topic, seed: args.seed },
        types,
        per_chunk: args.per_chunk,
        generation: GenOptions { retries: args.retries, seed: args.seed, ..GenOptions::default() },
        selection: SelectOptions {
            per_topic: args.per_topic,
            verify: VerifyOptions {
                round_trip_k: args.round_trip_k,
                other_answer_chunks: args.other_answers,
                ..VerifyOptions::default()
            },
            ..SelectOptions::default()
        },
        batch: 32,
        follow_ups: args.follow_ups,
    };
    settings.validate()?;
    Ok(settings)
}

/// The `--json` summary: the run's summary and its wall time.
#[derive(Serialize)]
struct Printed<'a> {
    #[serde(flatten)]
    summary: &'a TestgenSummary,
    seconds: f64,
}

/// Runs `ragjudge testgen`: the library's plan and generation, printed.
pub fn run_testgen(args: &TestgenArgs) -> Result<()> {
    let settings = settings(args)?;
    let corpus = read_corpus(&args.corpus, ReadOptions { skip_invalid: args.skip_invalid })?;
    for s in &corpus.skipped {
        eprintln!("skipped {}: {}", s.source, s.reason);
    }
    let name = match &args.embedder {
        Some(name) => name.as_str(),
        None => {
            let name = default_embedder_for(corpus.documents.iter().map(|d| d.text.as_str()));
            eprintln!("embedder: {name} (the collection's language; --embedder names another)");
            name
        }
    };
    let embedder = backends::embedder(name, 32, args.judge.threads, args.precision)?;
    let started = std::time::Instant::now();
    let planned = plan_collection(corpus, &args.corpus, embedder.as_ref(), &settings)?;
    let artifacts = args.artifacts.clone().unwrap_or_else(|| artifacts_dir(&args.output));
    planned.write(&artifacts)?;
    let (plan, calls) = (&planned.plan, &planned.calls);
    eprintln!(
        "{} documents, {} chunks, {} topics (silhouette {}), {} sampled; {} generation tasks, ~{} prompt tokens; artifacts in {}",
        planned.corpus.documents.len(),
        plan.chunking.chunks.len(),
        plan.strata.topics.len(),
        plan.strata.clustering.silhouette.map_or("-".into(), |s| format!("{s:.3}")),
        plan.sample.indices.len(),
        calls.tasks,
        calls.generation_prompt_tokens,
        artifacts.display()
    );
    if args.dry_run {
        println!("{}", serde_json::to_string_pretty(&planned.dry_run())?);
        return Ok(());
    }
    let judge = backends::judge(&args.judge)?;
    let generated = planned.generate(judge.as_ref(), embedder.as_ref(), &settings)?;
    generated.write(&args.output, &artifacts)?;
    let (out, summary) = (&generated.output, &generated.summary);
    if args.json {
        let printed = Printed { summary, seconds: started.elapsed().as_secs_f64() };
        println!("{}", serde_json::to_string_pretty(&printed)?);
    } else {
        let text = |v: &BTreeMap<String, usize>| serde_json::to_string(v).unwrap_or_default();
        println!(
            "{} questions from {} tasks ({} generation attempts); {} rejected {}",
            out.questions.len(),
            out.plan.tasks.len(),
            out.attempts,
            out.rejected.len(),
            text(&summary.rejected_by_reason)
        );
        println!("per type: {}", text(&summary.per_type));
        println!("per topic: {}", text(&summary.per_topic));
        if !summary.topics_without_questions.is_empty() {
            println!("topics without a kept question: {}", summary.topics_without_questions.join(", "));
        }
        let q = &summary.quality;
        let checks: Vec<String> =
            q.checks.iter().map(|(name, c)| format!("{name} {}/{}/{}", c.passed, c.regenerated, c.dropped)).collect();
        println!("checks (passed/regenerated/dropped): {}", checks.join(", "));
        let p = q.answer_letters_p.map_or_else(|| "too few to test".to_string(), |p| format!("chi-square p {p:.3}"));
        println!(
            "multiple-choice answer letters: {} ({p}); yes/no answers: {}; near-duplicate replies: {:.1}% of those checked; multi-hop kept as factual: {}",
            text(&q.answer_letters),
            text(&q.yes_no_answers),
            100.0 * q.near_duplicate_rate,
            q.retyped
        );
    }
    if out.questions.is_empty() {
        bail!(
            "no question passed selection ({} rejected; reasons in {})",
            out.rejected.len(),
            artifacts.join("rejected.jsonl").display()
        );
    }
    Ok(())
}
