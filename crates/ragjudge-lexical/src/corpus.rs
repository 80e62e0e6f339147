//! Streaming corpus-level accumulation of per-segment sufficient statistics (BLEU, chrF).

/// Per-segment statistics whose corpus value is computed from their sum.
pub trait SegmentStats: Default + Clone {
    /// Adds another segment's (or corpus's) statistics to these.
    fn add(&mut self, other: &Self);
}

/// Sums segment statistics, so memory does not grow with the corpus.
#[derive(Debug, Clone, Default)]
pub struct Corpus<S> {
    stats: S,
    segments: u64,
}

impl<S: SegmentStats> Corpus<S> {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self { stats: S::default(), segments: 0 }
    }

    /// Adds precomputed segment statistics (for example from another thread).
    pub fn add_stats(&mut self, stats: &S) {
        self.stats.add(stats);
        self.segments += 1;
    }

    /// Merges another accumulator into this one.
    pub fn merge(&mut self, other: &Corpus<S>) {
        self.stats.add(&other.stats);
        self.segments += other.segments;
    }

    /// Number of segments added.
    pub fn len(&self) -> u64 {
        self.segments
    }

    /// Whether no segment was added.
    pub fn is_empty(&self) -> bool {
        self.segments == 0
    }

    /// The summed statistics.
    pub fn stats(&self) -> &S {
        &self.stats
    }
}
