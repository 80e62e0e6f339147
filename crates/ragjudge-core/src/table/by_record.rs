//! The join of records with score rows (or labels) on `(id, system)`, and `run` where the rows
//! have one, with one policy for a repeated key: the first row is kept, the later ones are left
//! out and counted per file and key ([`DroppedRepeats`]), for the caller to warn about.

use crate::error::excerpt;
use std::collections::HashMap;
use std::fmt;

/// The key of a record among score rows: its id and system, and its run when repeated.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RecordKey {
    /// Record id.
    pub id: String,
    /// System name.
    pub system: String,
    /// Repetition index, as written (`None`: the rows have no run).
    pub run: Option<String>,
}

impl RecordKey {
    /// The key `(id, system)`.
    pub fn new(id: impl Into<String>, system: impl Into<String>) -> Self {
        Self { id: id.into(), system: system.into(), run: None }
    }

    /// The key `(id, system, run)`.
    pub fn with_run(id: impl Into<String>, system: impl Into<String>, run: Option<String>) -> Self {
        Self { id: id.into(), system: system.into(), run }
    }
}

impl fmt::Display for RecordKey {
    /// `id `q1`, system `bm25`` (and `, run 2`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "id `{}`, system `{}`", excerpt(&self.id), excerpt(&self.system))?;
        if let Some(run) = &self.run {
            write!(f, ", run {}", excerpt(run))?;
        }
        Ok(())
    }
}

/// Later rows of one file whose key an earlier row had: left out of the join.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedRepeats {
    /// The file the repeats were read from.
    pub file: String,
    /// The repeated key.
    pub key: RecordKey,
    /// How many rows with the key were left out (the first one is kept).
    pub dropped: usize,
}

impl fmt::Display for DroppedRepeats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rows = if self.dropped == 1 { "row" } else { "rows" };
        write!(f, "{}: {} {rows} with {} left out: the first is kept", self.file, self.dropped, self.key)
    }
}

/// Values by [`RecordKey`], the first of each key kept: one side of a join of records with score
/// rows, built file by file.
#[derive(Debug, Clone)]
pub struct RecordIndex<V> {
    values: HashMap<RecordKey, V>,
    repeats: Vec<DroppedRepeats>,
    /// Position in `repeats` of each (file, key) repeated so far.
    repeat_at: HashMap<(String, RecordKey), usize>,
}

impl<V> Default for RecordIndex<V> {
    fn default() -> Self {
        Self { values: HashMap::new(), repeats: Vec::new(), repeat_at: HashMap::new() }
    }
}

impl<V> RecordIndex<V> {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `value` under `key`, read from `file`. A key already present keeps its first value;
    /// the repeat is counted against `file` and `false` returned.
    pub fn insert(&mut self, file: &str, key: RecordKey, value: V) -> bool {
        let key = match self.values.entry(key) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(value);
                return true;
            }
            std::collections::hash_map::Entry::Occupied(e) => e.key().clone(),
        };
        let slot = (file.to_string(), key);
        match self.repeat_at.get(&slot) {
            Some(&i) => self.repeats[i].dropped += 1,
            None => {
                self.repeats.push(DroppedRepeats { file: slot.0.clone(), key: slot.1.clone(), dropped: 1 });
                self.repeat_at.insert(slot, self.repeats.len() - 1);
            }
        }
        false
    }

    /// The value of `key`.
    pub fn get(&self, key: &RecordKey) -> Option<&V> {
        self.values.get(key)
    }

    /// Keys held.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no key is held.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The repeated keys left out so far, per file and key, in the order first repeated.
    pub fn repeats(&self) -> &[DroppedRepeats] {
        &self.repeats
    }

    /// The values by key and the repeats left out.
    pub fn into_parts(self) -> (HashMap<RecordKey, V>, Vec<DroppedRepeats>) {
        (self.values, self.repeats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_key_keeps_its_first_value_and_is_counted_per_file() {
        let mut index = RecordIndex::new();
        assert!(index.insert("a.jsonl", RecordKey::new("q1", "s"), 1.0));
        assert!(index.insert("a.jsonl", RecordKey::new("q2", "s"), 2.0));
        // q1/s again, twice in a.jsonl and once in b.jsonl: three rows dropped, first value kept.
        assert!(!index.insert("a.jsonl", RecordKey::new("q1", "s"), 10.0));
        assert!(!index.insert("a.jsonl", RecordKey::new("q1", "s"), 11.0));
        assert!(!index.insert("b.jsonl", RecordKey::new("q1", "s"), 12.0));
        // Another system or run is another key.
        assert!(index.insert("b.jsonl", RecordKey::new("q1", "t"), 3.0));
        assert!(index.insert("b.jsonl", RecordKey::with_run("q1", "s", Some("2".into())), 4.0));
        assert_eq!(index.len(), 4);
        assert_eq!(index.get(&RecordKey::new("q1", "s")), Some(&1.0));
        assert_eq!(
            index.repeats(),
            [
                DroppedRepeats { file: "a.jsonl".into(), key: RecordKey::new("q1", "s"), dropped: 2 },
                DroppedRepeats { file: "b.jsonl".into(), key: RecordKey::new("q1", "s"), dropped: 1 },
            ]
        );
        assert_eq!(
            index.repeats()[0].to_string(),
            "a.jsonl: 2 rows with id `q1`, system `s` left out: the first is kept"
        );
        let run =
            DroppedRepeats { file: "x.csv".into(), key: RecordKey::with_run("q", "s", Some("2".into())), dropped: 1 };
        assert_eq!(run.to_string(), "x.csv: 1 row with id `q`, system `s`, run 2 left out: the first is kept");
        let (values, repeats) = index.into_parts();
        assert_eq!((values.len(), repeats.len()), (4, 2));
    }
}
