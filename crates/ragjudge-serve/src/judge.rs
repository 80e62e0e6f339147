//! `POST /v1/judge`: one pairwise judgement of two answers to one question through the judge the
//! server was started with: DICE's (DICE §3.1-3.2) or another protocol's (`two-label`,
//! `pointwise`, `claims`, `ensemble`), scored as DICE scores a pair.

use crate::error::{ApiError, ServeError};
use crate::score::type_name;
use ragjudge_core::{record_from_json, Context, Record};
use ragjudge_dice::judgement::{JudgeOptions, OrderJudgement, PairJudgement, PairwiseJudge, Probs};
use ragjudge_dice::labels::{Label, PairLabel};
use ragjudge_dice::pair_score::score_pair;
use ragjudge_dice::protocol::{Protocol, ProtocolSettings, Verdict};
use ragjudge_dice::run::judge_pair_with_protocol;
use ragjudge_dice::scoring::DiceScorer;
use ragjudge_models::Judge;
use serde::Serialize;
use serde_json::{Map, Value};
use std::sync::Arc;

/// How pairs are judged.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeSettings {
    /// Run stage I (the judge's analysis) before the verdict.
    pub reasoning: bool,
    /// Judge both orders and average (position-bias correction).
    pub swap: bool,
    /// Margin below which a verdict is scored softly (DICE's tau).
    pub tau: f64,
    /// The judging protocol (`dice`, or one for small judges; `reasoning` and `swap` are DICE's).
    pub protocol: Protocol,
    /// Options of the other protocols (claims' premise size).
    pub protocol_settings: ProtocolSettings,
}

impl Default for JudgeSettings {
    fn default() -> Self {
        Self {
            reasoning: true,
            swap: true,
            tau: ragjudge_dice::scoring::DEFAULT_TAU,
            protocol: Protocol::Dice,
            protocol_settings: ProtocolSettings::default(),
        }
    }
}

/// A judge model with its protocol and options, shared by every request.
pub struct JudgeService {
    pairwise: PairwiseJudge,
    scorer: DiceScorer,
    protocol: Protocol,
    protocol_settings: ProtocolSettings,
}

impl std::fmt::Debug for JudgeService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JudgeService").field("judge", &self.pairwise.judge.identity()).finish()
    }
}

/// A parsed `POST /v1/judge` body.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeRequest {
    /// The pair's first record (answer A).
    pub a: Record,
    /// The pair's second record (answer B).
    pub b: Record,
}

/// The answer of `POST /v1/judge`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeResponse {
    /// Question id.
    pub id: String,
    /// The judge's identity.
    pub judge: String,
    /// The argmax of the order-averaged probabilities: `A`, `B` or `tie` (also when a protocol
    /// without a tie label finds A and B exactly even).
    pub verdict: Label,
    /// Probabilities of A, B and tie, averaged over the orders judged.
    pub probs: Probs,
    /// DICE score of A (hard above the margin tau, soft below), averaged over the orders.
    pub s_a: f64,
    /// DICE score of B, `1 - s_a`.
    pub s_b: f64,
    /// Whether every order named the same winner.
    pub order_consistent: bool,
    /// The protocol, e.g. `dice` or `claims`.
    pub protocol: String,
    /// Prompt version, e.g. `dice-en-v2`.
    pub prompt_version: String,
    /// One entry per order judged, with the reasoning, categories and label probabilities (none
    /// for a pointwise protocol, which shows each answer alone).
    pub orders: Vec<OrderJudgement>,
    /// A protocol other than DICE: its verdict with the evidence (per-order probabilities,
    /// expected grades, or each claim check), as `ragjudge judge-eval` writes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Verdict>,
}

impl JudgeService {
    /// Judging through `judge` with `settings`; `dice-reasoning` is refused (it is `dice` with
    /// `reasoning`).
    pub fn new(judge: Arc<dyn Judge>, settings: &JudgeSettings) -> Result<Self, ServeError> {
        let scorer = DiceScorer::new(settings.tau).map_err(|e| ServeError::Settings(format!("--tau: {e}")))?;
        if settings.protocol == Protocol::DiceReasoning {
            return Err(ServeError::Settings("protocol: use `dice` (stage I runs unless reasoning is off)".into()));
        }
        let opts = JudgeOptions { reasoning: settings.reasoning, swap: settings.swap, ..JudgeOptions::default() };
        Ok(JudgeService {
            pairwise: PairwiseJudge::new(judge, opts),
            scorer,
            protocol: settings.protocol,
            protocol_settings: settings.protocol_settings,
        })
    }

    /// The protocol pairs are judged with.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// The judge's identity.
    pub fn identity(&self) -> String {
        self.pairwise.judge.identity()
    }

    /// Judges the pair. Blocking (model calls): call it off the async executor. A judge failure
    /// is 502 (the judge, not the request, failed); a pair without the reference its protocol
    /// needs is 422.
    pub fn judge(&self, req: &JudgeRequest) -> Result<JudgeResponse, ApiError> {
        let bad_gateway = |m: String| ApiError::new(axum::http::StatusCode::BAD_GATEWAY, m);
        let (j, evidence): (PairJudgement, Option<Verdict>) = if matches!(self.protocol, Protocol::Dice) {
            let j = self.pairwise.judge_pair(&req.a, &req.b).map_err(|e| bad_gateway(format!("judge failed: {e}")))?;
            (j, None)
        } else {
            if self.protocol.needs_reference() && req.a.reference.is_none() {
                let m =
                    format!("field `reference`: missing (the `{}` protocol grades against it)", self.protocol.name());
                return Err(ApiError::unprocessable(m));
            }
            let (j, v) =
                judge_pair_with_protocol(&self.pairwise.judge, self.protocol, &req.a, &req.b, &self.protocol_settings)
                    .map_err(|e| bad_gateway(format!("judge failed: {e}")))?;
            (j, Some(v))
        };
        let scored = score_pair(&self.scorer, &j).map_err(|e| bad_gateway(format!("verdict not scorable: {e}")))?;
        Ok(JudgeResponse {
            id: j.question_id.clone(),
            judge: j.judge.clone(),
            verdict: PairLabel::of(&j, scored.s_a).label,
            probs: j.probs,
            s_a: scored.s_a,
            s_b: 1.0 - scored.s_a,
            order_consistent: j.order_consistent,
            protocol: self.protocol.name().to_string(),
            prompt_version: j.prompt_version.clone(),
            orders: j.orders,
            evidence,
        })
    }
}

fn take_str(map: &mut Map<String, Value>, key: &str, required: bool) -> Result<Option<String>, ApiError> {
    match map.remove(key) {
        Some(Value::String(s)) => Ok(Some(s)),
        None | Some(Value::Null) if !required => Ok(None),
        None | Some(Value::Null) => Err(ApiError::unprocessable(format!("field `{key}`: missing"))),
        Some(other) => {
            Err(ApiError::unprocessable(format!("field `{key}`: expected a string, found {}", type_name(&other))))
        }
    }
}

/// Parses a `POST /v1/judge` body: `{"query", "answer_a", "answer_b", "reference"?,
/// "contexts"?, "id"?, "system_a"?, "system_b"?}` (contexts as in a record). Malformed JSON is
/// 400, a missing or mistyped field 422 naming it.
pub fn parse_judge_request(body: &[u8]) -> Result<JudgeRequest, ApiError> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| ApiError::bad_request(format!("malformed JSON: {e}")))?;
    let Value::Object(mut map) = value else {
        return Err(ApiError::unprocessable(format!("expected a JSON object, found {}", type_name(&value))));
    };
    let query = take_str(&mut map, "query", true)?.unwrap_or_default();
    let answer_a = take_str(&mut map, "answer_a", true)?.unwrap_or_default();
    let answer_b = take_str(&mut map, "answer_b", true)?.unwrap_or_default();
    let reference = take_str(&mut map, "reference", false)?;
    let id = match map.remove("id") {
        None | Some(Value::Null) => "1".to_string(),
        Some(Value::String(s)) => s,
        Some(Value::Number(n)) => n.to_string(),
        Some(other) => {
            return Err(ApiError::unprocessable(format!(
                "field `id`: expected a string or a number, found {}",
                type_name(&other)
            )))
        }
    };
    let system_a = take_str(&mut map, "system_a", false)?.unwrap_or_else(|| "A".into());
    let system_b = take_str(&mut map, "system_b", false)?.unwrap_or_else(|| "B".into());
    // Contexts go through the record parser, so they accept what a JSONL line accepts.
    let contexts: Vec<Context> = match map.remove("contexts") {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => {
            let probe = serde_json::json!({"query": "", "answer": "", "contexts": v});
            record_from_json(probe, "request", String::new(), "")
                .map_err(|e| {
                    ApiError::unprocessable(format!("field `{}`: {}", e.field.unwrap_or_default(), e.message))
                })?
                .contexts
        }
    };
    let base = Record { id, query, contexts, reference, ..Record::default() };
    let a = Record { system: system_a, answer: answer_a, ..base.clone() };
    let b = Record { system: system_b, answer: answer_b, ..base };
    Ok(JudgeRequest { a, b })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judge_requests_name_the_field_at_fault() {
        let e = parse_judge_request(br#"{"query": "q", "answer_a": "x"}"#).unwrap_err();
        assert_eq!((e.status.as_u16(), e.message.as_str()), (422, "field `answer_b`: missing"));
        let e = parse_judge_request(br#"{"query": "q", "answer_a": "x", "answer_b": 3}"#).unwrap_err();
        assert_eq!(e.message, "field `answer_b`: expected a string, found number");
        let e =
            parse_judge_request(br#"{"query": "q", "answer_a": "x", "answer_b": "y", "contexts": [7]}"#).unwrap_err();
        assert_eq!(e.message, "field `contexts[0]`: expected a string or an object, found number");
        let e = parse_judge_request(b"{\"query\"").unwrap_err();
        assert_eq!(e.status.as_u16(), 400);
    }

    #[test]
    fn a_pair_shares_question_contexts_and_reference() {
        let r = parse_judge_request(
            br#"{"id": 4, "query": "q", "answer_a": "x", "answer_b": "y", "reference": "r", "contexts": ["c"]}"#,
        )
        .unwrap();
        assert_eq!((r.a.id.as_str(), r.a.system.as_str(), r.a.answer.as_str()), ("4", "A", "x"));
        assert_eq!((r.b.system.as_str(), r.b.answer.as_str()), ("B", "y"));
        assert_eq!(r.b.reference.as_deref(), Some("r"));
        assert_eq!(r.b.contexts[0].text, "c");
    }
}
