//! Labelled pairs a judge is measured on: public pairwise preference sets in the LLMBar JSON
//! layout (Zeng et al. 2024), and ragjudge runs joined with human pairwise labels.

use std::collections::HashMap;
use std::path::Path;

use ragjudge_core::{InputError, Record};
use serde::{Deserialize, Serialize};

use crate::labels::{Label, PairLabels};
use crate::pair::{Outcome, Pair, Side};

/// A labelled pair: a [`Pair`] of a set, with the human label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairItem {
    /// The set it belongs to (file stem).
    pub set: String,
    /// The pair; its id is the id within the set (`0`, `1`, ... for LLMBar files;
    /// `QID:SYS_A:SYS_B` for runs).
    #[serde(flatten)]
    pub pair: Pair,
    /// The human label.
    pub gold: Outcome,
}

impl AsRef<Pair> for PairItem {
    fn as_ref(&self) -> &Pair {
        &self.pair
    }
}

#[derive(Deserialize)]
struct LlmBarItem {
    input: String,
    output_1: String,
    output_2: String,
    label: u8,
}

/// The set name of a file: its stem.
pub fn set_name(path: &Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string())
}

/// Reads a JSON list of `{"input", "output_1", "output_2", "label": 1 | 2}` (LLMBar's processed
/// layout); a malformed item is an error naming the file and the item's position.
pub fn read_llmbar(path: &Path) -> Result<Vec<PairItem>, InputError> {
    let name = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|e| InputError::fatal(&name, None, format!("cannot read: {e}")))?;
    let values: Vec<serde_json::Value> = serde_json::from_str(&text)
        .map_err(|e| InputError::fatal(&name, None, format!("expected a JSON list of labelled pairs: {e}")))?;
    let set = set_name(path);
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            let item: LlmBarItem = serde_json::from_value(v)
                .map_err(|e| InputError::fatal(&name, None, format!("item {i}: not a labelled pair: {e}")))?;
            let gold = match item.label {
                1 => Outcome::First,
                2 => Outcome::Second,
                other => {
                    return Err(InputError::new(
                        &name,
                        None,
                        Some("label".into()),
                        format!("item {i}: label must be 1 or 2, found {other}"),
                    ))
                }
            };
            let side = |answer: String| Side { answer, contexts: Vec::new(), system: None };
            let pair = Pair {
                id: i.to_string(),
                instruction: item.input,
                reference: None,
                first: side(item.output_1),
                second: side(item.output_2),
            };
            Ok(PairItem { set: set.clone(), pair, gold })
        })
        .collect()
}

/// Pairs of `records` (several systems' runs) with a human label in `labels`, as `set`. A
/// labelled pair whose records are missing is an error naming the pair.
pub fn pairs_from_runs(set: &str, records: &[Record], labels: &PairLabels) -> Result<Vec<PairItem>, String> {
    let by_key: HashMap<(&str, &str), &Record> =
        records.iter().map(|r| ((r.id.as_str(), r.system.as_str()), r)).collect();
    let mut keys: Vec<_> = labels.labels.iter().collect();
    keys.sort_by(|a, b| a.0.cmp(b.0));
    keys.into_iter()
        .map(|((id, sa, sb), label)| {
            let get = |s: &str| {
                by_key
                    .get(&(id.as_str(), s))
                    .copied()
                    .ok_or_else(|| format!("labelled pair {id} {sa}/{sb}: no record of {s}"))
            };
            let (a, b) = (get(sa)?, get(sb)?);
            let gold = match label {
                Label::A => Outcome::First,
                Label::B => Outcome::Second,
                Label::Tie => Outcome::Tie,
            };
            let pair = Pair { id: format!("{id}:{sa}:{sb}"), ..Pair::of_records(a, b) };
            Ok(PairItem { set: set.to_string(), pair, gold })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llmbar_items_read_with_their_labels_and_bad_labels_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("toy.json");
        std::fs::write(&p, r#"[{"input":"i","output_1":"a","output_2":"bb","label":2},{"input":"j","output_1":"c","output_2":"d","label":1}]"#).unwrap();
        let items = read_llmbar(&p).unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!((items[0].set.as_str(), items[0].pair.id.as_str(), items[0].gold), ("toy", "0", Outcome::Second));
        assert_eq!(items[1].pair.first.answer, "c");
        std::fs::write(&p, r#"[{"input":"i","output_1":"a","output_2":"b","label":3}]"#).unwrap();
        let e = read_llmbar(&p).unwrap_err().to_string();
        assert!(e.contains("toy.json") && e.contains("item 0") && e.contains("label"), "{e}");
    }
}
