//! Labels for the tests of this crate.

use crate::store::{HumanLabel, LabelValue};
use crate::task::TaskKey;
use ragjudge_dice::labels::Label;

/// `annotator`'s label `value` of `task`, given at time 0 with nothing else recorded.
pub fn label(annotator: &str, task: TaskKey, value: LabelValue) -> HumanLabel {
    HumanLabel {
        annotator: annotator.into(),
        task,
        value,
        note: None,
        shown_left: None,
        verdict_seen: false,
        seconds: None,
        time: 0,
    }
}

/// `annotator`'s pairwise label of systems S1 and S2 on question `id`.
pub fn pair(annotator: &str, id: &str, l: Label, strength: u8) -> HumanLabel {
    label(annotator, TaskKey::pair(id, "S1", "S2"), LabelValue::Pairwise { label: l, strength })
}
