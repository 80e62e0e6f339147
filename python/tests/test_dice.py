"""compare and tournament through a scripted OpenAI-compatible judge on loopback: a judge that
always prefers the answer shown first, so that swap averaging must turn every question into a tie."""

import json
import math
import subprocess

import pytest

import ragjudge
from conftest import RUNS, start_judge

# P(A) = 0.7, P(B) = 0.2, P(C = tie) = 0.1 for every verdict.
TOP = [("A", math.log(0.7)), ("B", math.log(0.2)), ("C", math.log(0.1))]


class Judge:
    calls = 0

    @staticmethod
    def reply(body):
        Judge.calls += 1
        return "A", TOP


@pytest.fixture(scope="module")
def server(monkeypatch_module):
    httpd = start_judge(Judge.reply, monkeypatch_module)
    yield httpd
    httpd.shutdown()


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


IDS = ["q01", "q02", "q03"]


def test_compare_averages_out_a_first_position_judge(server, tmp_path):
    m = ragjudge.compare(str(RUNS[1]), str(RUNS[3]), judge="openai:scripted", output=tmp_path, reasoning=False,
                         ids=IDS, no_cache=True)
    # Each order: s = P(first) + P(tie)/2 in DICE's soft scoring is not needed here: the two
    # orders give A the win once each, so each question is a tie, S_A = 0.5.
    assert m.report["questions"] == 3
    assert m.s_a == pytest.approx(0.5, abs=1e-12)
    assert m.questions["id"].tolist() == IDS
    assert m.report["trust"]["first_position_rate"] == 1.0
    assert (tmp_path / "compare.json").exists() and (tmp_path / "labels.jsonl").exists()
    assert "judge trust" in m.trust


def test_compare_equals_the_cli(server, cli, tmp_path):
    py = ragjudge.compare(str(RUNS[1]), str(RUNS[3]), judge="openai:scripted", output=tmp_path / "py",
                          reasoning=False, ids=IDS, no_cache=True)
    subprocess.run([cli, "compare", str(RUNS[1]), str(RUNS[3]), "--judge", "openai:scripted", "--no-reasoning",
                    "--ids", ",".join(IDS), "--no-cache", "--output", str(tmp_path / "cli")], check=True,
                   capture_output=True)
    want = json.loads((tmp_path / "cli" / "compare.json").read_text())
    for key in ("system_a", "system_b", "questions", "s_a", "s_b", "wins_a", "ties", "wins_b",
                "order_consistency", "categories", "trust"):
        assert py.report[key] == want[key], key
    assert (tmp_path / "py" / "labels.jsonl").read_text() == (tmp_path / "cli" / "labels.jsonl").read_text()


def test_tournament_ranks_four_systems(server, tmp_path):
    t = ragjudge.tournament([str(p) for p in RUNS], judge="openai:scripted", output=tmp_path, format="round-robin",
                            reasoning=False, ids=IDS[:2], no_cache=True)
    assert sorted(t.leaderboard["system"]) == ["abstain", "oracle", "partial", "wrong"]
    assert t.report["judge_calls"] == 6 * 2 * 2  # 6 pairs x 2 questions x 2 orders
    assert (t.leaderboard["ties"] == 3).all()


def test_tournament_writes_the_very_files_of_the_cli(server, cli, tmp_path):
    # One library job behind both faces: leaderboard.json (provenance included: record digests,
    # judge, prompts, settings) and leaderboard.csv are byte for byte the same.
    ragjudge.tournament([str(p) for p in RUNS], judge="openai:scripted", output=tmp_path / "py", format="round-robin",
                        reasoning=False, ids=IDS[:2], no_cache=True)
    subprocess.run([cli, "tournament", *[str(p) for p in RUNS], "--judge", "openai:scripted", "--format", "round-robin",
                    "--no-reasoning", "--ids", ",".join(IDS[:2]), "--no-cache", "--output", str(tmp_path / "cli")],
                   check=True, capture_output=True)
    for name in ("leaderboard.json", "leaderboard.csv"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    doc = json.loads((tmp_path / "cli" / "leaderboard.json").read_text())
    assert (doc["kind"], doc["schema_version"]) == ("leaderboard", 1)
    assert [i["path"] for i in doc["provenance"]["inputs"]] == [f"records of {s}" for s in ("abstain", "oracle", "partial", "wrong")]


def test_a_bad_record_in_a_match_raises(server, tmp_path):
    with pytest.raises(ragjudge.RecordError) as e:
        ragjudge.compare([{"id": "q1", "query": "q", "answer": "a"}, {"id": "q2", "answer": "a"}],
                         [{"id": "q1", "query": "q", "answer": "b"}], judge="openai:scripted", output=tmp_path)
    assert (e.value.index, e.value.field) == (1, "query")


def test_a_claims_tournament_grades_each_answer_once(tmp_path, monkeypatch):
    # Every claim check: P(Yes) = 0.8. An answer with claims has p = c = 0.8 and utility
    # 0.8 * (0.8 + 0.2 / 2) - 0.2 = 0.52; abstain declines on both questions (utility 0).
    calls = []

    def reply(body):
        calls.append(body)
        return "Yes", [("Yes", math.log(0.8)), ("No", math.log(0.2))]

    httpd = start_judge(reply, monkeypatch)
    try:
        t = ragjudge.tournament([str(p) for p in RUNS], judge="openai:scripted", output=tmp_path,
                                protocol="claims", format="round-robin", ids=["q01", "q04"], no_cache=True)
    finally:
        httpd.shutdown()
    # Checks (support per claim + coverage per reference sentence): oracle 4, partial 3, wrong 3
    # on each of q01 and q04; each answer graded once across its three matches.
    assert t.report["judge_calls"] == 20 and len(calls) == 20
    assert t.report["protocol"] == "claims"
    assert list(t.leaderboard["system"])[-1] == "abstain"
    assert len((tmp_path / "verdicts.jsonl").read_text().splitlines()) == 12
    with pytest.raises(ValueError, match="unknown protocol `vibes`"):
        ragjudge.compare(str(RUNS[0]), str(RUNS[1]), judge="openai:scripted", output=tmp_path, protocol="vibes")
