//! Spans arriving over time (a server's `/v1/traces`) gathered into whole traces.
//!
//! Exporters send a trace's spans in several batches, children usually before their root (a
//! span is exported when it ends). A trace is complete when its root has arrived and no span of
//! it has come for `settle`; one whose root never comes is taken as it is after `max_wait`. At
//! most `max_traces` wait at once: beyond, the oldest is taken early (counted as evicted).

use crate::span::Span;
use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

#[derive(Debug)]
struct Pending {
    spans: Vec<Span>,
    first: Instant,
    last: Instant,
    has_root: bool,
}

/// Traces waiting for their last spans.
#[derive(Debug)]
pub struct Assembler {
    pending: HashMap<String, Pending>,
    /// Trace ids in arrival order of their first span.
    order: VecDeque<String>,
    settle: Duration,
    max_wait: Duration,
    max_traces: usize,
    evicted: u64,
}

impl Assembler {
    /// An empty assembler.
    pub fn new(settle: Duration, max_wait: Duration, max_traces: usize) -> Self {
        Assembler {
            pending: HashMap::new(),
            order: VecDeque::new(),
            settle,
            max_wait,
            max_traces: max_traces.max(1),
            evicted: 0,
        }
    }

    /// Adds a span received at `now`; returns a trace taken early to keep the bound, if any.
    pub fn add(&mut self, span: Span, now: Instant) -> Option<Vec<Span>> {
        let root = span.parent_id.is_none();
        if let Some(p) = self.pending.get_mut(&span.trace_id) {
            p.last = now;
            p.has_root |= root;
            p.spans.push(span);
            return None;
        }
        let mut early = None;
        if self.pending.len() >= self.max_traces {
            while let Some(old) = self.order.pop_front() {
                if let Some(p) = self.pending.remove(&old) {
                    self.evicted += 1;
                    early = Some(p.spans);
                    break;
                }
            }
        }
        self.order.push_back(span.trace_id.clone());
        self.pending
            .insert(span.trace_id.clone(), Pending { first: now, last: now, has_root: root, spans: vec![span] });
        early
    }

    /// The traces complete at `now`, in arrival order.
    pub fn ready(&mut self, now: Instant) -> Vec<Vec<Span>> {
        let done = |p: &Pending| {
            (p.has_root && now.duration_since(p.last) >= self.settle) || now.duration_since(p.first) >= self.max_wait
        };
        let mut out = Vec::new();
        let pending = &mut self.pending;
        self.order.retain(|id| match pending.get(id) {
            Some(p) if done(p) => {
                if let Some(p) = pending.remove(id) {
                    out.push(p.spans);
                }
                false
            }
            Some(_) => true,
            None => false,
        });
        out
    }

    /// Every trace still waiting (at shutdown), in arrival order.
    pub fn drain(&mut self) -> Vec<Vec<Span>> {
        let mut out = Vec::new();
        for id in self.order.drain(..) {
            if let Some(p) = self.pending.remove(&id) {
                out.push(p.spans);
            }
        }
        out
    }

    /// Traces waiting.
    pub fn waiting(&self) -> usize {
        self.pending.len()
    }

    /// Traces taken early to keep the bound, so far.
    pub fn evicted(&self) -> u64 {
        self.evicted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(trace: &str, id: &str, parent: Option<&str>) -> Span {
        Span { trace_id: trace.into(), span_id: id.into(), parent_id: parent.map(str::to_string), ..Span::default() }
    }

    #[test]
    fn a_trace_is_ready_once_its_root_came_and_it_settled() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut a = Assembler::new(ms(100), ms(1000), 10);
        a.add(span("t", "child", Some("root")), t0);
        assert!(a.ready(t0 + ms(500)).is_empty(), "no root yet");
        a.add(span("t", "root", None), t0 + ms(500));
        assert!(a.ready(t0 + ms(550)).is_empty(), "not settled");
        let ready = a.ready(t0 + ms(600));
        assert_eq!(ready.len(), 1);
        assert_eq!(ready[0].len(), 2);
        assert_eq!(a.waiting(), 0);
    }

    #[test]
    fn a_rootless_trace_is_taken_after_max_wait_and_the_bound_holds() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut a = Assembler::new(ms(100), ms(1000), 2);
        a.add(span("a", "1", Some("x")), t0);
        assert!(a.ready(t0 + ms(999)).is_empty());
        assert_eq!(a.ready(t0 + ms(1000)).len(), 1);
        a.add(span("b", "1", Some("x")), t0);
        a.add(span("c", "1", Some("x")), t0);
        let early = a.add(span("d", "1", Some("x")), t0).unwrap();
        assert_eq!(early[0].trace_id, "b");
        assert_eq!((a.waiting(), a.evicted()), (2, 1));
        let rest: Vec<String> = a.drain().into_iter().map(|s| s[0].trace_id.clone()).collect();
        assert_eq!(rest, ["c", "d"]);
    }
}
