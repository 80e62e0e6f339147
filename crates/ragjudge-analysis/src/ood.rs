//! Out-of-distribution questions for robustness testing (HCAT (Sudjianto et al.), §6.1): questions
//! on subjects a document collection does not cover, whose right answer is an honest "I do not
//! have that information". They come from a bank of general questions over sixteen everyday
//! subjects; a question is kept only when few of its content words occur anywhere in the
//! collection (its *overlap*), so that it is out of the collection's distribution rather than
//! merely unanswered. Model-free and seeded: the same collection, number and seed give the same
//! questions.

use ragjudge_lexical::stopwords::is_smart_stopword;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::collections::HashSet;

/// The bank: (subject, question).
pub const BANK: &[(&str, &str)] = &[
    ("cooking", "At what internal temperature is a roast chicken safe to eat?"),
    ("cooking", "Why does bread dough need to be kneaded?"),
    ("cooking", "What gives saffron its colour?"),
    ("sport", "How many players does a water polo team have in the pool?"),
    ("sport", "How long is a marathon in kilometres?"),
    ("sport", "What is a hat-trick in cricket?"),
    ("music", "How many keys does a standard piano have?"),
    ("music", "What is the difference between a major and a minor chord?"),
    ("music", "Who composed the opera The Magic Flute?"),
    ("geography", "What is the capital of Mongolia?"),
    ("geography", "Which river flows through Budapest?"),
    ("geography", "What is the highest mountain in Africa?"),
    ("astronomy", "What is a neutron star?"),
    ("astronomy", "Which planet has the most known moons?"),
    ("astronomy", "What causes a solar eclipse?"),
    ("law", "What is habeas corpus?"),
    ("law", "What does a notary public do?"),
    ("law", "What is the difference between a misdemeanour and a felony?"),
    ("anatomy", "What does the pancreas do?"),
    ("anatomy", "How many bones are in the adult human skeleton?"),
    ("anatomy", "What causes hiccups?"),
    ("gardening", "When should tulip bulbs be planted?"),
    ("gardening", "How often should a cactus be watered?"),
    ("gardening", "Why do gardeners prune roses in late winter?"),
    ("games", "What is castling in chess?"),
    ("games", "How many tiles are in a standard Scrabble set?"),
    ("games", "What is a royal flush in poker?"),
    ("art", "Who painted The Night Watch?"),
    ("art", "What is fresco painting?"),
    ("art", "Which pigments did medieval painters use for blue?"),
    ("language", "What is the plural of the word cactus?"),
    ("language", "How many letters does the Greek alphabet have?"),
    ("language", "What is an oxymoron?"),
    ("vehicles", "What does an anti-lock braking system do in a car?"),
    ("vehicles", "How does a diesel engine ignite its fuel?"),
    ("vehicles", "What is the gauge of standard railway track?"),
    ("animals", "How long do elephants live in the wild?"),
    ("animals", "Why do cats purr?"),
    ("animals", "How many hearts does an octopus have?"),
    ("architecture", "What is a flying buttress?"),
    ("architecture", "When was the Eiffel Tower completed?"),
    ("architecture", "What is the tallest building in the world?"),
    ("textiles", "What is the difference between wool and cashmere?"),
    ("textiles", "How is denim woven?"),
    ("textiles", "What does the thread count of a bed sheet measure?"),
    ("mathematics", "What is a prime number?"),
    ("mathematics", "What does the Pythagorean theorem state?"),
    ("mathematics", "What is the sum of the interior angles of a hexagon?"),
];

/// A question of the bank chosen for a collection.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OodQuestion {
    /// Position in [`BANK`] (stable across seeds and collections).
    pub index: usize,
    /// Its subject.
    pub subject: &'static str,
    /// The question.
    pub text: &'static str,
    /// Share of its content words found in the collection.
    pub overlap: f64,
}

/// What was chosen, and how many bank questions the collection ruled out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OodChoice {
    /// The chosen questions, in a seeded order.
    pub questions: Vec<OodQuestion>,
    /// Bank questions left out because their overlap exceeded the limit.
    pub too_close: usize,
}

/// The content words of `text`: lower-cased runs of letters and digits of at least 3 characters
/// that are not SMART stop words.
pub fn content_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.chars().count() >= 3 && !is_smart_stopword(w))
        .collect()
}

/// Share of the content words of `question` that occur in `vocabulary` (0 for a question without
/// content words).
pub fn overlap(question: &str, vocabulary: &HashSet<String>) -> f64 {
    let words = content_words(question);
    if words.is_empty() {
        return 0.0;
    }
    words.iter().filter(|w| vocabulary.contains(*w)).count() as f64 / words.len() as f64
}

/// Up to `n` bank questions whose overlap with the collection's texts is at most `max_overlap`,
/// chosen with `seed`.
pub fn ood_questions(collection: &[&str], n: usize, max_overlap: f64, seed: u64) -> OodChoice {
    let vocabulary: HashSet<String> = collection.iter().flat_map(|t| content_words(t)).collect();
    let (mut kept, mut too_close) = (Vec::new(), 0);
    for (index, &(subject, text)) in BANK.iter().enumerate() {
        let o = overlap(text, &vocabulary);
        if o > max_overlap {
            too_close += 1;
        } else {
            kept.push(OodQuestion { index, subject, text, overlap: o });
        }
    }
    kept.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    kept.truncate(n);
    OodChoice { questions: kept, too_close }
}

impl OodChoice {
    /// The chosen questions as question records: id `ood-NNN` (the bank position), the text in
    /// `field`, and `meta.perturbation` (`ood`), `meta.severity` (1), `meta.seed`,
    /// `meta.subject` and `meta.overlap`; no `variant_of` (there is no original).
    pub fn records(&self, field: &str, seed: u64) -> Vec<serde_json::Value> {
        self.questions
            .iter()
            .map(|q| {
                let mut v = serde_json::json!({
                    "id": format!("ood-{:03}", q.index),
                    "meta": {"perturbation": "ood", "severity": 1, "seed": seed, "subject": q.subject, "overlap": q.overlap},
                });
                v[field] = serde_json::Value::from(q.text);
                v
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_words_drop_stop_words_and_short_tokens() {
        assert_eq!(content_words("What is the capital of Mongolia?"), vec!["capital", "mongolia"]);
        assert_eq!(content_words("Is it so?"), Vec::<String>::new());
    }

    #[test]
    fn a_question_that_shares_words_with_the_collection_is_left_out() {
        // "What is the capital of Mongolia?": capital, mongolia. A collection naming both: 1.
        let collection = ["Ulaanbaatar is the capital of Mongolia.", "Tulips flower in spring."];
        let vocabulary: HashSet<String> = collection.iter().flat_map(|t| content_words(t)).collect();
        assert_eq!(overlap("What is the capital of Mongolia?", &vocabulary), 1.0);
        // "When should tulip bulbs be planted?": tulip, bulbs, planted: "tulip" is not "tulips".
        assert_eq!(overlap("When should tulip bulbs be planted?", &vocabulary), 0.0);
        let c = ood_questions(&collection, BANK.len(), 0.5, 7);
        assert_eq!(c.too_close, 1);
        assert_eq!(c.questions.len(), BANK.len() - 1);
        assert!(c.questions.iter().all(|q| q.text != "What is the capital of Mongolia?"));
    }

    #[test]
    fn the_choice_is_seeded_and_every_bank_question_is_distinct() {
        let a = ood_questions(&[], 5, 0.5, 1);
        assert_eq!(a, ood_questions(&[], 5, 0.5, 1));
        assert_eq!(a.questions.len(), 5);
        assert_ne!(a.questions, ood_questions(&[], 5, 0.5, 2).questions);
        let texts: HashSet<&str> = BANK.iter().map(|b| b.1).collect();
        assert_eq!(texts.len(), BANK.len());
        assert!(BANK.iter().all(|(_, q)| q.ends_with('?')));
    }
}
