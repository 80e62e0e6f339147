//! Topic labels from class-based TF-IDF (Grootendorst 2022, BERTopic, section 3.3): the chunks of
//! one stratum are joined into one document per class, and a term's weight in class `c` is
//! `W(t, c) = tf(t, c) * ln(1 + A / f(t))`, where `tf` is the term's frequency in the class
//! normalised by the class's term count (L1, as BERTopic's `ClassTfidfTransformer` does), `f(t)`
//! the term's count over all classes and `A` the average number of terms per class. Terms are
//! lower-cased words without SMART stop words or digits; Chinese text gives character bigrams.

use std::collections::{BTreeMap, HashMap};

use ragjudge_core::text::{is_cjk, words};
use ragjudge_lexical::stopwords::is_smart_stopword;
use serde::Serialize;

/// The top terms of one class.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopicTerms {
    /// The class (stratum) name.
    pub class: String,
    /// `(term, weight)`, heaviest first (ties by term).
    pub terms: Vec<(String, f64)>,
}

/// Terms of a text: lower-cased words that are not stop words, digits or single Latin letters;
/// runs of CJK characters as overlapping character bigrams.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cjk_run: Vec<&str> = Vec::new();
    let flush = |run: &mut Vec<&str>, out: &mut Vec<String>| {
        if run.len() == 1 {
            out.push(run[0].to_string());
        }
        for pair in run.windows(2) {
            out.push(format!("{}{}", pair[0], pair[1]));
        }
        run.clear();
    };
    for w in words(text) {
        if w.chars().next().is_some_and(is_cjk) {
            cjk_run.push(w);
            continue;
        }
        flush(&mut cjk_run, &mut out);
        let lower = w.to_lowercase();
        if lower.chars().count() < 2 || lower.chars().all(|c| c.is_numeric()) || is_smart_stopword(&lower) {
            continue;
        }
        out.push(lower);
    }
    flush(&mut cjk_run, &mut out);
    out
}

/// c-TF-IDF weights: for each class (in the order given), its `top` heaviest terms.
pub fn class_tfidf(classes: &[(String, Vec<String>)], top: usize) -> Vec<TopicTerms> {
    let counts: Vec<BTreeMap<&str, f64>> = classes
        .iter()
        .map(|(_, terms)| {
            let mut m = BTreeMap::new();
            for t in terms {
                *m.entry(t.as_str()).or_insert(0.0) += 1.0;
            }
            m
        })
        .collect();
    let mut total: HashMap<&str, f64> = HashMap::new();
    for m in &counts {
        for (t, c) in m {
            *total.entry(t).or_insert(0.0) += c;
        }
    }
    let all: f64 = total.values().sum();
    let avg = if classes.is_empty() { 0.0 } else { all / classes.len() as f64 };
    classes
        .iter()
        .zip(&counts)
        .map(|((class, _), m)| {
            let size: f64 = m.values().sum();
            let mut weighted: Vec<(String, f64)> =
                m.iter().map(|(t, c)| ((*t).to_string(), c / size * (1.0 + avg / total[t]).ln())).collect();
            weighted.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            weighted.truncate(top);
            TopicTerms { class: class.clone(), terms: weighted }
        })
        .collect()
}

#[cfg(test)]
mod tests;
