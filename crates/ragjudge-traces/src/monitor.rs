//! Online monitoring of scored traffic: rolling windows per group (system, model, route) and
//! metric column, with two alerts:
//!
//! - **shift** against the group's own baseline (its first `baseline` scores): Page's one-sided
//!   CUSUM for a fall of the mean (Page 1954, "Continuous inspection schemes"; Montgomery,
//!   *Introduction to Statistical Quality Control*, §9.1): with the baseline's mean μ₀ and
//!   standard deviation σ₀, `S = max(0, S + min((μ₀ − x)/σ₀, c) − k)` after each score x, an alert when
//!   `S > h`, then `S` starts again from 0 and the next `window` scores raise no second shift
//!   alert (one alert per episode, not one per score while the fall lasts). The defaults `k = 0.5`,
//!   `h = 10` are set for traffic, where scores are many: by Siegmund's approximation of the
//!   average run length, a false alarm comes about every 141,000 scores of an unchanged stream
//!   (ARL₀; `h = 5`, the textbook choice, gives one every ~930 scores, i.e. every few seconds at
//!   production volume) and a fall of one standard deviation is caught after about 20 scores
//!   (ARL₁; 10 with `h = 5`).
//! - **floor**: the window's mean falls below a fixed value (`--alert-below COLUMN=VALUE`);
//!   edge-triggered, re-armed when the mean is back above.
//!
//! Each score's deviation is capped at `c` = [`MAX_DEVIATION`] = 3 baseline deviations (a
//! winsorised CUSUM, in the spirit of Lucas & Crosier 1982, "Robust CUSUM"): one outlying answer
//! among thousands cannot raise an alert alone (with `h = 10`, at least four in a row are needed),
//! while a sustained fall accumulates as before.
//!
//! σ₀ is floored at 1% of |μ₀| ([`RELATIVE_SIGMA`]) and at [`MIN_SIGMA`], so that a baseline
//! that barely varies (a deterministic pipeline, near-identical traffic) does not turn a change in
//! the third decimal into an alert. A missing value (metric not applicable or failed) is not a score and is skipped.

use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};

/// Smallest baseline standard deviation used by the CUSUM.
pub const MIN_SIGMA: f64 = 1e-3;

/// Smallest baseline standard deviation used by the CUSUM, as a share of the baseline's |mean|.
pub const RELATIVE_SIGMA: f64 = 0.01;

/// Largest deviation of one score the CUSUM adds, in baseline standard deviations.
pub const MAX_DEVIATION: f64 = 3.0;

/// What to watch and when to alert.
#[derive(Debug, Clone, PartialEq)]
pub struct DriftSettings {
    /// Scores per rolling window.
    pub window: usize,
    /// Scores of each group and column that make its baseline (no shift alert before).
    pub baseline: usize,
    /// CUSUM reference value, in baseline standard deviations.
    pub k: f64,
    /// CUSUM decision threshold, in baseline standard deviations.
    pub h: f64,
    /// Floors: an alert when a window's mean of the column is below the value.
    pub floors: Vec<(String, f64)>,
    /// Columns watched (`None`: every column).
    pub columns: Option<Vec<String>>,
}

impl Default for DriftSettings {
    fn default() -> Self {
        DriftSettings { window: 50, baseline: 100, k: 0.5, h: 10.0, floors: Vec::new(), columns: None }
    }
}

impl DriftSettings {
    /// Fails on a setting that cannot work.
    pub fn check(&self) -> Result<(), String> {
        if self.window == 0 {
            return Err("--drift-window must be at least 1".into());
        }
        if self.baseline < 2 {
            return Err("--drift-baseline must be at least 2 (a standard deviation needs two scores)".into());
        }
        if !(self.k >= 0.0 && self.k.is_finite() && self.h > 0.0 && self.h.is_finite()) {
            return Err(format!("--drift-k must be >= 0 and --drift-h > 0, got k {} and h {}", self.k, self.h));
        }
        Ok(())
    }

    fn watches(&self, column: &str) -> bool {
        self.columns.as_ref().is_none_or(|c| c.iter().any(|x| x == column))
    }
}

/// The group a record is monitored in.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct GroupKey {
    /// The record's system.
    pub system: String,
    /// `meta.model` (empty when absent).
    pub model: String,
    /// `meta.route` (empty when absent).
    pub route: String,
}

/// Why an alert fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AlertKind {
    /// The CUSUM statistic crossed `h`.
    Shift,
    /// The window's mean fell below the floor.
    Floor,
}

/// One alert.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Alert {
    /// Why.
    pub kind: AlertKind,
    /// Where.
    #[serde(flatten)]
    pub group: GroupKey,
    /// The metric column.
    pub column: String,
    /// Mean of the current window.
    pub window_mean: f64,
    /// Mean of the baseline (NaN-free: `None` while the baseline fills).
    pub baseline_mean: Option<f64>,
    /// The CUSUM statistic (shift) or the floor (floor).
    pub statistic: f64,
    /// `h` (shift) or the floor value (floor).
    pub threshold: f64,
    /// Scores of this group and column seen so far, this one included.
    pub scores: u64,
}

/// The state of one group and column, as `/metrics` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WindowStat {
    /// Where.
    #[serde(flatten)]
    pub group: GroupKey,
    /// The metric column.
    pub column: String,
    /// Scores seen.
    pub scores: u64,
    /// Mean of the current window.
    pub window_mean: f64,
    /// Baseline mean, once the baseline is complete.
    pub baseline_mean: Option<f64>,
    /// The CUSUM statistic.
    pub cusum: f64,
    /// Alerts raised.
    pub alerts: u64,
}

#[derive(Debug, Default)]
struct Column {
    scores: u64,
    window: VecDeque<f64>,
    window_sum: f64,
    /// Baseline scores while it fills; then its mean and standard deviation.
    filling: Vec<f64>,
    baseline: Option<(f64, f64)>,
    cusum: f64,
    /// Scores left before another shift alert may fire.
    cooldown: usize,
    below_floor: bool,
    alerts: u64,
}

/// Windows, baselines and CUSUM statistics of every group and column.
#[derive(Debug)]
pub struct Monitor {
    settings: DriftSettings,
    columns: BTreeMap<(GroupKey, String), Column>,
}

impl Monitor {
    /// A monitor with nothing seen.
    pub fn new(settings: DriftSettings) -> Self {
        Monitor { settings, columns: BTreeMap::new() }
    }

    /// Adds one score; returns the alerts it raises.
    pub fn observe(&mut self, group: &GroupKey, column: &str, x: f64) -> Vec<Alert> {
        let mut alerts = Vec::new();
        if !x.is_finite() || !self.settings.watches(column) {
            return alerts;
        }
        let s = &self.settings;
        let c = self.columns.entry((group.clone(), column.to_string())).or_default();
        c.scores += 1;
        c.window.push_back(x);
        c.window_sum += x;
        if c.window.len() > s.window {
            c.window_sum -= c.window.pop_front().unwrap_or(0.0);
        }
        let window_mean = c.window_sum / c.window.len() as f64;
        let alert = |kind, c: &Column, statistic, threshold| Alert {
            kind,
            group: group.clone(),
            column: column.to_string(),
            window_mean,
            baseline_mean: c.baseline.map(|b| b.0),
            statistic,
            threshold,
            scores: c.scores,
        };
        match c.baseline {
            None => {
                c.filling.push(x);
                if c.filling.len() >= s.baseline {
                    c.baseline = Some(mean_sd(&c.filling));
                    c.filling = Vec::new();
                }
            }
            Some((mu, sd)) => {
                let sd = sd.max(RELATIVE_SIGMA * mu.abs()).max(MIN_SIGMA);
                c.cusum = (c.cusum + ((mu - x) / sd).min(MAX_DEVIATION) - s.k).max(0.0);
                if c.cooldown > 0 {
                    c.cooldown -= 1;
                } else if c.cusum > s.h {
                    c.alerts += 1;
                    alerts.push(alert(AlertKind::Shift, c, c.cusum, s.h));
                    c.cusum = 0.0;
                    c.cooldown = s.window;
                }
            }
        }
        if let Some((_, floor)) = s.floors.iter().find(|(name, _)| name == column) {
            let full = c.window.len() >= s.window;
            if full && window_mean < *floor && !c.below_floor {
                c.below_floor = true;
                c.alerts += 1;
                alerts.push(alert(AlertKind::Floor, c, window_mean, *floor));
            } else if window_mean >= *floor {
                c.below_floor = false;
            }
        }
        alerts
    }

    /// Every group and column, in order.
    pub fn stats(&self) -> Vec<WindowStat> {
        self.columns
            .iter()
            .map(|((group, column), c)| WindowStat {
                group: group.clone(),
                column: column.clone(),
                scores: c.scores,
                window_mean: if c.window.is_empty() { 0.0 } else { c.window_sum / c.window.len() as f64 },
                baseline_mean: c.baseline.map(|b| b.0),
                cusum: c.cusum,
                alerts: c.alerts,
            })
            .collect()
    }
}

/// Mean and sample standard deviation (n − 1).
fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> GroupKey {
        GroupKey { system: "s".into(), model: "m".into(), route: String::new() }
    }

    #[test]
    fn cusum_by_hand() {
        // Baseline 1, 3: mean 2, sd sqrt(2). k = 0.5, h = 1.
        let mut m = Monitor::new(DriftSettings { window: 3, baseline: 2, h: 1.0, ..Default::default() });
        assert!(m.observe(&key(), "g", 1.0).is_empty());
        assert!(m.observe(&key(), "g", 3.0).is_empty());
        // x = 2: S = max(0, 0 + 0 - 0.5) = 0.
        assert!(m.observe(&key(), "g", 2.0).is_empty());
        assert_eq!(m.stats()[0].cusum, 0.0);
        // x = 1: S = (2 - 1)/sqrt(2) - 0.5 = 0.2071...
        assert!(m.observe(&key(), "g", 1.0).is_empty());
        let s1 = 1.0 / 2f64.sqrt() - 0.5;
        assert!((m.stats()[0].cusum - s1).abs() < 1e-12);
        // x = 0: S = s1 + 2/sqrt(2) - 0.5 = 1.1213... > 1: alert, then S = 0.
        let a = m.observe(&key(), "g", 0.0);
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].kind, AlertKind::Shift);
        assert!((a[0].statistic - (s1 + 2f64.sqrt() - 0.5)).abs() < 1e-12);
        assert_eq!(a[0].baseline_mean, Some(2.0));
        // Window of 3: 2, 1, 0.
        assert_eq!(a[0].window_mean, 1.0);
        assert_eq!(a[0].scores, 5);
        assert_eq!(m.stats()[0].cusum, 0.0);
        assert_eq!(m.stats()[0].alerts, 1);
        // The fall goes on: S = 1.4142 - 0.5 = 0.914, then 1.828 > 1, but within the next
        // `window` (3) scores no second alert; the third score after the alert may fire again.
        assert!(m.observe(&key(), "g", 0.0).is_empty());
        assert!(m.observe(&key(), "g", 0.0).is_empty());
        assert!(m.observe(&key(), "g", 0.0).is_empty());
        assert_eq!(m.observe(&key(), "g", 0.0).len(), 1);
    }

    #[test]
    fn floors_are_edge_triggered_once_the_window_is_full() {
        let settings =
            DriftSettings { window: 2, baseline: 100, floors: vec![("g".into(), 0.5)], ..Default::default() };
        let mut m = Monitor::new(settings);
        assert!(m.observe(&key(), "g", 0.1).is_empty(), "window not full");
        assert_eq!(m.observe(&key(), "g", 0.2)[0].kind, AlertKind::Floor);
        assert!(m.observe(&key(), "g", 0.1).is_empty(), "still below: no second alert");
        assert!(m.observe(&key(), "g", 0.95).is_empty(), "mean 0.525: re-armed");
        assert_eq!(m.observe(&key(), "g", 0.0).len(), 1);
        assert!(m.observe(&key(), "other", 0.0).is_empty());
    }

    #[test]
    fn groups_and_columns_are_separate_and_unwatched_columns_ignored() {
        let settings = DriftSettings { columns: Some(vec!["g".into()]), ..Default::default() };
        let mut m = Monitor::new(settings);
        let other = GroupKey { system: "t".into(), ..key() };
        m.observe(&key(), "g", 1.0);
        m.observe(&other, "g", 0.0);
        m.observe(&key(), "ciu", 0.3);
        m.observe(&key(), "g", f64::NAN);
        let stats = m.stats();
        assert_eq!(stats.len(), 2);
        assert_eq!((stats[0].window_mean, stats[1].window_mean), (1.0, 0.0));
    }

    #[test]
    fn an_unchanged_stream_rarely_alerts_and_a_fall_is_caught() {
        // A deterministic pseudo-normal stream (sum of 12 uniforms - 6) from a fixed LCG.
        let mut state = 12345u64;
        let mut normal = || {
            let mut s = 0.0;
            for _ in 0..12 {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                s += (state >> 11) as f64 / (1u64 << 53) as f64;
            }
            s - 6.0
        };
        let mut m = Monitor::new(DriftSettings::default());
        let mut false_alarms = 0;
        for _ in 0..1000 {
            false_alarms += m.observe(&key(), "g", 0.7 + 0.1 * normal()).len();
        }
        // ARL0 ~ 141,000 scores for k 0.5, h 10.
        assert!(false_alarms <= 1, "{false_alarms}");
        let mut delay = None;
        for i in 1..=100 {
            if !m.observe(&key(), "g", 0.6 + 0.1 * normal()).is_empty() {
                delay = Some(i);
                break;
            }
        }
        // A fall of one sd: ARL1 ~ 20 scores.
        let delay = delay.unwrap();
        assert!(delay <= 50, "{delay}");
    }

    #[test]
    fn a_baseline_that_barely_varies_alerts_on_real_falls_only() {
        // Baseline mean 2.4, sd ~0.0006: below 1% of the mean (0.024), which is used instead.
        let mut m = Monitor::new(DriftSettings { window: 5, baseline: 4, h: 10.0, ..Default::default() });
        for x in [2.4004, 2.4, 2.3996, 2.4] {
            m.observe(&key(), "ciu", x);
        }
        // 2.3945: (2.4 - 2.3945)/0.024 - 0.5 < 0, however often.
        for _ in 0..1000 {
            assert!(m.observe(&key(), "ciu", 2.3945).is_empty());
        }
        // 2.0: z = 0.4/0.024 = 16.7, capped at 3: S = 2.5, 5, 7.5, 10, 12.5: the fifth in a row alerts.
        for _ in 0..4 {
            assert!(m.observe(&key(), "ciu", 2.0).is_empty());
        }
        let a = m.observe(&key(), "ciu", 2.0);
        assert_eq!(a.len(), 1);
        assert!((a[0].statistic - 12.5).abs() < 1e-12, "{}", a[0].statistic);
    }

    #[test]
    fn one_outlier_cannot_alert_alone() {
        let mut m = Monitor::new(DriftSettings { window: 5, baseline: 4, h: 10.0, ..Default::default() });
        for x in [1.0, 0.9, 1.1, 1.0] {
            m.observe(&key(), "g", x);
        }
        // An answer scoring 100 deviations low adds at most 3 - k = 2.5; normal scores wear it off.
        for _ in 0..50 {
            assert!(m.observe(&key(), "g", -7.0).is_empty());
            for _ in 0..5 {
                assert!(m.observe(&key(), "g", 1.0).is_empty());
            }
        }
    }

    #[test]
    fn settings_are_checked() {
        assert!(DriftSettings { window: 0, ..Default::default() }.check().is_err());
        assert!(DriftSettings { baseline: 1, ..Default::default() }.check().is_err());
        assert!(DriftSettings { h: 0.0, ..Default::default() }.check().is_err());
        assert!(DriftSettings::default().check().is_ok());
    }
}
