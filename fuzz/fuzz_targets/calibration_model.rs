#![no_main]
//! A calibrator file (`calibrate --apply`), read, checked and applied to a few rows.

use libfuzzer_sys::fuzz_target;
use ragjudge_stats::calibration::FittedCalibration;

fuzz_target!(|data: &[u8]| {
    let Ok(saved) = serde_json::from_slice::<FittedCalibration>(data) else { return };
    if saved.check().is_err() {
        return;
    }
    let n = saved.score_columns.len();
    for x in [0.0, 0.5, 1.0, -1e300, 1e300] {
        if let Ok(c) = saved.apply(&vec![x; n]) {
            for set in &c.sets {
                for &k in set {
                    // The command prints each level's label: every index must name one.
                    assert!(k < saved.labels.len(), "level {k} of {} labels", saved.labels.len());
                }
            }
        }
    }
});
