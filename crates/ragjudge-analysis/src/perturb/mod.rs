//! Input variations for robustness testing (HCAT §6.1) that need no model: typos (a keyboard
//! neighbour instead of a letter, a dropped letter, two letters swapped), casing, punctuation and
//! whitespace noise, each at a rate per character. Seeded: the same text, kind, rate and seed
//! always give the same variant. [`job`] writes them, with the model-backed and context kinds,
//! as one call.

pub mod job;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// A kind of input variation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Perturbation {
    /// Each ASCII letter, with probability `rate`: dropped, swapped with the next letter, or
    /// replaced by a QWERTY neighbour (one third each; a neighbour when there is no different
    /// next letter to swap with).
    Typo,
    /// Each letter, with probability `rate`: its case flipped.
    Case,
    /// Each punctuation mark, with probability `rate`: dropped.
    Punctuation,
    /// Each space, with probability `rate`: doubled or dropped (one half each).
    Whitespace,
}

impl Perturbation {
    /// Every kind.
    pub const ALL: [Perturbation; 4] =
        [Perturbation::Typo, Perturbation::Case, Perturbation::Punctuation, Perturbation::Whitespace];

    /// The kind's name (`typo`, `case`, `punctuation`, `whitespace`).
    pub fn name(self) -> &'static str {
        match self {
            Perturbation::Typo => "typo",
            Perturbation::Case => "case",
            Perturbation::Punctuation => "punctuation",
            Perturbation::Whitespace => "whitespace",
        }
    }
}

/// A variant of a text and how many edits made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// The varied text.
    pub text: String,
    /// Edits applied.
    pub edits: usize,
    /// Characters that could have been edited (letters, marks or spaces, by kind).
    pub candidates: usize,
}

/// QWERTY neighbours of a lower-case letter.
fn neighbours(c: char) -> &'static str {
    match c {
        'q' => "wa",
        'w' => "qeas",
        'e' => "wrsd",
        'r' => "etdf",
        't' => "ryfg",
        'y' => "tugh",
        'u' => "yihj",
        'i' => "uojk",
        'o' => "ipkl",
        'p' => "ol",
        'a' => "qwsz",
        's' => "weadzx",
        'd' => "erfsxc",
        'f' => "rtdgcv",
        'g' => "tyfhvb",
        'h' => "yugjbn",
        'j' => "uihknm",
        'k' => "iojlm",
        'l' => "opk",
        'z' => "asx",
        'x' => "zsdc",
        'c' => "xdfv",
        'v' => "cfgb",
        'b' => "vghn",
        'n' => "bhjm",
        'm' => "njk",
        _ => "",
    }
}

/// `text` varied by `kind` at `rate` (in [0, 1]), from `seed`.
pub fn perturb(text: &str, kind: Perturbation, rate: f64, seed: u64) -> Variant {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    let (mut edits, mut candidates) = (0, 0);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let candidate = match kind {
            Perturbation::Typo => c.is_ascii_alphabetic(),
            Perturbation::Case => c.is_alphabetic() && (c.is_lowercase() || c.is_uppercase()),
            Perturbation::Punctuation => c.is_ascii_punctuation(),
            Perturbation::Whitespace => c == ' ',
        };
        if !candidate {
            out.push(c);
            i += 1;
            continue;
        }
        candidates += 1;
        if !rng.gen_bool(rate.clamp(0.0, 1.0)) {
            out.push(c);
            i += 1;
            continue;
        }
        edits += 1;
        match kind {
            Perturbation::Typo => {
                let next = chars.get(i + 1).copied().filter(|n| n.is_ascii_alphabetic() && *n != c);
                match (rng.gen_range(0..3), next) {
                    (1, _) => {}
                    (2, Some(n)) => {
                        out.push(n);
                        out.push(c);
                        i += 1;
                    }
                    // A neighbour, also when there is no different letter to swap with.
                    _ => {
                        let near = neighbours(c.to_ascii_lowercase());
                        let pick = near.chars().nth(rng.gen_range(0..near.len())).unwrap_or(c);
                        out.push(if c.is_ascii_uppercase() { pick.to_ascii_uppercase() } else { pick });
                    }
                }
            }
            Perturbation::Case => {
                if c.is_lowercase() {
                    out.extend(c.to_uppercase());
                } else {
                    out.extend(c.to_lowercase());
                }
            }
            Perturbation::Punctuation => {}
            Perturbation::Whitespace => {
                if rng.gen_bool(0.5) {
                    out.push_str("  ");
                }
            }
        }
        i += 1;
    }
    Variant { text: out, edits, candidates }
}

/// Variants of one question (a JSON object with `id` and the text in `field`): one per kind,
/// with id `ID~KIND`, the varied text, and `meta.variant_of`, `meta.perturbation`,
/// `meta.severity` (the rate) and `meta.seed`; every other field is kept. A variant equal to the
/// original (no candidate was hit) is left out. `None` when the object has no such text field.
pub fn question_variants(
    question: &serde_json::Value,
    field: &str,
    kinds: &[Perturbation],
    rate: f64,
    seed: u64,
) -> Option<Vec<serde_json::Value>> {
    use serde_json::Value;
    let text = question.get(field)?.as_str()?;
    let id = match question.get("id") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    let mut out = Vec::new();
    for (k, &kind) in kinds.iter().enumerate() {
        // A seed per question and kind, so that variants do not depend on the order of questions.
        let mixed = seed ^ fxhash(&id).rotate_left(7) ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let v = perturb(text, kind, rate, mixed);
        if v.edits == 0 || v.text == text {
            continue;
        }
        let mut q = question.clone();
        q[field] = Value::from(v.text);
        q["id"] = Value::from(format!("{id}~{}", kind.name()));
        if !q.get("meta").is_some_and(Value::is_object) {
            q["meta"] = Value::Object(serde_json::Map::new());
        }
        q["meta"]["variant_of"] = Value::from(id.clone());
        q["meta"]["perturbation"] = Value::from(kind.name());
        q["meta"]["severity"] = Value::from(rate);
        q["meta"]["seed"] = Value::from(seed);
        out.push(q);
    }
    Some(out)
}

/// A stable 64-bit hash of a string (FNV-1a), for per-question seeds.
pub(crate) fn fxhash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_zero_changes_nothing_and_rate_one_changes_every_candidate() {
        let t = "Who wrote Hamlet, and when?";
        for k in Perturbation::ALL {
            assert_eq!(perturb(t, k, 0.0, 1).text, t);
        }
        // Case at rate 1 flips every letter; punctuation at rate 1 drops both marks.
        assert_eq!(perturb(t, Perturbation::Case, 1.0, 1).text, "wHO WROTE hAMLET, AND WHEN?");
        assert_eq!(perturb(t, Perturbation::Punctuation, 1.0, 1).text, "Who wrote Hamlet and when");
        // Chinese text has no ASCII letters: typos leave it alone.
        assert_eq!(perturb("光合作用是什么？", Perturbation::Typo, 1.0, 3).text, "光合作用是什么？");
    }

    #[test]
    fn the_same_seed_gives_the_same_variant() {
        let t = "How do lithium-ion batteries store energy?";
        assert_eq!(perturb(t, Perturbation::Typo, 0.3, 9), perturb(t, Perturbation::Typo, 0.3, 9));
        assert_ne!(perturb(t, Perturbation::Typo, 0.3, 9).text, perturb(t, Perturbation::Typo, 0.3, 10).text);
    }
}
