"""testgen gives what `ragjudge testgen` gives: the same plan without a model, and the same
questions through a scripted OpenAI-compatible judge on loopback."""

import json
import math
import subprocess

import pytest

import ragjudge
from conftest import ROOT, start_judge

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


def reply(body):
    """Generation: one factual question quoting the passage's first eight words (so that it finds
    its passage in the collection), and asked to answer it, the passage's first 80 characters (the
    reference); label probabilities:
    P(Yes) = 0.9 for every check (answerable, grounded) and for 'answerable without the passage'
    0.1 (the request names general knowledge)."""
    user = body["messages"][-1]["content"]
    if body.get("logprobs"):
        p_yes = 0.1 if "general knowledge" in user else 0.9
        return "Yes", [("Yes", math.log(p_yes)), ("No", math.log(1 - p_yes))]
    passage = user.splitlines()[1] if len(user.splitlines()) > 1 else user
    if "from the passage alone" in user:
        return passage[:80], None  # the reference check's own answer: the reference itself
    words = " ".join(w.strip('",.') for w in passage.split()[:8]) or "it"
    return json.dumps({"question": f"What is known about {words}?", "answer": passage[:80]}), None


@pytest.fixture
def judge_server(monkeypatch):
    httpd = start_judge(reply, monkeypatch)
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
        assert q["meta"]["source_ids"] and q["query"].startswith("What is known about")
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
