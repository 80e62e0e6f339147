"""A toy RAG application instrumented with the OpenTelemetry SDK and the OTLP/HTTP exporter,
with OpenInference attribute names: each question is a trace (a CHAIN root, a RETRIEVER span
with its passages, an LLM span with its messages), questions come in conversations of three
turns (`session.id`), and the LLM is sent the conversation so far.

    python toy_rag.py --endpoint http://127.0.0.1:8080/v1/traces --questions 120 --drop-after 60

Answers are grounded (a sentence of the best passage) until `--drop-after` questions, then made
up (words from none of the passages): the planted fall of groundedness a monitor must catch.
For the latency comparison of bench/traces: `--work-ms` stands in for the retriever's and the
model's time (sleeps), `--export none` keeps the instrumentation but exports nothing, and the
per-question latencies (ms) go to `--latencies FILE`.
"""
import argparse
import json
import random
import time

from openinference.semconv.trace import (
    DocumentAttributes as D,
    MessageAttributes as M,
    OpenInferenceSpanKindValues as K,
    SpanAttributes as A,
)
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

TOPICS = ["warranty", "battery", "shipping", "returns", "pricing", "support", "privacy", "updates"]
CORPUS = [
    (f"{t}#{i}", f"The {t} policy, section {i}, says customers get {d} for {t} requests handled within {n} days.")
    for t in TOPICS
    for i, (d, n) in enumerate([("a full refund", 14), ("free repairs", 30), ("priority service", 7)])
]
MADE_UP = ["Purple elephants", "migrate across", "frozen volcanoes", "whenever comets", "sing loudly", "at midnight"]


WORK_S = 0.0


def retrieve(question, k=3):
    time.sleep(WORK_S / 4)
    words = set(question.lower().split())
    scored = sorted(CORPUS, key=lambda d: -len(words & set(d[1].lower().split())))
    return [(doc_id, text, float(len(words & set(text.lower().split())))) for doc_id, text in scored[:k]]


def generate(question, passages, grounded, rng):
    time.sleep(WORK_S * 3 / 4)
    if grounded:
        return passages[0][1] + " [1]"
    return " ".join(rng.sample(MADE_UP, 4)) + "."


class Pipeline:
    def __init__(self, tracer):
        self.tracer = tracer

    def span(self, name, attrs):
        return self.tracer.start_as_current_span(name, attributes=attrs)

    def ask(self, question, session, history, grounded, rng):
        with self.span("rag", {A.OPENINFERENCE_SPAN_KIND: K.CHAIN.value, A.INPUT_VALUE: question, A.SESSION_ID: session}) as root:
            with self.span("retrieve", {A.OPENINFERENCE_SPAN_KIND: K.RETRIEVER.value, A.INPUT_VALUE: question}) as r:
                passages = retrieve(question)
                for i, (doc_id, text, score) in enumerate(passages):
                    r.set_attribute(f"{A.RETRIEVAL_DOCUMENTS}.{i}.{D.DOCUMENT_ID}", doc_id)
                    r.set_attribute(f"{A.RETRIEVAL_DOCUMENTS}.{i}.{D.DOCUMENT_CONTENT}", text)
                    r.set_attribute(f"{A.RETRIEVAL_DOCUMENTS}.{i}.{D.DOCUMENT_SCORE}", score)
            messages = [("system", "Answer from the passages.")] + history + [("user", question)]
            attrs = {A.OPENINFERENCE_SPAN_KIND: K.LLM.value, A.LLM_MODEL_NAME: "toy-llm"}
            for i, (role, text) in enumerate(messages):
                attrs[f"{A.LLM_INPUT_MESSAGES}.{i}.{M.MESSAGE_ROLE}"] = role
                attrs[f"{A.LLM_INPUT_MESSAGES}.{i}.{M.MESSAGE_CONTENT}"] = text
            with self.span("chat", attrs) as llm:
                answer = generate(question, passages, grounded, rng)
                llm.set_attribute(f"{A.LLM_OUTPUT_MESSAGES}.0.{M.MESSAGE_ROLE}", "assistant")
                llm.set_attribute(f"{A.LLM_OUTPUT_MESSAGES}.0.{M.MESSAGE_CONTENT}", answer)
                llm.set_attribute(A.LLM_TOKEN_COUNT_PROMPT, sum(len(t.split()) for _, t in messages))
                llm.set_attribute(A.LLM_TOKEN_COUNT_COMPLETION, len(answer.split()))
            root.set_attribute(A.OUTPUT_VALUE, answer)
            return answer


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--endpoint", default="http://127.0.0.1:8080/v1/traces")
    p.add_argument("--questions", type=int, default=120)
    p.add_argument("--drop-after", type=int, default=None)
    p.add_argument("--turns", type=int, default=3)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--export", choices=["otlp", "none"], default="otlp")
    p.add_argument("--work-ms", type=float, default=0.0)
    p.add_argument("--latencies", default=None)
    a = p.parse_args()
    global WORK_S
    WORK_S = a.work_ms / 1000
    rng = random.Random(a.seed)
    provider = TracerProvider(resource=Resource({"service.name": "toy-rag"}))
    if a.export == "otlp":
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=a.endpoint, timeout=10)))
    pipeline = Pipeline(provider.get_tracer("toy_rag"))
    latencies = []
    history = []
    for n in range(a.questions):
        if n % a.turns == 0:
            history = []
        topic = rng.choice(TOPICS)
        question = f"What does the {topic} policy give customers for {topic} requests?"
        grounded = a.drop_after is None or n < a.drop_after
        start = time.perf_counter()
        answer = pipeline.ask(question, f"conv-{n // a.turns}", history, grounded, rng)
        latencies.append((time.perf_counter() - start) * 1000)
        history = history + [("user", question), ("assistant", answer)]
    provider.force_flush()
    provider.shutdown()
    if a.latencies:
        with open(a.latencies, "w") as f:
            json.dump(latencies, f)


if __name__ == "__main__":
    main()
