//! [`StrataTable`]: the rows of a weakness analysis held compactly, each system and stratum name
//! stored once and every row as small integer codes (4 bytes for the system and 4 per
//! dimension), so that a million scored rows fit in a few tens of megabytes.

use super::WeaknessError;
use std::collections::HashMap;

/// Marks a row without a stratum in a dimension.
pub(super) const NONE: u32 = u32::MAX;

/// Distinct names, each with its code (the order of first appearance).
#[derive(Debug, Clone, Default)]
pub(super) struct Names {
    pub(super) names: Vec<String>,
    index: HashMap<String, u32>,
}

impl Names {
    fn code(&mut self, name: &str) -> Result<u32, WeaknessError> {
        if let Some(&c) = self.index.get(name) {
            return Ok(c);
        }
        let c = u32::try_from(self.names.len())
            .ok()
            .filter(|&c| c < NONE)
            .ok_or_else(|| WeaknessError::Settings("more than 4 billion distinct names".into()))?;
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), c);
        Ok(c)
    }
}

/// Systems and strata of scored rows, row by row; the metric values are given apart (one slice
/// per metric, see [`super::analyse_table`]).
#[derive(Debug, Clone)]
pub struct StrataTable {
    width: usize,
    pub(super) systems: Names,
    pub(super) levels: Vec<Names>,
    pub(super) system: Vec<u32>,
    /// Row-major: the strata of row `i` are `strata[i * width..(i + 1) * width]`.
    pub(super) strata: Vec<u32>,
}

impl StrataTable {
    /// An empty table with `width` strata dimensions.
    pub fn new(width: usize) -> Self {
        Self {
            width,
            systems: Names::default(),
            levels: vec![Names::default(); width],
            system: Vec::new(),
            strata: Vec::new(),
        }
    }

    /// Appends a row: its system and its stratum in each dimension (`None`: none there).
    ///
    /// # Errors
    /// [`WeaknessError::Width`] when `strata` does not have one entry per dimension.
    pub fn push(&mut self, system: &str, strata: &[Option<&str>]) -> Result<(), WeaknessError> {
        if strata.len() != self.width {
            return Err(WeaknessError::Width { got: strata.len(), want: self.width });
        }
        self.system.push(self.systems.code(system)?);
        for (names, s) in self.levels.iter_mut().zip(strata) {
            self.strata.push(match s {
                Some(s) => names.code(s)?,
                None => NONE,
            });
        }
        Ok(())
    }

    /// Rows.
    pub fn len(&self) -> usize {
        self.system.len()
    }

    /// Whether the table has no row.
    pub fn is_empty(&self) -> bool {
        self.system.is_empty()
    }

    /// Strata dimensions.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Row `row`'s system.
    pub fn system(&self, row: usize) -> &str {
        &self.systems.names[self.system[row] as usize]
    }

    /// Row `row`'s stratum in dimension `dim`.
    pub fn stratum(&self, row: usize, dim: usize) -> Option<&str> {
        let c = self.level(row, dim);
        (c != NONE).then(|| self.levels[dim].names[c as usize].as_str())
    }

    /// The code of row `row`'s stratum in dimension `dim` ([`NONE`] without one).
    pub(super) fn level(&self, row: usize, dim: usize) -> u32 {
        self.strata[row * self.width + dim]
    }
}
