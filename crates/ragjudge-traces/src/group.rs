//! Spans to records: one record per trace (the question, the answer, the passages retrieved,
//! the agent's steps), conversations by session (earlier turns become `history`).
//!
//! Rules, in order of preference:
//! - **question**: the root span's input (when the root is not a model call); else the last user
//!   message of the first model call; else the first retrieval's query;
//! - **answer**: the root span's output (when the root is not a model call); else the last
//!   assistant message of the model call that ended last;
//! - **passages**: the last re-ranker's output when a re-ranker ran, else every retrieval's
//!   passages in order, repeated ids (or texts) kept once;
//! - **history**: the answering model call's messages before its last user message (system and
//!   tool messages left out); when that is empty, the earlier traces of the same session (by
//!   start time) as user / assistant turns;
//! - **steps**: retrievals, re-rankings, tool calls, model calls and agents below the root, in
//!   the order they started.

use crate::error::Issue;
use crate::span::{Message, Span, SpanKind};
use ragjudge_core::{Context, Record, Step, Turn};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet, VecDeque};

/// Records built from spans, with what was left out.
#[derive(Debug, Default)]
pub struct Grouped {
    /// One record per trace that had a question and an answer, in start order.
    pub records: Vec<Record>,
    /// Traces left out, with the reason.
    pub issues: Vec<Issue>,
    /// Distinct sessions among the records.
    pub sessions: usize,
    /// Spans seen more than once (same trace and span id: a file read twice, an exporter's
    /// retry); the first copy is kept.
    pub duplicate_spans: usize,
}

/// Groups spans by trace into records; `system` names the system (default: the root's service,
/// else `traces`).
pub fn records_from_spans(spans: Vec<Span>, system: Option<&str>) -> Grouped {
    records_with_sessions(spans, system, &mut Sessions::new(usize::MAX))
}

/// As [`records_from_spans`], with conversations remembered across calls in `sessions` (a
/// server that sees one trace at a time).
pub fn records_with_sessions(spans: Vec<Span>, system: Option<&str>, sessions: &mut Sessions) -> Grouped {
    let mut order: Vec<String> = Vec::new();
    let mut by_trace: HashMap<String, Vec<Span>> = HashMap::new();
    let mut seen = HashSet::new();
    let mut duplicate_spans = 0;
    for s in spans {
        if !seen.insert((s.trace_id.clone(), s.span_id.clone())) {
            duplicate_spans += 1;
            continue;
        }
        if !by_trace.contains_key(&s.trace_id) {
            order.push(s.trace_id.clone());
        }
        by_trace.entry(s.trace_id.clone()).or_default().push(s);
    }
    let mut built: Vec<(u64, Record)> = Vec::new();
    let mut issues = Vec::new();
    for trace_id in order {
        let Some(mut spans) = by_trace.remove(&trace_id) else { continue };
        spans.sort_by_key(|s| s.start_ns);
        match record_of(&trace_id, &spans, system) {
            Ok(r) => built.push((spans[0].start_ns, r)),
            Err(message) => issues.push(Issue { trace_id, span_id: None, name: None, message }),
        }
    }
    built.sort_by_key(|(start, _)| *start);
    let mut records: Vec<Record> = built.into_iter().map(|(_, r)| r).collect();
    let mut seen_sessions = HashSet::new();
    for r in records.iter_mut() {
        if let Some(s) = sessions.link(r) {
            seen_sessions.insert(s);
        }
    }
    Grouped { records, issues, sessions: seen_sessions.len(), duplicate_spans }
}

/// One trace's record.
fn record_of(trace_id: &str, spans: &[Span], system: Option<&str>) -> Result<Record, String> {
    let ids: HashSet<&str> = spans.iter().map(|s| s.span_id.as_str()).collect();
    let root = spans.iter().find(|s| s.parent_id.as_deref().is_none_or(|p| !ids.contains(p))).unwrap_or(&spans[0]);
    let llms: Vec<&Span> = spans.iter().filter(|s| s.kind == SpanKind::Llm).collect();
    let answering = llms.iter().max_by_key(|s| s.end_ns).copied();
    let root_io = root.kind != SpanKind::Llm;
    let query = root_io
        .then(|| root.input.clone())
        .flatten()
        .or_else(|| llms.first().and_then(|s| Span::last_of(&s.input_messages, "user")).map(|m| m.text.clone()))
        .or_else(|| root.input.clone())
        .or_else(|| spans.iter().find(|s| s.kind == SpanKind::Retriever).and_then(|s| s.input.clone()))
        .filter(|q| !q.trim().is_empty())
        .ok_or("no question: no root input, no user message, no retrieval query")?;
    let answer = root_io
        .then(|| root.output.clone())
        .flatten()
        .or_else(|| {
            answering.and_then(|s| {
                Span::last_of(&s.output_messages, "assistant").or(s.output_messages.last()).map(|m| m.text.clone())
            })
        })
        .or_else(|| answering.and_then(|s| s.output.clone()))
        .or_else(|| root.output.clone())
        .ok_or_else(|| match spans.iter().find_map(|s| s.error.as_ref()) {
            Some(e) => format!("no answer: the trace failed ({e})"),
            None => "no answer: no root output, no model reply".to_string(),
        })?;
    let mut meta = Map::new();
    meta.insert("trace_id".into(), Value::from(trace_id));
    let first = |f: fn(&Span) -> Option<&String>| std::iter::once(root).chain(spans).find_map(f).cloned();
    if let Some(s) = first(|s| s.session_id.as_ref()) {
        meta.insert("session_id".into(), Value::from(s));
    }
    if let Some(u) = first(|s| s.user_id.as_ref()) {
        meta.insert("user_id".into(), Value::from(u));
    }
    if let Some(m) = answering.and_then(|s| s.model.clone()).or_else(|| first(|s| s.model.as_ref())) {
        meta.insert("model".into(), Value::from(m));
    }
    let end = spans.iter().map(|s| s.end_ns).max().unwrap_or(root.end_ns);
    let start = spans.iter().map(|s| s.start_ns).min().unwrap_or(root.start_ns);
    meta.insert("latency_ms".into(), Value::from(end.saturating_sub(start) as f64 / 1e6));
    let sum = |f: fn(&Span) -> Option<u64>| llms.iter().filter_map(|s| f(s)).reduce(|a, b| a + b);
    if let Some(t) = sum(|s| s.tokens_in) {
        meta.insert("tokens_in".into(), Value::from(t));
    }
    if let Some(t) = sum(|s| s.tokens_out) {
        meta.insert("tokens_out".into(), Value::from(t));
    }
    if let Some(c) = spans.iter().filter_map(|s| s.cost).reduce(|a, b| a + b) {
        meta.insert("cost".into(), Value::from(c));
    }
    meta.insert("spans".into(), Value::from(spans.len()));
    let errors: Vec<&String> = spans.iter().filter_map(|s| s.error.as_ref()).collect();
    if !errors.is_empty() {
        meta.insert("span_errors".into(), Value::from(errors.len()));
    }
    for s in std::iter::once(root).chain(spans) {
        for (k, v) in &s.metadata {
            meta.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    let service = first(|s| s.service.as_ref());
    Ok(Record {
        id: trace_id.to_string(),
        system: system.map(str::to_string).or(service).unwrap_or_else(|| "traces".to_string()),
        query,
        contexts: contexts(spans),
        answer,
        history: answering.map(|s| history(&s.input_messages)).unwrap_or_default(),
        steps: spans.iter().filter(|s| s.span_id != root.span_id).filter_map(step).collect(),
        meta,
        ..Record::default()
    })
}

/// The passages the answer was given.
fn contexts(spans: &[Span]) -> Vec<Context> {
    let to_ctx = |d: &crate::span::Document| Context { id: d.id.clone(), text: d.text.clone(), relevance: None };
    if let Some(r) = spans.iter().rev().find(|s| s.kind == SpanKind::Reranker && !s.documents.is_empty()) {
        return r.documents.iter().map(to_ctx).collect();
    }
    let mut seen = HashSet::new();
    spans
        .iter()
        .filter(|s| s.kind == SpanKind::Retriever)
        .flat_map(|s| &s.documents)
        .filter(|d| seen.insert(d.id.clone().unwrap_or_else(|| d.text.clone())))
        .map(to_ctx)
        .collect()
}

/// Earlier turns sent to the answering model: messages before its last user message.
fn history(messages: &[Message]) -> Vec<Turn> {
    let Some(last_user) = messages.iter().rposition(|m| m.role == "user") else { return Vec::new() };
    messages[..last_user]
        .iter()
        .filter(|m| m.role == "user" || m.role == "assistant")
        .map(|m| Turn { role: m.role.clone(), text: m.text.clone() })
        .collect()
}

/// A span as an agent step.
fn step(s: &Span) -> Option<Step> {
    let kind = s.kind.step_kind()?;
    let (input, output) = match s.kind {
        SpanKind::Llm => (
            Span::last_of(&s.input_messages, "user").map(|m| m.text.clone()).or_else(|| s.input.clone()),
            s.output_messages.last().map(|m| m.text.clone()).or_else(|| s.output.clone()),
        ),
        _ => (s.input.clone(), s.output.clone()),
    };
    Some(Step {
        kind: kind.to_string(),
        name: s.tool_name.clone().unwrap_or_else(|| s.name.clone()),
        input,
        output,
        contexts: s
            .documents
            .iter()
            .map(|d| Context { id: d.id.clone(), text: d.text.clone(), relevance: None })
            .collect(),
        latency_ms: Some(s.latency_ms()),
        error: s.error.clone(),
    })
}

/// The turns of recent conversations, for the history of turns that do not carry their own;
/// at most `capacity` conversations are kept (the least recently started forgotten first).
#[derive(Debug)]
pub struct Sessions {
    turns: HashMap<String, Vec<(String, String)>>,
    order: VecDeque<String>,
    capacity: usize,
}

/// Turns kept per conversation (the latest ones).
const MAX_TURNS: usize = 50;

impl Sessions {
    /// No conversation yet; keeps at most `capacity`.
    pub fn new(capacity: usize) -> Self {
        Sessions { turns: HashMap::new(), order: VecDeque::new(), capacity: capacity.max(1) }
    }

    /// Conversations remembered.
    pub fn len(&self) -> usize {
        self.turns.len()
    }

    /// Whether none is remembered.
    pub fn is_empty(&self) -> bool {
        self.turns.is_empty()
    }

    /// Numbers the record's turn in its session (`meta.turn`, from 1), gives it the session's
    /// earlier turns when it has no history, and remembers it; returns its session id.
    pub fn link(&mut self, r: &mut Record) -> Option<String> {
        let session = r.meta.get("session_id").and_then(Value::as_str)?.to_string();
        if !self.turns.contains_key(&session) {
            if self.turns.len() >= self.capacity {
                if let Some(old) = self.order.pop_front() {
                    self.turns.remove(&old);
                }
            }
            self.order.push_back(session.clone());
        }
        let earlier = self.turns.entry(session.clone()).or_default();
        let turn = r.meta.get("turn").and_then(Value::as_u64).unwrap_or(0).max(earlier.len() as u64 + 1);
        r.meta.insert("turn".into(), Value::from(turn));
        if r.history.is_empty() {
            for (q, a) in earlier.iter() {
                r.history.push(Turn { role: "user".into(), text: q.clone() });
                r.history.push(Turn { role: "assistant".into(), text: a.clone() });
            }
        }
        earlier.push((r.query.clone(), r.answer.clone()));
        if earlier.len() > MAX_TURNS {
            earlier.remove(0);
        }
        Some(session)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::Document;

    fn span(trace: &str, id: &str, parent: Option<&str>, kind: SpanKind, start: u64, end: u64) -> Span {
        Span {
            trace_id: trace.into(),
            span_id: id.into(),
            parent_id: parent.map(str::to_string),
            name: format!("{kind:?}"),
            kind,
            start_ns: start,
            end_ns: end,
            ..Span::default()
        }
    }

    fn msg(role: &str, text: &str) -> Message {
        Message { role: role.into(), text: text.into() }
    }

    fn doc(id: &str, text: &str) -> Document {
        Document { id: Some(id.into()), text: text.into(), score: None }
    }

    #[test]
    fn a_rag_trace_becomes_one_record() {
        let mut root = span("t1", "r", None, SpanKind::Chain, 0, 900_000_000);
        root.input = Some("What is X?".into());
        root.output = Some("X is Y [1].".into());
        root.service = Some("rag-app".into());
        root.session_id = Some("s".into());
        let mut ret = span("t1", "a", Some("r"), SpanKind::Retriever, 10, 100_000_010);
        ret.input = Some("What is X?".into());
        ret.documents = vec![doc("d1", "X is Y."), doc("d2", "Other.")];
        let mut llm = span("t1", "b", Some("r"), SpanKind::Llm, 200_000_000, 800_000_000);
        llm.input_messages = vec![msg("system", "Use the passages."), msg("user", "What is X?")];
        llm.output_messages = vec![msg("assistant", "X is Y [1].")];
        llm.model = Some("qwen".into());
        llm.tokens_in = Some(50);
        llm.tokens_out = Some(7);
        // Spans arrive in any order.
        let g = records_from_spans(vec![llm, root, ret], None);
        assert!(g.issues.is_empty());
        let r = &g.records[0];
        assert_eq!((r.id.as_str(), r.system.as_str()), ("t1", "rag-app"));
        assert_eq!((r.query.as_str(), r.answer.as_str()), ("What is X?", "X is Y [1]."));
        assert_eq!(r.contexts.iter().map(|c| c.id.clone().unwrap()).collect::<Vec<_>>(), ["d1", "d2"]);
        assert!(r.history.is_empty());
        assert_eq!(r.steps.iter().map(|s| s.kind.as_str()).collect::<Vec<_>>(), ["retrieval", "llm"]);
        assert_eq!(r.steps[0].latency_ms, Some(100.0));
        assert_eq!(r.steps[1].output.as_deref(), Some("X is Y [1]."));
        assert_eq!(r.meta["latency_ms"], 900.0);
        assert_eq!((r.meta["tokens_in"].clone(), r.meta["tokens_out"].clone()), (50.into(), 7.into()));
        assert_eq!(r.meta["model"], "qwen");
        assert_eq!(r.meta["session_id"], "s");
        assert_eq!(r.meta["turn"], 1);
        assert_eq!(g.sessions, 1);
    }

    #[test]
    fn a_lone_model_call_with_history_in_its_messages() {
        let mut llm = span("t", "b", None, SpanKind::Llm, 0, 1);
        llm.input_messages = vec![
            msg("system", "s"),
            msg("user", "Hi"),
            msg("assistant", "Hello"),
            msg("tool", "x"),
            msg("user", "Q2?"),
        ];
        llm.output_messages = vec![msg("assistant", "A2.")];
        let r = records_from_spans(vec![llm], Some("sys")).records.remove(0);
        assert_eq!((r.query.as_str(), r.answer.as_str(), r.system.as_str()), ("Q2?", "A2.", "sys"));
        let h: Vec<_> = r.history.iter().map(|t| (t.role.as_str(), t.text.as_str())).collect();
        assert_eq!(h, [("user", "Hi"), ("assistant", "Hello")]);
    }

    #[test]
    fn sessions_give_later_turns_the_earlier_ones() {
        let turn = |t: &str, start: u64, q: &str, a: &str| {
            let mut s = span(t, "r", None, SpanKind::Chain, start, start + 1);
            s.input = Some(q.into());
            s.output = Some(a.into());
            s.session_id = Some("conv".into());
            s
        };
        let g = records_from_spans(vec![turn("t2", 50, "Q2", "A2"), turn("t1", 10, "Q1", "A1")], None);
        assert_eq!(g.records.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["t1", "t2"]);
        assert_eq!(g.records[1].meta["turn"], 2);
        let h: Vec<_> = g.records[1].history.iter().map(|t| (t.role.as_str(), t.text.as_str())).collect();
        assert_eq!(h, [("user", "Q1"), ("assistant", "A1")]);
    }

    #[test]
    fn sessions_across_calls_and_their_bound() {
        let turn = |t: &str, session: &str, q: &str| {
            let mut s = span(t, "r", None, SpanKind::Chain, 0, 1);
            s.input = Some(q.into());
            s.output = Some(format!("re {q}"));
            s.session_id = Some(session.into());
            s
        };
        let mut mem = Sessions::new(1);
        records_with_sessions(vec![turn("t1", "a", "Q1")], None, &mut mem);
        let r = records_with_sessions(vec![turn("t2", "a", "Q2")], None, &mut mem).records.remove(0);
        assert_eq!((r.meta["turn"].as_u64(), r.history.len()), (Some(2), 2));
        // A second conversation pushes the first out of a memory of one.
        records_with_sessions(vec![turn("t3", "b", "Q")], None, &mut mem);
        assert_eq!(mem.len(), 1);
        let r = records_with_sessions(vec![turn("t4", "a", "Q3")], None, &mut mem).records.remove(0);
        assert_eq!((r.meta["turn"].as_u64(), r.history.len()), (Some(1), 0));
    }

    #[test]
    fn a_reranker_decides_the_passages_and_repeats_are_kept_once() {
        let mut root = span("t", "r", None, SpanKind::Agent, 0, 10);
        root.input = Some("q".into());
        root.output = Some("a".into());
        let mut r1 = span("t", "1", Some("r"), SpanKind::Retriever, 1, 2);
        r1.documents = vec![doc("a", "A"), doc("b", "B")];
        let mut r2 = span("t", "2", Some("r"), SpanKind::Retriever, 3, 4);
        r2.documents = vec![doc("b", "B"), doc("c", "C")];
        let mut tool = span("t", "3", Some("r"), SpanKind::Tool, 5, 6);
        tool.tool_name = Some("calc".into());
        tool.input = Some("1+1".into());
        tool.output = Some("2".into());
        let g = records_from_spans(vec![root.clone(), r1.clone(), r2.clone(), tool.clone()], None);
        let r = &g.records[0];
        assert_eq!(r.contexts.iter().map(|c| c.text.as_str()).collect::<Vec<_>>(), ["A", "B", "C"]);
        assert_eq!(r.steps.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["Retriever", "Retriever", "calc"]);
        let mut rr = span("t", "4", Some("r"), SpanKind::Reranker, 7, 8);
        rr.documents = vec![doc("c", "C")];
        let g = records_from_spans(vec![root, r1, r2, tool, rr], None);
        assert_eq!(g.records[0].contexts.len(), 1);
    }

    #[test]
    fn traces_without_question_or_answer_are_reported() {
        let mut a = span("t1", "r", None, SpanKind::Chain, 0, 1);
        a.output = Some("a".into());
        let mut b = span("t2", "r", None, SpanKind::Chain, 0, 1);
        b.input = Some("q".into());
        b.error = Some("timeout".into());
        let g = records_from_spans(vec![a, b], None);
        assert!(g.records.is_empty());
        let msgs: Vec<String> = g.issues.iter().map(|i| i.to_string()).collect();
        assert_eq!(
            msgs,
            [
                "trace t1: no question: no root input, no user message, no retrieval query",
                "trace t2: no answer: the trace failed (timeout)"
            ]
        );
    }
}
