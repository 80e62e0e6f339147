#![no_main]
//! A trace file (`ragjudge import`), read in every format (detected, OTLP/JSON, OTLP protobuf,
//! Langfuse), its spans grouped into records; and the same bytes as a `/v1/traces` body.

use libfuzzer_sys::fuzz_target;
use ragjudge_traces::{read_spans, records_from_spans, TraceFormat};

fuzz_target!(|data: &[u8]| {
    let path = ragjudge_fuzz::scratch("traces.in", data);
    for format in [None, Some(TraceFormat::OtlpJson), Some(TraceFormat::OtlpProto), Some(TraceFormat::Langfuse)] {
        match read_spans(&path, format) {
            Ok((spans, issues)) => {
                let _ = issues.iter().map(|i| i.to_string()).count();
                let g = records_from_spans(spans, None);
                let _ = serde_json::to_string(&g.records);
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
    let _ = ragjudge_traces::otlp::gunzip(data, 1 << 16);
});
