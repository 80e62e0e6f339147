"""testgen gives what `ragjudge testgen` gives: the same plan without a model, and the same
questions through a scripted OpenAI-compatible judge on loopback."""

import json
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import ragjudge
from conftest import ROOT

CORPUS = ROOT / "examples" / "corpus" / "docs.jsonl"


def test_dry_run_plan_equals_the_cli(cli, tmp_path):
    out = tmp_path / "q.jsonl"
    proc = subprocess.run([cli, "testgen", "--corpus", str(CORPUS), "--output", str(out), "--dry-run",
                           "--sample", "12", "--seed", "3"], check=True, capture_output=True, text=True)
    want = json.loads(proc.stdout)
    topics_doc = json.loads((tmp_path / "q.testgen" / "topics.json").read_text())
    chunks = [json.loads(l) for l in (tmp_path / "q.testgen" / "chunks.jsonl").read_text().splitlines()]

    got = ragjudge.testgen(CORPUS, sample=12, seed=3, dry_run=True)
    assert got.summary == {"dry_run": True} and got.questions == []
    assert got.topics["topics"] == want["topics"]
    assert got.topics["calls"] == want["calls"]
    assert got.topics == topics_doc
    assert got.chunks.to_dict(orient="records") == chunks
    assert sum(t["sampled"] for t in got.topics["topics"]) == 12


class Judge(BaseHTTPRequestHandler):
    """Generation: one factual question quoting the passage's first word; label probabilities:
    P(Yes) = 0.9 for every check (answerable, grounded) and for 'answerable without the passage'
    0.1 (the request names general knowledge)."""

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        user = body["messages"][-1]["content"]
        if body.get("logprobs"):
            p_yes = 0.1 if "general knowledge" in user else 0.9
            import math
            top = [{"token": "Yes", "logprob": math.log(p_yes)}, {"token": "No", "logprob": math.log(1 - p_yes)}]
            msg = {"role": "assistant", "content": "Yes"}
            logprobs = {"content": [{"token": "Yes", "logprob": top[0]["logprob"], "top_logprobs": top}]}
        else:
            passage = user.splitlines()[1] if len(user.splitlines()) > 1 else user
            word = (passage.split() or ["it"])[0].strip('",.')
            text = json.dumps({"question": f"What does the passage say about {word}?", "answer": passage[:80]})
            msg, logprobs = {"role": "assistant", "content": text}, None
        answer = {"id": "x", "object": "chat.completion", "model": body["model"],
                  "choices": [{"index": 0, "finish_reason": "stop", "message": msg, "logprobs": logprobs}],
                  "usage": {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55}}
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def judge_server(monkeypatch):
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Judge)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{httpd.server_address[1]}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    yield httpd
    httpd.shutdown()


def test_generated_questions_equal_the_cli(cli, judge_server, tmp_path):
    common = ["--sample", "6", "--topics", "3", "--seed", "1", "--types", "factual"]
    out = tmp_path / "cli.jsonl"
    subprocess.run([cli, "testgen", "--corpus", str(CORPUS), "--output", str(out), "--judge", "openai:scripted",
                    "--no-cache", *common], check=True, capture_output=True, text=True)
    want = [json.loads(l) for l in out.read_text().splitlines()]

    got = ragjudge.testgen(CORPUS, "openai:scripted", sample=6, topics=3, seed=1, types=["factual"],
                            no_cache=True)
    assert got.questions == want
    assert len(want) > 0 and got.summary["questions"] == len(want)
    assert got.summary["per_type"] == {"factual": len(want)}
    frame = got.to_pandas()
    assert {"id", "query", "reference", "meta.topic", "meta.query_type", "meta.difficulty"} <= set(frame.columns)
    for q in got.questions:
        assert q["meta"]["source_ids"] and q["query"].startswith("What does the passage say about")
    path = tmp_path / "py.jsonl"
    got.save(path)
    assert [json.loads(l) for l in path.read_text().splitlines()] == want


def test_bad_settings_are_value_errors():
    with pytest.raises(ValueError, match="unknown query type `essay`"):
        ragjudge.testgen(CORPUS, types=["essay"], dry_run=True)
    with pytest.raises(ValueError, match="allocation must be"):
        ragjudge.testgen(CORPUS, allocation="random", dry_run=True)
    with pytest.raises(ValueError, match="nope.jsonl"):
        ragjudge.testgen(ROOT / "nope.jsonl", dry_run=True)
