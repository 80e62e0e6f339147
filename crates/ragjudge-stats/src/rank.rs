//! Ranking with ties.

use std::cmp::Ordering;

/// Total order on `f64` that treats `-0.0` and `0.0` as equal (unlike
/// [`f64::total_cmp`]) and puts NaN after every number.
pub fn cmp_f64(a: f64, b: f64) -> Ordering {
    (a + 0.0).total_cmp(&(b + 0.0))
}

/// Ranks `values` from 1 to n, giving tied values the average of the ranks they span.
///
/// Matches `scipy.stats.rankdata(values, method="average")`: for `[10, 20, 20, 30]` the
/// ranks are `[1, 2.5, 2.5, 4]`. Values are ordered by [`cmp_f64`], so `-0.0` ties with
/// `0.0` and a NaN ranks after every number (scipy would return all-NaN ranks instead);
/// callers that need scipy's NaN behaviour must filter first.
pub fn rankdata_average(values: &[f64]) -> Vec<f64> {
    let n = values.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| cmp_f64(values[a], values[b]));
    let mut ranks = vec![0.0; n];
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        while end < n && cmp_f64(values[order[end]], values[order[start]]).is_eq() {
            end += 1;
        }
        // Positions start..end (0-based) hold ranks start+1..=end; their mean:
        let rank = (start + 1 + end) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = rank;
        }
        start = end;
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_get_average_ranks() {
        assert_eq!(rankdata_average(&[10.0, 20.0, 20.0, 30.0]), vec![1.0, 2.5, 2.5, 4.0]);
    }

    #[test]
    fn signed_zeros_tie() {
        assert_eq!(rankdata_average(&[0.0, -0.0, 1.0]), vec![1.5, 1.5, 3.0]);
    }

    #[test]
    fn all_tied_and_empty() {
        assert_eq!(rankdata_average(&[7.0, 7.0, 7.0]), vec![2.0, 2.0, 2.0]);
        assert!(rankdata_average(&[]).is_empty());
    }

    #[test]
    fn unsorted_input_keeps_positions() {
        // By hand: sorted 1,1,3,4,5 -> ranks 1.5,1.5,3,4,5.
        assert_eq!(rankdata_average(&[3.0, 1.0, 4.0, 1.0, 5.0]), vec![3.0, 1.5, 4.0, 1.5, 5.0]);
    }
}
