//! Speed of the built-in RAG's BM25 retrieval (tantivy): indexing a corpus of N passages made
//! from the bundled example corpus, then the example questions searched for the best 20 until
//! 2,000 searches. Prints `passages index_ms searches search_ms`.
//!
//! `cargo run --release -p ragjudge-collect --example bm25_bench -- [N]` (default 20,000);
//! `bench/build/run.sh` runs it under the release and the shipped optimisation levels.

use std::time::Instant;

use ragjudge_collect::bm25::Bm25Index;

fn lines(path: &str) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).expect("a JSON line")).collect()
}

fn main() {
    let n: usize = std::env::args().nth(1).map_or(20_000, |a| a.parse().expect("N: a number"));
    let passages: Vec<String> = lines("examples/corpus/docs.jsonl")
        .iter()
        .flat_map(|d| d["passages"].as_array().cloned().unwrap_or_default())
        .filter_map(|p| p["text"].as_str().map(String::from))
        .collect();
    let queries: Vec<String> =
        lines("examples/questions.jsonl").iter().filter_map(|q| q["query"].as_str().map(String::from)).collect();
    assert!(!passages.is_empty() && !queries.is_empty(), "run from the repository root");
    // Each passage joined with another one's text and a term of its own, so no two are alike.
    let p = passages.len();
    let corpus: Vec<String> =
        (0..n).map(|i| format!("{} {} item{i}", passages[i % p], passages[(i * 7 + i / p) % p])).collect();
    let start = Instant::now();
    let index = Bm25Index::build(corpus.iter().map(String::as_str)).expect("index");
    let index_ms = start.elapsed().as_secs_f64() * 1e3;
    let searches = 2_000;
    let start = Instant::now();
    let mut hits = 0usize;
    for i in 0..searches {
        hits += index.search(&queries[i % queries.len()], 20).expect("search").len();
    }
    let search_ms = start.elapsed().as_secs_f64() * 1e3;
    assert!(hits > 0, "no search found anything");
    println!("{n} {index_ms:.1} {searches} {search_ms:.1}");
}
