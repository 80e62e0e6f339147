//! The key figures of artifacts without a section of their own (judge meta-evaluation, bias
//! probes, test generation, calibrators, shard manifests, column definitions): one table each,
//! as `ragjudge gate` reads them.

use super::page::esc;
use super::sections::{summary_table, Ctx};
use crate::inputs::Input;
use std::fmt::Write as _;

/// One table per artifact, headed by what it is and its file.
pub(super) fn figures(ctx: &mut Ctx<'_>) -> String {
    let mut s = String::new();
    for l in &ctx.inputs.loaded {
        let Input::Figures(f) = &l.input else { continue };
        if f.test_set.is_some() {
            continue; // in the test-set section
        }
        let _ = write!(
            s,
            "<h3>{} <span class=\"muted\"><code>{}</code></span></h3>",
            esc(l.input.kind()),
            esc(&l.path.display().to_string())
        );
        s.push_str(&summary_table(&f.table, ["subject", "items", "failed"]));
    }
    if !s.is_empty() {
        s.insert_str(
            0,
            "<p class=\"muted\">Each figure as the file holds it; the names are what <code>ragjudge gate --min/--max</code> checks, the subjects what <code>--system</code> picks.</p>",
        );
    }
    s
}
