//! OTLP trace payloads (`ExportTraceServiceRequest`), in protobuf or in the OTLP/JSON mapping
//! (hex ids, 64-bit integers as strings), decoded by `opentelemetry-proto`; flattened into
//! [`RawSpan`]s whose attributes are JSON values.
//!
//! Accepted files: one request; JSON lines of requests (the Collector's file exporter); protobuf
//! frames each preceded by a 4-byte big-endian length (the file exporter's `proto` format).

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, KeyValue};
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use prost::Message as _;
use serde_json::{Map, Value};

/// One span as the wire gives it, attributes turned into JSON values.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RawSpan {
    /// Lower-case hex trace id (32 digits when valid).
    pub trace_id: String,
    /// Lower-case hex span id (16 digits when valid).
    pub span_id: String,
    /// The parent's span id; empty for a root.
    pub parent_id: String,
    /// Span name.
    pub name: String,
    /// Start and end, ns since the epoch.
    pub start_ns: u64,
    /// End.
    pub end_ns: u64,
    /// The status message when the status code is ERROR (`Some("")` without a message).
    pub error: Option<String>,
    /// Span attributes.
    pub attributes: Map<String, Value>,
    /// Span events: name and attributes.
    pub events: Vec<(String, Map<String, Value>)>,
    /// Resource attributes (`service.name` ...).
    pub resource: Map<String, Value>,
}

/// The answer to an OTLP/HTTP export: an `ExportTraceServiceResponse`, with a partial success
/// when spans were refused; protobuf bytes, or its OTLP/JSON mapping when `json`.
pub fn export_response(rejected: usize, message: Option<&str>, json: bool) -> Vec<u8> {
    use opentelemetry_proto::tonic::collector::trace::v1::{ExportTracePartialSuccess, ExportTraceServiceResponse};
    let partial_success = (rejected > 0 || message.is_some()).then(|| ExportTracePartialSuccess {
        rejected_spans: rejected as i64,
        error_message: message.unwrap_or_default().to_string(),
    });
    if json {
        let body = match &partial_success {
            Some(p) => {
                serde_json::json!({"partialSuccess": {"rejectedSpans": p.rejected_spans.to_string(), "errorMessage": p.error_message}})
            }
            None => serde_json::json!({}),
        };
        body.to_string().into_bytes()
    } else {
        ExportTraceServiceResponse { partial_success }.encode_to_vec()
    }
}

/// A gzip body (`Content-Encoding: gzip`) inflated, refused past `limit` bytes inflated.
pub fn gunzip(bytes: &[u8], limit: usize) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .take(limit as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("not a gzip body: {e}"))?;
    if out.len() > limit {
        return Err(format!("gzip body inflates past the limit of {limit} bytes"));
    }
    Ok(out)
}

/// Decodes a protobuf payload: one message, or length-prefixed frames (first byte 0: a
/// protobuf message never starts with field number 0).
pub fn decode_proto(bytes: &[u8]) -> Result<Vec<ExportTraceServiceRequest>, String> {
    if bytes.first() != Some(&0) {
        return ExportTraceServiceRequest::decode(bytes)
            .map(|r| vec![r])
            .map_err(|e| format!("not OTLP protobuf: {e}"));
    }
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < bytes.len() {
        let Some(head) = bytes.get(at..at + 4) else {
            return Err(format!("frame at byte {at}: truncated length prefix"));
        };
        let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let Some(body) = bytes.get(at + 4..at + 4 + len) else {
            return Err(format!("frame at byte {at}: {len} bytes announced, {} left", bytes.len() - at - 4));
        };
        out.push(
            ExportTraceServiceRequest::decode(body)
                .map_err(|e| format!("frame at byte {at}: not OTLP protobuf: {e}"))?,
        );
        at += 4 + len;
    }
    Ok(out)
}

/// Decodes OTLP/JSON: one request object (possibly over several lines), or one per line.
/// Errors name the 1-based line.
pub fn decode_json(text: &str) -> Result<Vec<ExportTraceServiceRequest>, (Option<u64>, String)> {
    if let Ok(one) = serde_json::from_str::<ExportTraceServiceRequest>(text) {
        return Ok(vec![one]);
    }
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let r = serde_json::from_str::<ExportTraceServiceRequest>(line)
            .map_err(|e| (Some(i as u64 + 1), format!("not an OTLP/JSON trace request: {e}")))?;
        out.push(r);
    }
    Ok(out)
}

/// The spans of a request, in the order they appear.
pub fn raw_spans(request: &ExportTraceServiceRequest) -> Vec<RawSpan> {
    let mut out = Vec::new();
    for rs in &request.resource_spans {
        let resource = rs.resource.as_ref().map(|r| attributes(&r.attributes)).unwrap_or_default();
        for ss in &rs.scope_spans {
            for s in &ss.spans {
                let error =
                    s.status.as_ref().filter(|st| st.code == StatusCode::Error as i32).map(|st| st.message.clone());
                out.push(RawSpan {
                    trace_id: hex(&s.trace_id),
                    span_id: hex(&s.span_id),
                    parent_id: hex(&s.parent_span_id),
                    name: s.name.clone(),
                    start_ns: s.start_time_unix_nano,
                    end_ns: s.end_time_unix_nano,
                    error,
                    attributes: attributes(&s.attributes),
                    events: s.events.iter().map(|e| (e.name.clone(), attributes(&e.attributes))).collect(),
                    resource: resource.clone(),
                });
            }
        }
    }
    out
}

/// Lower-case hex of an id.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Attributes as a JSON object (later keys win, as in the SDKs).
fn attributes(kvs: &[KeyValue]) -> Map<String, Value> {
    kvs.iter().map(|kv| (kv.key.clone(), kv.value.as_ref().map(any_to_json).unwrap_or(Value::Null))).collect()
}

/// An OTLP `AnyValue` as JSON; bytes as lower-case hex.
fn any_to_json(v: &AnyValue) -> Value {
    match &v.value {
        None => Value::Null,
        Some(any_value::Value::StringValue(s)) => Value::String(s.clone()),
        Some(any_value::Value::BoolValue(b)) => Value::Bool(*b),
        Some(any_value::Value::IntValue(i)) => Value::from(*i),
        Some(any_value::Value::DoubleValue(d)) => {
            serde_json::Number::from_f64(*d).map(Value::Number).unwrap_or(Value::Null)
        }
        Some(any_value::Value::ArrayValue(a)) => Value::Array(a.values.iter().map(any_to_json).collect()),
        Some(any_value::Value::KvlistValue(kv)) => Value::Object(attributes(&kv.values)),
        Some(any_value::Value::BytesValue(b)) => Value::String(hex(b)),
        #[allow(unreachable_patterns)]
        Some(_) => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: &str = r#"{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"rag"}}]},
      "scopeSpans":[{"spans":[{"traceId":"5B8EFFF798038103D269B633813FC60C","spanId":"eee19b7ec3c1b174","parentSpanId":"",
      "name":"retrieve","kind":1,"startTimeUnixNano":"1000","endTimeUnixNano":3000,
      "attributes":[{"key":"n","value":{"intValue":"42"}},{"key":"arr","value":{"arrayValue":{"values":[{"stringValue":"a"},{"doubleValue":0.5}]}}}],
      "events":[{"name":"e","attributes":[{"key":"content","value":{"stringValue":"hi"}}]}],
      "status":{"code":2,"message":"bad"}}]}]}]}"#;

    #[test]
    fn json_request_flattens_to_spans_with_json_attributes() {
        let reqs = decode_json(ONE).unwrap();
        let spans = raw_spans(&reqs[0]);
        assert_eq!(spans.len(), 1);
        let s = &spans[0];
        assert_eq!(s.trace_id, "5b8efff798038103d269b633813fc60c");
        assert_eq!(s.span_id, "eee19b7ec3c1b174");
        assert_eq!(s.parent_id, "");
        assert_eq!((s.start_ns, s.end_ns), (1000, 3000));
        assert_eq!(s.error.as_deref(), Some("bad"));
        assert_eq!(s.attributes["n"], serde_json::json!(42));
        assert_eq!(s.attributes["arr"], serde_json::json!(["a", 0.5]));
        assert_eq!(s.events[0].1["content"], "hi");
        assert_eq!(s.resource["service.name"], "rag");
    }

    #[test]
    fn protobuf_one_message_and_length_prefixed_frames() {
        let req = decode_json(ONE).unwrap().remove(0);
        let bytes = req.encode_to_vec();
        assert_eq!(decode_proto(&bytes).unwrap(), vec![req.clone()]);
        let mut framed = Vec::new();
        for _ in 0..2 {
            framed.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
            framed.extend_from_slice(&bytes);
        }
        assert_eq!(decode_proto(&framed).unwrap().len(), 2);
        framed.truncate(framed.len() - 3);
        assert!(decode_proto(&framed).unwrap_err().contains("bytes announced"));
        assert!(decode_proto(b"\xff\xff\xff").unwrap_err().starts_with("not OTLP protobuf"));
    }

    #[test]
    fn responses_and_gzip() {
        use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceResponse;
        assert_eq!(export_response(0, None, true), b"{}");
        assert!(export_response(0, None, false).is_empty(), "an empty message encodes to no bytes");
        let pb = ExportTraceServiceResponse::decode(&export_response(2, Some("bad"), false)[..]).unwrap();
        let p = pb.partial_success.unwrap();
        assert_eq!((p.rejected_spans, p.error_message.as_str()), (2, "bad"));
        let js: serde_json::Value = serde_json::from_slice(&export_response(2, Some("bad"), true)).unwrap();
        assert_eq!(js["partialSuccess"]["rejectedSpans"], "2");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, &[7u8; 1000]).unwrap();
        let gz = gz.finish().unwrap();
        assert_eq!(gunzip(&gz, 1000).unwrap().len(), 1000);
        assert!(gunzip(&gz, 999).unwrap_err().contains("limit of 999"));
        assert!(gunzip(b"plain", 10).unwrap_err().starts_with("not a gzip body"));
    }

    #[test]
    fn json_lines_errors_name_the_line() {
        let two = format!("{}\n{}\n", ONE.replace('\n', ""), "{\"resourceSpans\": 3}");
        let (line, msg) = decode_json(&two).unwrap_err();
        assert_eq!(line, Some(2));
        assert!(msg.starts_with("not an OTLP/JSON trace request"), "{msg}");
    }
}
