//! Agent trajectories (a record's `steps`): how many steps, tool calls and retrievals an answer
//! took and how long, the tool calls against an expected trajectory, and the passages of every
//! retrieval step against the question's known relevant passages.
//!
//! - **Expected trajectory**: `meta.expected_tools`, a list of tool names or of
//!   `{"name", "input"?}` objects (an input, when given, must equal the call's input, compared
//!   as JSON when both parse, else as text). The calls are the tool, retrieval and re-ranking
//!   steps (a search is a tool to an agent), in order; a call matches an expected one when the
//!   name (and input) agree. Set matching (as deepeval's tool correctness): matched calls `m` by greedy
//!   one-to-one matching, `tool_precision = m / calls`, `tool_recall = m / expected`, F1 their
//!   harmonic mean. Order-aware: `tool_order = LCS / max(calls, expected)`, the longest common
//!   subsequence of the two sequences (1 only for the same calls in the same order; a missing,
//!   extra or swapped call lowers it), and `tool_exact` 1 or 0.
//! - **Retrieval per step**: with the question's relevant passage ids (`meta.relevant`, else
//!   testgen's `meta.source_ids`), `agent_step_precision` is the mean over retrieval and
//!   re-ranking steps of the share of their passages that are relevant, and `agent_union_recall`
//!   the share of relevant passages found by any step.
//!
//! A record without steps leaves every column empty; one without an expected trajectory leaves
//! the `tool_*` columns empty; one without relevant ids the two retrieval columns.

use ragjudge_core::{known_relevant, Metric, MetricError, MetricOutput, Record, Step};
use serde_json::{json, Value};
use std::collections::HashSet;

/// The columns, in order.
pub const COLUMNS: [&str; 12] = [
    "agent_steps",
    "agent_tool_calls",
    "agent_retrievals",
    "agent_failed_steps",
    "agent_latency_ms",
    "tool_precision",
    "tool_recall",
    "tool_f1",
    "tool_order",
    "tool_exact",
    "agent_step_precision",
    "agent_union_recall",
];

/// One expected tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpectedCall {
    /// The tool's name.
    pub name: String,
    /// Its input, when the expectation fixes it.
    pub input: Option<Value>,
}

/// The expected calls of `meta.expected_tools`; `Ok(None)` when absent.
pub fn expected_calls(record: &Record) -> Result<Option<Vec<ExpectedCall>>, MetricError> {
    let Some(v) = record.meta.get("expected_tools") else { return Ok(None) };
    let bad = || {
        MetricError::Record(
            "meta.expected_tools: expected a list of tool names or {\"name\", \"input\"} objects".into(),
        )
    };
    let items = v.as_array().ok_or_else(bad)?;
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        out.push(match item {
            Value::String(name) => ExpectedCall { name: name.clone(), input: None },
            Value::Object(o) => ExpectedCall {
                name: o.get("name").and_then(Value::as_str).ok_or_else(bad)?.to_string(),
                input: o.get("input").cloned(),
            },
            _ => return Err(bad()),
        });
    }
    Ok(Some(out))
}

/// Whether a tool step is the expected call.
fn matches(step: &Step, want: &ExpectedCall) -> bool {
    if step.name != want.name {
        return false;
    }
    let Some(input) = &want.input else { return true };
    let got = step.input.as_deref().unwrap_or_default();
    let parsed = serde_json::from_str::<Value>(got).ok();
    match (input, parsed) {
        (Value::String(s), _) if s == got => true,
        (Value::String(s), Some(p)) => serde_json::from_str::<Value>(s).ok().is_some_and(|e| e == p),
        (other, Some(p)) => *other == p,
        _ => false,
    }
}

/// Calls matched one to one, greedily in call order.
fn matched(calls: &[&Step], expected: &[ExpectedCall]) -> usize {
    let mut used = vec![false; expected.len()];
    calls
        .iter()
        .filter(|c| match (0..expected.len()).find(|&j| !used[j] && matches(c, &expected[j])) {
            Some(j) => {
                used[j] = true;
                true
            }
            None => false,
        })
        .count()
}

/// Length of the longest common subsequence of the calls and the expectation.
fn lcs(calls: &[&Step], expected: &[ExpectedCall]) -> usize {
    let mut row = vec![0usize; expected.len() + 1];
    for c in calls {
        let mut diag = 0;
        for (j, e) in expected.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = if matches(c, e) { diag + 1 } else { up.max(row[j]) };
            diag = up;
        }
    }
    row[expected.len()]
}

/// The trajectory metric (`--metrics agent`).
#[derive(Debug, Clone, Default)]
pub struct TrajectoryMetric;

impl Metric for TrajectoryMetric {
    fn name(&self) -> &str {
        "agent"
    }

    fn columns(&self) -> Vec<String> {
        COLUMNS.iter().map(|s| s.to_string()).collect()
    }

    fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
        let mut values = vec![None; COLUMNS.len()];
        let steps = &record.steps;
        if steps.is_empty() {
            return Ok(MetricOutput { values, detail: None });
        }
        let is_retrieval = |s: &&Step| s.kind == "retrieval" || s.kind == "rerank";
        let tools = steps.iter().filter(|s| s.kind == "tool").count();
        let retrievals: Vec<&Step> = steps.iter().filter(is_retrieval).collect();
        let calls: Vec<&Step> = steps.iter().filter(|s| s.kind == "tool" || is_retrieval(s)).collect();
        let latency: Option<f64> = record
            .meta
            .get("latency_ms")
            .and_then(Value::as_f64)
            .or_else(|| steps.iter().map(|s| s.latency_ms).sum::<Option<f64>>());
        values[0] = Some(steps.len() as f64);
        values[1] = Some(tools as f64);
        values[2] = Some(retrievals.len() as f64);
        values[3] = Some(steps.iter().filter(|s| s.error.is_some()).count() as f64);
        values[4] = latency;
        let mut detail = json!({"calls": calls.iter().map(|c| c.name.as_str()).collect::<Vec<_>>()});
        if let Some(expected) = expected_calls(record)? {
            let m = matched(&calls, &expected) as f64;
            let p = (!calls.is_empty()).then(|| m / calls.len() as f64);
            let r = (!expected.is_empty()).then(|| m / expected.len() as f64);
            values[5] = p;
            values[6] = r;
            values[7] = match (p, r) {
                (Some(p), Some(r)) if p + r > 0.0 => Some(2.0 * p * r / (p + r)),
                (Some(_), Some(_)) => Some(0.0),
                _ => None,
            };
            let longest = calls.len().max(expected.len());
            values[8] = Some(if longest == 0 { 1.0 } else { lcs(&calls, &expected) as f64 / longest as f64 });
            let exact = calls.len() == expected.len() && calls.iter().zip(&expected).all(|(c, e)| matches(c, e));
            values[9] = Some(if exact { 1.0 } else { 0.0 });
            detail["expected"] = json!(expected.iter().map(|e| e.name.as_str()).collect::<Vec<_>>());
        }
        let relevant: HashSet<String> = known_relevant(record.meta.get("relevant"), &record.meta).into_iter().collect();
        if !relevant.is_empty() {
            let ids = |s: &Step| s.contexts.iter().filter_map(|c| c.id.clone()).collect::<Vec<_>>();
            let shares: Vec<f64> = retrievals
                .iter()
                .map(|s| ids(s))
                .filter(|ids| !ids.is_empty())
                .map(|ids| ids.iter().filter(|i| relevant.contains(*i)).count() as f64 / ids.len() as f64)
                .collect();
            values[10] = (!shares.is_empty()).then(|| shares.iter().sum::<f64>() / shares.len() as f64);
            let union: HashSet<String> = retrievals.iter().flat_map(|s| ids(s)).collect();
            values[11] = Some(relevant.iter().filter(|i| union.contains(*i)).count() as f64 / relevant.len() as f64);
        }
        Ok(MetricOutput { values, detail: Some(detail) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ragjudge_core::Context;

    fn tool(name: &str, input: &str) -> Step {
        Step { kind: "tool".into(), name: name.into(), input: Some(input.into()), ..Step::default() }
    }

    fn search(ids: &[&str]) -> Step {
        Step {
            kind: "retrieval".into(),
            name: "search".into(),
            contexts: ids.iter().map(|i| Context { id: Some(i.to_string()), ..Context::default() }).collect(),
            latency_ms: Some(10.0),
            ..Step::default()
        }
    }

    fn record(steps: Vec<Step>, meta: Value) -> Record {
        Record { steps, meta: meta.as_object().unwrap().clone(), ..Record::default() }
    }

    fn col(out: &MetricOutput, name: &str) -> Option<f64> {
        out.values[TrajectoryMetric.columns().iter().position(|c| c == name).unwrap()]
    }

    #[test]
    fn tool_calls_against_the_expectation_by_hand() {
        // Calls: search-tool, calc, search-tool, email; expected: calc, search-tool, calc.
        // Greedy one-to-one: search-tool (expected #2), calc (#1); the second search-tool finds
        // no unused one, email none: m = 2. P = 2/4, R = 2/3, F1 = 2 * (1/2)(2/3) / (7/6) = 4/7.
        // LCS of [s, c, s, e] and [c, s, c] = 2 (c, s): order = 2 / 4.
        let r = record(
            vec![tool("lookup", "{}"), tool("calc", "1+1"), tool("lookup", "{}"), tool("email", "x")],
            json!({"expected_tools": ["calc", "lookup", "calc"]}),
        );
        let out = TrajectoryMetric.score(&r).unwrap();
        assert_eq!(col(&out, "agent_tool_calls"), Some(4.0));
        assert_eq!(col(&out, "tool_precision"), Some(0.5));
        assert_eq!(col(&out, "tool_recall"), Some(2.0 / 3.0));
        assert!((col(&out, "tool_f1").unwrap() - 4.0 / 7.0).abs() < 1e-12);
        assert_eq!(col(&out, "tool_order"), Some(0.5));
        assert_eq!(col(&out, "tool_exact"), Some(0.0));
        // The same calls in the same order: all 1.
        let r = record(vec![tool("calc", "1"), tool("lookup", "q")], json!({"expected_tools": ["calc", "lookup"]}));
        let out = TrajectoryMetric.score(&r).unwrap();
        for c in ["tool_precision", "tool_recall", "tool_f1", "tool_order", "tool_exact"] {
            assert_eq!(col(&out, c), Some(1.0), "{c}");
        }
        // Swapped: every set measure 1, order 1/2, not exact.
        let r = record(vec![tool("lookup", "q"), tool("calc", "1")], json!({"expected_tools": ["calc", "lookup"]}));
        let out = TrajectoryMetric.score(&r).unwrap();
        assert_eq!(
            (col(&out, "tool_f1"), col(&out, "tool_order"), col(&out, "tool_exact")),
            (Some(1.0), Some(0.5), Some(0.0))
        );
    }

    #[test]
    fn expected_inputs_compare_as_json() {
        let r = record(
            vec![tool("calc", "{\"expression\": \"10*12\"}")],
            json!({"expected_tools": [{"name": "calc", "input": {"expression": "10*12"}}]}),
        );
        assert_eq!(col(&TrajectoryMetric.score(&r).unwrap(), "tool_exact"), Some(1.0));
        let r = record(vec![tool("calc", "10*13")], json!({"expected_tools": [{"name": "calc", "input": "10*12"}]}));
        assert_eq!(col(&TrajectoryMetric.score(&r).unwrap(), "tool_recall"), Some(0.0));
        let r = record(vec![tool("calc", "x")], json!({"expected_tools": "calc"}));
        assert!(TrajectoryMetric.score(&r).unwrap_err().to_string().starts_with("meta.expected_tools"));
    }

    #[test]
    fn retrieval_steps_against_relevant_passages() {
        // Steps: [a, b] (1 of 2 relevant), [c] (0 of 1), relevant {a, d}: precision (1/2 + 0)/2,
        // union {a, b, c} holds 1 of 2.
        let r = record(vec![search(&["a", "b"]), tool("calc", "1"), search(&["c"])], json!({"relevant": ["a", "d"]}));
        let out = TrajectoryMetric.score(&r).unwrap();
        assert_eq!(col(&out, "agent_step_precision"), Some(0.25));
        assert_eq!(col(&out, "agent_union_recall"), Some(0.5));
        assert_eq!(col(&out, "agent_retrievals"), Some(2.0));
        assert_eq!(col(&out, "agent_latency_ms"), None, "a tool step has no latency");
        assert_eq!(col(&out, "tool_f1"), None, "no expectation");
        // Searches are calls too: [search, calc, search] against [search, calc] is all found,
        // with one call too many.
        let mut r = r;
        r.meta.insert("expected_tools".into(), json!(["search", "calc"]));
        let out = TrajectoryMetric.score(&r).unwrap();
        assert_eq!((col(&out, "tool_precision"), col(&out, "tool_recall")), (Some(2.0 / 3.0), Some(1.0)));
        assert_eq!((col(&out, "tool_order"), col(&out, "agent_tool_calls")), (Some(2.0 / 3.0), Some(1.0)));
        let none = TrajectoryMetric.score(&Record::default()).unwrap();
        assert!(none.values.iter().all(Option::is_none));
    }
}
