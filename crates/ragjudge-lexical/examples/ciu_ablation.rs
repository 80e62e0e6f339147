//! CIU ablation over rated records, for `bench/ciu-fidelity/run.sh`.
//!
//! Usage: `ciu_ablation RECORDS.jsonl OUT.csv`. Each input line is a ragjudge record (`id`,
//! `query`, `history`, `answer`, `reference`). Writes one row per record: `id`, then one column per
//! CIU variant, the content-word overlap count and its normalised forms, BLEU / ROUGE-L for
//! reference, and the per-record quantities the analysis in `docs/ciu-fidelity.md` needs (answer
//! length, mean position discount of the matches, ...). Everything goes through the crate's public
//! API; the column list is printed by `ciu_ablation --columns`.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, BufWriter, Write};

use ragjudge_core::Record;
use ragjudge_lexical::bleu::sentence_bleu;
use ragjudge_lexical::ciu::{ciu, ciu_record, record_turns, CiuOptions, DSent};
use ragjudge_lexical::porter::PorterStemmer;
use ragjudge_lexical::rake::{words, KeywordLimit, RakeOptions};
use ragjudge_lexical::rouge::RougeScorer;
use ragjudge_lexical::stopwords::is_smart_stopword;

/// A CIU variant: its column name and options.
struct Variant {
    name: &'static str,
    opts: CiuOptions,
}

fn variants() -> Vec<Variant> {
    let d = CiuOptions::default;
    let discounts = |position: bool, frequency: bool, effort: bool| CiuOptions {
        position_discount: position,
        frequency_discount: frequency,
        effort,
        ..d()
    };
    let limit = |limit: KeywordLimit| CiuOptions { rake: RakeOptions { limit, ..RakeOptions::default() }, ..d() };
    let c_char = |c: f64| CiuOptions { c_char: c, ..d() };
    vec![
        // The full metric (defaults) and the behaviour before the query counted as a turn.
        Variant { name: "ciu", opts: d() },
        Variant { name: "ciu_history_only", opts: CiuOptions { query_as_turn: false, ..d() } },
        // Each discount off alone, all off, each one alone.
        Variant { name: "ciu_no_position", opts: discounts(false, true, true) },
        Variant { name: "ciu_no_frequency", opts: discounts(true, false, true) },
        Variant { name: "ciu_no_effort", opts: discounts(true, true, false) },
        Variant { name: "ciu_all_off", opts: discounts(false, false, false) },
        Variant { name: "ciu_position_only", opts: discounts(true, false, false) },
        Variant { name: "ciu_frequency_only", opts: discounts(false, true, false) },
        Variant { name: "ciu_effort_only", opts: discounts(false, false, true) },
        // RAKE phrase selection.
        Variant { name: "ciu_rake_third", opts: limit(KeywordLimit::ThirdOfWords) },
        Variant { name: "ciu_rake_top3", opts: limit(KeywordLimit::Top(3)) },
        Variant { name: "ciu_rake_top5", opts: limit(KeywordLimit::Top(5)) },
        Variant { name: "ciu_rake_top10", opts: limit(KeywordLimit::Top(10)) },
        Variant {
            name: "ciu_rake_third_all_off",
            opts: CiuOptions {
                rake: RakeOptions { limit: KeywordLimit::ThirdOfWords, ..RakeOptions::default() },
                ..discounts(false, false, false)
            },
        },
        // d_sent readings.
        Variant { name: "ciu_dsent_sentences", opts: CiuOptions { d_sent: DSent::Sentences, ..d() } },
        Variant { name: "ciu_per_unit", opts: CiuOptions { count_per_unit: true, ..d() } },
        // C_char.
        Variant { name: "ciu_c0", opts: c_char(0.0) },
        Variant { name: "ciu_c0.001", opts: c_char(0.001) },
        Variant { name: "ciu_c0.0025", opts: c_char(0.0025) },
        Variant { name: "ciu_c0.005", opts: c_char(0.005) },
        Variant { name: "ciu_c0.01", opts: c_char(0.01) },
        // Tokenisation: Porter stemming.
        Variant { name: "ciu_stem", opts: CiuOptions { stem: true, ..d() } },
        Variant { name: "ciu_stem_all_off", opts: CiuOptions { stem: true, ..discounts(false, false, false) } },
    ]
}

/// Columns computed outside [`variants`], in output order.
const EXTRA: [&str; 14] = [
    "count",
    "count_stem",
    "count_recall",
    "count_precision",
    "count_f1",
    "count_per_100_chars",
    "bleu",
    "rouge_l",
    "answer_chars",
    "answer_words",
    "gain",
    "effort",
    "mean_gamma",
    "mean_freq",
];

/// Distinct non-stop-word (SMART list) tokens of `text`, optionally stemmed.
fn content_words(text: &str, stem: bool) -> HashSet<String> {
    let st = PorterStemmer::new();
    words(text).into_iter().filter(|w| !is_smart_stopword(w)).map(|w| if stem { st.stem(&w) } else { w }).collect()
}

fn extra_values(record: &Record, rouge: &RougeScorer) -> Vec<f64> {
    let reference = record.reference.clone().unwrap_or_default();
    let answer = record.answer.as_str();
    let ref_cw = content_words(&reference, false);
    let ans_words: HashSet<String> = words(answer).into_iter().collect();
    let ans_cw = content_words(answer, false);
    let count = ref_cw.iter().filter(|w| ans_words.contains(*w)).count() as f64;
    let st = PorterStemmer::new();
    let ans_stems: HashSet<String> = words(answer).iter().map(|w| st.stem(w)).collect();
    let count_stem = content_words(&reference, true).iter().filter(|w| ans_stems.contains(*w)).count() as f64;
    let ratio = |num: f64, den: usize| if den == 0 { 0.0 } else { num / den as f64 };
    let recall = ratio(count, ref_cw.len());
    let precision = ratio(count, ans_cw.len());
    let f1 = if recall + precision > 0.0 { 2.0 * recall * precision / (recall + precision) } else { 0.0 };
    let chars = answer.trim().chars().count();
    let full = ciu_record(record, &CiuOptions::default());
    let m = &full.detail.matches;
    let mean = |f: &dyn Fn(&ragjudge_lexical::ciu::CiuMatch) -> f64| {
        if m.is_empty() {
            0.0
        } else {
            m.iter().map(f).sum::<f64>() / m.len() as f64
        }
    };
    vec![
        count,
        count_stem,
        recall,
        precision,
        f1,
        ratio(100.0 * count, chars),
        sentence_bleu(answer, &[reference.as_str()]).bleu_unit(),
        rouge.score(&reference, answer).rouge_l.fmeasure,
        chars as f64,
        full.detail.utterance_tokens as f64,
        full.detail.gain,
        full.detail.effort,
        mean(&|x| x.gamma),
        mean(&|x| x.freq),
    ]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let vars = variants();
    if args.get(1).map(String::as_str) == Some("--columns") {
        for v in &vars {
            println!("{}", v.name);
        }
        for e in EXTRA {
            println!("{e}");
        }
        return Ok(());
    }
    if args.len() != 3 {
        return Err("usage: ciu_ablation RECORDS.jsonl OUT.csv | ciu_ablation --columns".into());
    }
    let mut records: Vec<Record> = Vec::new();
    for line in BufReader::new(std::fs::File::open(&args[1])?).lines() {
        let line = line?;
        if !line.trim().is_empty() {
            records.push(serde_json::from_str(&line)?);
        }
    }

    let rouge = RougeScorer { use_stemmer: false };
    let mut out = BufWriter::new(std::fs::File::create(&args[2])?);
    let header: Vec<&str> = std::iter::once("id").chain(vars.iter().map(|v| v.name)).chain(EXTRA).collect();
    writeln!(out, "{}", header.join(","))?;
    for r in &records {
        let mut row = vec![r.id.clone()];
        for v in &vars {
            // Same as ciu_record; spelled out so that the turns used are visible here.
            let turns = record_turns(r, &v.opts);
            let value = ciu(&r.answer, &turns, &r.grounding(), &v.opts).value;
            // `+ 0.0` turns -0 into 0.
            row.push(format!("{}", value + 0.0));
        }
        row.extend(extra_values(r, &rouge).into_iter().map(|x| format!("{}", x + 0.0)));
        writeln!(out, "{}", row.join(","))?;
    }
    out.flush()?;
    eprintln!("ciu_ablation: {} records, {} columns -> {}", records.len(), header.len() - 1, args[2]);
    Ok(())
}
