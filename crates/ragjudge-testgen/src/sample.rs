//! Stratified sampling of chunks (HCAT section 2, step 4): a total split over strata in
//! proportion to their sizes, equally, or by given weights, with a minimum per stratum (capped by
//! the stratum's size), by largest remainders; the members of each stratum are then drawn
//! without replacement by a seeded generator.

use std::collections::BTreeMap;

use rand::seq::index::sample;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::error::TestgenError;

/// How the total is split over strata.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Allocation {
    /// In proportion to each stratum's size.
    Proportional,
    /// The same number from every stratum.
    Equal,
    /// In proportion to a weight per stratum (strata without a weight get none beyond the minimum).
    Weights(BTreeMap<String, f64>),
}

/// Sampling settings.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SampleOptions {
    /// Chunks to draw in all.
    pub total: usize,
    /// How to split them.
    pub allocation: Allocation,
    /// At least this many from every stratum (or all of a smaller one).
    pub min_per_stratum: usize,
    /// Seed of the draw.
    pub seed: u64,
}

impl Default for SampleOptions {
    fn default() -> Self {
        Self { total: 24, allocation: Allocation::Proportional, min_per_stratum: 1, seed: 0 }
    }
}

/// What was drawn.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sample {
    /// Indices of the drawn items, ascending.
    pub indices: Vec<usize>,
    /// Stratum name -> (size, drawn).
    pub per_stratum: BTreeMap<String, (usize, usize)>,
}

/// How many to draw from each stratum of the given `sizes`, summing to `min(total, sum(sizes))`.
pub fn allocate(
    sizes: &BTreeMap<String, usize>,
    options: &SampleOptions,
) -> Result<BTreeMap<String, usize>, TestgenError> {
    let available: usize = sizes.values().sum();
    let total = options.total.min(available);
    let mut take: BTreeMap<String, usize> =
        sizes.iter().map(|(s, &n)| (s.clone(), options.min_per_stratum.min(n))).collect();
    let floor: usize = take.values().sum();
    if floor > total {
        return Err(TestgenError::Settings(format!(
            "a minimum of {} per stratum over {} strata needs {floor} chunks, more than the {total} requested",
            options.min_per_stratum,
            sizes.len()
        )));
    }
    let weight = |s: &str, n: usize| -> f64 {
        match &options.allocation {
            Allocation::Proportional => n as f64,
            Allocation::Equal => 1.0,
            Allocation::Weights(w) => w.get(s).copied().unwrap_or(0.0).max(0.0),
        }
    };
    // Hand out the rest by largest remainder, repeatedly, since a stratum can run out.
    let mut rest = total - floor;
    while rest > 0 {
        let open: Vec<(&String, f64)> = sizes
            .iter()
            .filter(|(s, &n)| take[*s] < n)
            .map(|(s, &n)| (s, weight(s, n)))
            .filter(|(_, w)| *w > 0.0)
            .collect();
        let wsum: f64 = open.iter().map(|(_, w)| w).sum();
        if open.is_empty() || wsum <= 0.0 {
            break;
        }
        let mut shares: Vec<(&String, usize, f64)> = open
            .iter()
            .map(|(s, w)| {
                let exact = rest as f64 * w / wsum;
                let room = sizes[*s] - take[*s];
                let whole = (exact.floor() as usize).min(room);
                (*s, whole, if whole < room { exact - exact.floor() } else { -1.0 })
            })
            .collect();
        let mut given: usize = shares.iter().map(|x| x.1).sum();
        shares.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| a.0.cmp(b.0)));
        for share in shares.iter_mut() {
            if given >= rest {
                break;
            }
            if share.2 >= 0.0 {
                share.1 += 1;
                given += 1;
            }
        }
        if given == 0 {
            break;
        }
        #[allow(clippy::expect_used, reason = "the shares are made from the strata of `take`")]
        for (s, n, _) in shares {
            *take.get_mut(s).expect("stratum known") += n;
        }
        rest -= given.min(rest);
    }
    Ok(take)
}

/// Draws from items labelled by stratum (`strata[i]` is item i's stratum).
pub fn stratified_sample(strata: &[String], options: &SampleOptions) -> Result<Sample, TestgenError> {
    let mut members: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, s) in strata.iter().enumerate() {
        members.entry(s.clone()).or_default().push(i);
    }
    let sizes: BTreeMap<String, usize> = members.iter().map(|(s, m)| (s.clone(), m.len())).collect();
    let take = allocate(&sizes, options)?;
    let mut indices = Vec::new();
    let mut per_stratum = BTreeMap::new();
    for (k, (s, m)) in members.iter().enumerate() {
        let n = take[s];
        // One generator per stratum, seeded by the seed and the stratum's position, so that one
        // stratum's draw does not depend on another's size.
        let mut rng =
            ChaCha8Rng::seed_from_u64(options.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(k as u64));
        indices.extend(sample(&mut rng, m.len(), n).into_iter().map(|j| m[j]));
        per_stratum.insert(s.clone(), (m.len(), n));
    }
    indices.sort_unstable();
    Ok(Sample { indices, per_stratum })
}

#[cfg(test)]
mod tests;
