"""Sends prebuilt OTLP/HTTP protobuf exports to `ragjudge serve --traces` as fast as it can
answer them, from THREADS threads: each export holds TRACES traces of three spans (a CHAIN root,
a RETRIEVER with three passages, an LLM call) with fresh ids, built with the official
`opentelemetry-proto` Python messages. Prints one JSON line: exports, spans, seconds, spans/s and
the export latency percentiles.

    python blast.py --endpoint http://127.0.0.1:8080/v1/traces --exports 400 --traces 50
"""
import argparse
import json
import os
import random
import threading
import time
import urllib.request

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span


def kv(k, v):
    if isinstance(v, str):
        return KeyValue(key=k, value=AnyValue(string_value=v))
    if isinstance(v, int):
        return KeyValue(key=k, value=AnyValue(int_value=v))
    return KeyValue(key=k, value=AnyValue(double_value=v))


def export(n_traces, t0, rng):
    spans = []
    for _ in range(n_traces):
        i = rng.randrange(1000)
        tid = os.urandom(16)
        root, ret, llm = os.urandom(8), os.urandom(8), os.urandom(8)
        q = f"What does policy {i} say about refunds?"
        a = f"Policy {i} gives a full refund within 14 days [1]."
        spans.append(Span(trace_id=tid, span_id=ret, parent_span_id=root, name="retrieve",
                          start_time_unix_nano=t0 + 1000, end_time_unix_nano=t0 + 2000,
                          attributes=[kv("openinference.span.kind", "RETRIEVER"), kv("input.value", q)]
                          + [kv(f"retrieval.documents.{j}.document.{f}", v) for j in range(3)
                             for f, v in (("id", f"doc{j}"), ("content", f"Policy {i} section {j}: a full refund within 14 days."), ("score", 0.5))]))
        spans.append(Span(trace_id=tid, span_id=llm, parent_span_id=root, name="chat",
                          start_time_unix_nano=t0 + 2000, end_time_unix_nano=t0 + 9000,
                          attributes=[kv("openinference.span.kind", "LLM"), kv("llm.model_name", "toy-llm"),
                                      kv("llm.input_messages.0.message.role", "user"), kv("llm.input_messages.0.message.content", q),
                                      kv("llm.output_messages.0.message.role", "assistant"), kv("llm.output_messages.0.message.content", a)]))
        spans.append(Span(trace_id=tid, span_id=root, name="rag", start_time_unix_nano=t0, end_time_unix_nano=t0 + 10000,
                          attributes=[kv("openinference.span.kind", "CHAIN"), kv("input.value", q), kv("output.value", a)]))
    req = ExportTraceServiceRequest(resource_spans=[ResourceSpans(
        resource={"attributes": [kv("service.name", "blast")]}, scope_spans=[ScopeSpans(spans=spans)])])
    return req.SerializeToString()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--endpoint", required=True)
    p.add_argument("--exports", type=int, default=400)
    p.add_argument("--traces", type=int, default=50)
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()
    t0 = time.time_ns()
    rng = random.Random()
    bodies = [export(a.traces, t0, rng) for _ in range(a.exports)]
    latencies = []
    lock = threading.Lock()
    todo = list(range(a.exports))

    def worker():
        while True:
            with lock:
                if not todo:
                    return
                i = todo.pop()
            req = urllib.request.Request(a.endpoint, data=bodies[i], headers={"Content-Type": "application/x-protobuf"})
            start = time.perf_counter()
            with urllib.request.urlopen(req, timeout=30) as r:
                r.read()
            with lock:
                latencies.append((time.perf_counter() - start) * 1000)

    start = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(a.threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    secs = time.perf_counter() - start
    latencies.sort()
    pct = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]
    spans = a.exports * a.traces * 3
    print(json.dumps({"exports": a.exports, "spans": spans, "bytes_per_export": len(bodies[0]), "seconds": round(secs, 3),
                      "spans_per_s": round(spans / secs), "export_ms_p50": round(pct(0.5), 2), "export_ms_p99": round(pct(0.99), 2)}))


if __name__ == "__main__":
    main()
