//! [`DuplicateKeys`]: finds records of one input that share their key `(id, system, run)`.
//!
//! Scores of such records are still computed (each row stands alone), but joins on the key become
//! ambiguous: a pairwise judge would not know which answer to take, a label would apply to both.
//! Memory is bounded: a 64-bit hash and the line of its first record per key
//! ([`DuplicateKeys::default`], for inputs that are read whole anyway), or the hash alone
//! ([`DuplicateKeys::compact`], for streams), for at most `limit` keys.

use crate::error::excerpt;
use crate::record::Record;
use std::collections::hash_map::{DefaultHasher, Entry};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::hash::{Hash, Hasher};

/// Keys remembered per input by default: at most about 36 MB with lines, 19 MB compact (a hash
/// table of 16 or 8 bytes a key, at most half full).
pub const DEFAULT_LIMIT: usize = 1_000_000;

/// A record whose key an earlier record of the same input had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// Record id.
    pub id: String,
    /// System name.
    pub system: String,
    /// Repetition index.
    pub run: Option<u32>,
    /// Where the earlier record starts (line or CSV row), when known.
    pub first_line: Option<u64>,
}

impl fmt::Display for Duplicate {
    /// `duplicate record: id `q1`, system `bm25`, run 2 (first on line 3)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "duplicate record: id `{}`, system `{}`", excerpt(&self.id), excerpt(&self.system))?;
        if let Some(run) = self.run {
            write!(f, ", run {run}")?;
        }
        match self.first_line {
            Some(line) => write!(f, " (first on line {line})"),
            None => write!(f, " (seen before)"),
        }
    }
}

/// What is kept per key.
#[derive(Debug, Clone)]
enum Seen {
    /// Key hash -> line of its first record (0: unknown; lines are 1-based).
    Lines(HashMap<u64, u64>),
    /// Key hashes only.
    Keys(HashSet<u64>),
}

/// Remembers the keys of one input's records and reports repeats.
#[derive(Debug, Clone)]
pub struct DuplicateKeys {
    seen: Seen,
    limit: usize,
    /// A new key came after the limit was reached (it and later new keys went unchecked).
    overflowed: bool,
}

impl Default for DuplicateKeys {
    /// Remembers the first line of each key, for at most [`DEFAULT_LIMIT`] keys.
    fn default() -> Self {
        Self::with_limit(DEFAULT_LIMIT)
    }
}

impl DuplicateKeys {
    /// A tracker that remembers the first line of at most `limit` keys; later new keys are not checked.
    pub fn with_limit(limit: usize) -> Self {
        Self { seen: Seen::Lines(HashMap::new()), limit, overflowed: false }
    }

    /// A tracker that remembers at most `limit` keys without their lines (half the memory):
    /// duplicates are reported without the line of the first record.
    pub fn compact(limit: usize) -> Self {
        Self { seen: Seen::Keys(HashSet::new()), limit, overflowed: false }
    }

    /// Whether a new key came after the limit was reached, so that later records were not all
    /// checked (an input of exactly `limit` keys was checked whole).
    pub fn full(&self) -> bool {
        self.overflowed
    }

    fn at_limit(&self) -> bool {
        let n = match &self.seen {
            Seen::Lines(m) => m.len(),
            Seen::Keys(s) => s.len(),
        };
        n >= self.limit
    }

    /// Notes `record`, found at `line`; returns the duplicate when an earlier record had its key.
    pub fn check(&mut self, record: &Record, line: Option<u64>) -> Option<Duplicate> {
        let mut h = DefaultHasher::new();
        (&record.id, &record.system, record.run).hash(&mut h);
        let key = h.finish();
        let full = self.at_limit();
        let first_line = match &mut self.seen {
            Seen::Lines(m) => match m.entry(key) {
                Entry::Occupied(e) => Some(Some(*e.get()).filter(|&l| l > 0)),
                Entry::Vacant(e) => {
                    match full {
                        true => self.overflowed = true,
                        false => _ = e.insert(line.unwrap_or(0)),
                    }
                    None
                }
            },
            Seen::Keys(s) => {
                if s.contains(&key) {
                    Some(None)
                } else {
                    match full {
                        true => self.overflowed = true,
                        false => _ = s.insert(key),
                    }
                    None
                }
            }
        }?;
        Some(Duplicate { id: record.id.clone(), system: record.system.clone(), run: record.run, first_line })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: &str, system: &str, run: Option<u32>) -> Record {
        Record { id: id.into(), system: system.into(), run, ..Record::default() }
    }

    #[test]
    fn repeats_of_id_system_and_run_are_reported_with_the_first_line() {
        let mut keys = DuplicateKeys::default();
        assert_eq!(keys.check(&rec("q1", "a", None), Some(2)), None);
        assert_eq!(keys.check(&rec("q1", "b", None), Some(3)), None);
        assert_eq!(keys.check(&rec("q1", "a", Some(1)), Some(4)), None);
        let d = keys.check(&rec("q1", "a", None), Some(5)).unwrap();
        assert_eq!(d.first_line, Some(2));
        assert_eq!(d.to_string(), "duplicate record: id `q1`, system `a` (first on line 2)");
        let d = keys.check(&rec("q1", "a", Some(1)), Some(6)).unwrap();
        assert_eq!(d.to_string(), "duplicate record: id `q1`, system `a`, run 1 (first on line 4)");
    }

    #[test]
    fn a_compact_tracker_finds_the_same_repeats_without_lines() {
        let mut keys = DuplicateKeys::compact(10);
        assert_eq!(keys.check(&rec("q1", "a", None), Some(2)), None);
        let d = keys.check(&rec("q1", "a", None), Some(5)).unwrap();
        assert_eq!(d.to_string(), "duplicate record: id `q1`, system `a` (seen before)");
    }

    #[test]
    fn a_full_tracker_stops_remembering_new_keys() {
        let mut keys = DuplicateKeys::with_limit(1);
        assert_eq!(keys.check(&rec("q1", "a", None), Some(1)), None);
        // Exactly `limit` keys: all were checked.
        assert!(!keys.full());
        assert!(keys.check(&rec("q1", "a", None), Some(2)).is_some());
        assert!(!keys.full());
        assert_eq!(keys.check(&rec("q2", "a", None), Some(2)), None);
        assert!(keys.full());
        assert_eq!(keys.check(&rec("q2", "a", None), Some(3)), None);
        assert!(keys.check(&rec("q1", "a", None), Some(4)).is_some());
    }
}
