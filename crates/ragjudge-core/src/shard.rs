//! Fan-out: a [`Shard`] `i/n` selects the records whose question key (the record `id`) hashes
//! to part `i` of `n`, with a stable hash ([`stable_hash`]), so that every system's answer to one
//! question lands in the same shard and repeated runs split the same way on every machine.

use std::fmt;
use std::str::FromStr;

/// FNV-1a 64-bit offset basis (Fowler, Noll, Vo).
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a 64-bit prime.
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// A stable 64-bit hash of `parts`: FNV-1a over the bytes of each part, parts separated by a
/// 0x1f byte, then MurmurHash3's 64-bit finaliser (`fmix64`) so that every output bit depends on
/// every input bit (FNV-1a's low bits depend only on the inputs' low bits).
///
/// The same on every platform and in every release: shard membership and the bootstrap weights
/// of the summaries depend on it.
pub fn stable_hash(parts: &[&[u8]]) -> u64 {
    let mut h = FNV_OFFSET;
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            h ^= 0x1f;
            h = h.wrapping_mul(FNV_PRIME);
        }
        for &b in *part {
            h ^= u64::from(b);
            h = h.wrapping_mul(FNV_PRIME);
        }
    }
    fmix64(h)
}

/// MurmurHash3's 64-bit finaliser.
fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

/// The environment variable of a batch task's shard number, from 0 (SLURM array jobs:
/// `$SLURM_ARRAY_TASK_ID`; Kubernetes indexed jobs: `$JOB_COMPLETION_INDEX`).
pub const INDEX_VAR: &str = "RAGJUDGE_SHARD_INDEX";
/// The environment variable of the number of shards.
pub const COUNT_VAR: &str = "RAGJUDGE_SHARD_COUNT";

/// Part `index` (1-based) of `count` equal parts of the records, chosen by question key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shard {
    index: u32,
    count: u32,
}

/// Why a shard specification was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--shard `{spec}`: {reason}")]
pub struct ShardError {
    /// The specification as given.
    pub spec: String,
    /// What is wrong with it.
    pub reason: String,
}

impl Shard {
    /// Shard `index` of `count` (1 <= index <= count).
    pub fn new(index: u32, count: u32) -> Result<Self, ShardError> {
        let err = |reason: String| ShardError { spec: format!("{index}/{count}"), reason };
        if count == 0 {
            return Err(err("the number of shards must be at least 1".into()));
        }
        if index == 0 || index > count {
            return Err(err(format!("the shard number must be between 1 and {count}")));
        }
        Ok(Self { index, count })
    }

    /// Parses `i/n`, e.g. `2/4` (shards are numbered from 1).
    pub fn parse(spec: &str) -> Result<Self, ShardError> {
        let err = |reason: &str| ShardError { spec: spec.to_string(), reason: reason.to_string() };
        let (i, n) = spec.trim().split_once('/').ok_or_else(|| err("expected i/n, e.g. 2/4"))?;
        let i: u32 = i.trim().parse().map_err(|_| err("the shard number `i` of i/n is not a whole number"))?;
        let n: u32 = n.trim().parse().map_err(|_| err("the number of shards `n` of i/n is not a whole number"))?;
        Self::new(i, n).map_err(|e| ShardError { spec: spec.to_string(), reason: e.reason })
    }

    /// The shard a batch scheduler's task is given by the values of [`INDEX_VAR`] (numbered from
    /// 0, as Kubernetes' `JOB_COMPLETION_INDEX` and NeMo Evaluator's `NEL_SHARD_IDX`) and
    /// [`COUNT_VAR`]: `None` when neither is set, an error when only one is or either is not a
    /// whole number in range.
    pub fn from_env_values(index: Option<&str>, count: Option<&str>) -> Result<Option<Self>, ShardError> {
        let spec = format!("{INDEX_VAR}={} {COUNT_VAR}={}", index.unwrap_or(""), count.unwrap_or(""));
        let err = |reason: String| ShardError { spec: spec.clone(), reason };
        let (index, count) = match (index.map(str::trim), count.map(str::trim)) {
            (None, None) => return Ok(None),
            (Some(i), Some(n)) => (i, n),
            _ => return Err(err(format!("set both {INDEX_VAR} and {COUNT_VAR}, or neither"))),
        };
        let whole = |v: &str, name: &str| -> Result<u32, ShardError> {
            v.parse().map_err(|_| err(format!("{name} is not a whole number")))
        };
        let (i, n) = (whole(index, INDEX_VAR)?, whole(count, COUNT_VAR)?);
        if i >= n {
            return Err(err(format!("{INDEX_VAR} counts from 0 and must be below {COUNT_VAR} ({n})")));
        }
        Self::new(i + 1, n).map(Some).map_err(|e| err(e.reason))
    }

    /// The shard number, from 1.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The number of shards.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// The shard (1-based) that question key `key` belongs to among `count` shards: the high bits
    /// of `stable_hash(key) * count` (Lemire's multiply-shift reduction).
    pub fn of(key: &str, count: u32) -> u32 {
        let h = stable_hash(&[key.as_bytes()]);
        ((u128::from(h) * u128::from(count)) >> 64) as u32 + 1
    }

    /// Whether the record with question key `key` (its `id`) belongs to this shard.
    pub fn contains(&self, key: &str) -> bool {
        Self::of(key, self.count) == self.index
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_errors_are_one_line_and_name_the_spec() {
        for (spec, reason) in [
            ("0/4", "the shard number must be between 1 and 4"),
            ("5/4", "the shard number must be between 1 and 4"),
            ("1/0", "the number of shards must be at least 1"),
            ("1", "expected i/n, e.g. 2/4"),
            ("a/4", "the shard number `i` of i/n is not a whole number"),
            ("1/-4", "the number of shards `n` of i/n is not a whole number"),
        ] {
            let e = Shard::parse(spec).unwrap_err().to_string();
            assert_eq!(e, format!("--shard `{spec}`: {reason}"));
        }
        let s = Shard::parse(" 2/4 ").unwrap();
        assert_eq!((s.index(), s.count(), s.to_string()), (2, 4, "2/4".to_string()));
        assert_eq!(Shard::parse("1/1").unwrap().count(), 1);
    }

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        // FNV-1a 64 of "" and "a" (Fowler/Noll/Vo test suite), before the finaliser.
        let raw = |s: &str| {
            let mut h = FNV_OFFSET;
            for &b in s.as_bytes() {
                h ^= u64::from(b);
                h = h.wrapping_mul(FNV_PRIME);
            }
            h
        };
        assert_eq!(raw(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(raw("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(raw("foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(stable_hash(&[b"foobar"]), fmix64(0x8594_4171_f739_67e8));
        assert_eq!(fmix64(0), 0);
        // Parts are separated: ("ab", "c") is not ("a", "bc").
        assert_ne!(stable_hash(&[b"ab", b"c"]), stable_hash(&[b"a", b"bc"]));
    }

    #[test]
    fn every_key_lands_in_exactly_one_shard_and_shards_are_balanced() {
        let n = 4;
        let shards: Vec<Shard> = (1..=n).map(|i| Shard::new(i, n).unwrap()).collect();
        let mut sizes = [0usize; 4];
        for k in 0..100_000 {
            let key = format!("q{k}");
            let hits: Vec<usize> = (0..4).filter(|&s| shards[s].contains(&key)).collect();
            assert_eq!(hits.len(), 1, "{key}");
            sizes[hits[0]] += 1;
        }
        // 25,000 expected per shard; the binomial standard deviation is about 137.
        for s in sizes {
            assert!((s as i64 - 25_000).abs() < 1_000, "{sizes:?}");
        }
        // Short sequential ids (q01..q12) spread too.
        let small: Vec<u32> = (1..=12).map(|k| Shard::of(&format!("q{k:02}"), 4)).collect();
        assert!((1..=4).all(|s| small.contains(&s)), "{small:?}");
    }

    #[test]
    fn scheduler_variables_count_from_zero_and_come_in_pairs() {
        assert_eq!(Shard::from_env_values(None, None), Ok(None));
        assert_eq!(Shard::from_env_values(Some("0"), Some("4")), Ok(Some(Shard::new(1, 4).unwrap())));
        assert_eq!(Shard::from_env_values(Some(" 3 "), Some("4")), Ok(Some(Shard::new(4, 4).unwrap())));
        let e = Shard::from_env_values(Some("4"), Some("4")).unwrap_err();
        assert!(e.reason.contains("counts from 0 and must be below"), "{e}");
        let e = Shard::from_env_values(Some("1"), None).unwrap_err();
        assert!(e.reason.contains("set both"), "{e}");
        assert!(Shard::from_env_values(Some("x"), Some("2")).unwrap_err().reason.contains("not a whole number"));
        assert!(Shard::from_env_values(Some("0"), Some("0")).is_err());
    }
}
