//! Scores answer/reference pairs with ROUGE-1/2/L (F, no stemmer), sentence BLEU and chrF on one
//! thread, for `bench/lexical/run.sh`.
//!
//! Usage: `lexical_bench PAIRS.jsonl SCORES.jsonl`, where each input line is
//! `{"answer": ..., "reference": ...}`. Writes one JSON object per pair (BLEU and chrF on
//! sacrebleu's 0-100 scale, for comparison with the Python references) and prints
//! `{"pairs": N, "seconds": S}` timing only the scoring loop.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::time::Instant;

use ragjudge_lexical::bleu::sentence_bleu;
use ragjudge_lexical::chrf::sentence_chrf;
use ragjudge_lexical::rouge::RougeScorer;
use serde_json::{json, Value};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        return Err("usage: lexical_bench PAIRS.jsonl SCORES.jsonl".into());
    }
    let mut pairs: Vec<(String, String)> = Vec::new();
    for line in BufReader::new(std::fs::File::open(&args[1])?).lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(&line)?;
        let get = |k: &str| v[k].as_str().map(str::to_owned).ok_or(format!("missing {k}"));
        pairs.push((get("answer")?, get("reference")?));
    }

    let scorer = RougeScorer { use_stemmer: false };
    let start = Instant::now();
    let mut scores = Vec::with_capacity(pairs.len());
    let mut per_metric = [0.0f64; 3];
    for (answer, reference) in &pairs {
        let t0 = Instant::now();
        let r = scorer.score(reference, answer);
        let t1 = Instant::now();
        let b = sentence_bleu(answer, &[reference.as_str()]);
        let t2 = Instant::now();
        let c = sentence_chrf(answer, &[reference.as_str()]);
        let t3 = Instant::now();
        per_metric[0] += (t1 - t0).as_secs_f64();
        per_metric[1] += (t2 - t1).as_secs_f64();
        per_metric[2] += (t3 - t2).as_secs_f64();
        scores.push([r.rouge1.fmeasure, r.rouge2.fmeasure, r.rouge_l.fmeasure, b.score, c.score]);
    }
    let seconds = start.elapsed().as_secs_f64();

    let mut out = BufWriter::new(std::fs::File::create(&args[2])?);
    for s in &scores {
        let v = json!({"rouge1": s[0], "rouge2": s[1], "rougeL": s[2], "bleu": s[3], "chrf": s[4]});
        writeln!(out, "{v}")?;
    }
    out.flush()?;
    let [rouge, bleu, chrf] = per_metric;
    println!("{}", json!({"pairs": pairs.len(), "seconds": seconds, "rouge_s": rouge, "bleu_s": bleu, "chrf_s": chrf}));
    Ok(())
}
