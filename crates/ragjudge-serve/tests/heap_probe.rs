//! A registered heap probe appears in `/metrics` as a gauge (its own test binary: the probe is
//! process-wide and set once).

use ragjudge_serve::{set_heap_probe, ServerMetrics};

#[test]
fn a_registered_heap_probe_is_rendered_as_a_gauge() {
    let m = ServerMetrics::default();
    assert!(!m.render(&[]).contains("ragjudge_heap_allocated_bytes"), "no probe, no gauge");
    set_heap_probe(|| Some(123_456));
    let text = m.render(&[]);
    assert!(text.contains("# TYPE ragjudge_heap_allocated_bytes gauge\n"), "{text}");
    assert!(text.contains("\nragjudge_heap_allocated_bytes 123456\n"), "{text}");
    // A probe is registered once: a second one is ignored.
    set_heap_probe(|| Some(1));
    assert!(m.render(&[]).contains("\nragjudge_heap_allocated_bytes 123456\n"));
}
