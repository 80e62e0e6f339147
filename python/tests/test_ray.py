"""ragjudge.ray: Arrow blocks through the C data interface, scored on a local Ray cluster, against
the command line's committed output of the same records."""

import json
import math
import os

import pyarrow as pa
import pytest

import ragjudge
import ragjudge.ray as rr
from conftest import DATA, RUNS
from test_score import assert_frames_equal, read_cli_csv

METRICS = ["lexical", "ciu", "retrieval"]
KEY = ["id", "system", "run"]


def example_table(chunk=None):
    """The example runs as one Arrow table (the columns of Parquet input), in ``chunk``-row chunks."""
    records = [json.loads(line) for p in RUNS for line in p.read_text().splitlines() if line.strip()]
    # Every key in every row: pyarrow infers the columns from the first row alone.
    keys = sorted({k for r in records for k in r})
    table = pa.Table.from_pylist([{k: r.get(k) for k in keys} for r in records])
    return table if chunk is None else pa.Table.from_batches(table.to_batches(max_chunksize=chunk))


def sorted_frame(df):
    return df.sort_values(["id", "system"], kind="stable").reset_index(drop=True)


def cli_rows():
    return sorted_frame(read_cli_csv(DATA / "examples_scores.csv"))


def as_cli_frame(table):
    """Arrow score rows as the frame `read_cli_csv` gives."""
    return cli_frame(table.to_pandas())


def cli_frame(df):
    """Score rows from pandas (any null representation) as the frame `read_cli_csv` gives."""
    for c in df.columns:
        if c not in ("id", "system", "run", "error"):
            df[c] = df[c].to_numpy(dtype="float64", na_value=float("nan"))
    df["run"] = df["run"].astype("Int64")
    df["error"] = df["error"].astype(object).where(df["error"].notna(), None)
    return sorted_frame(df)


def assert_summary_equal(got, want):
    """Counts and means exactly; standard deviations and interval ends up to the order of
    summation (1e-12 relative), as shards and merge (docs/scale.md)."""
    for k in ("records", "skipped", "failed", "level", "bootstrap"):
        assert got[k] == want[k], k
    want_systems = {s["system"]: s for s in want["systems"]}
    assert sorted(want_systems) == sorted(s["system"] for s in got["systems"])
    for s in got["systems"]:
        w = want_systems[s["system"]]
        assert (s["records"], s["failed"]) == (w["records"], w["failed"])
        for g, m in zip(s["metrics"], w["metrics"]):
            assert (g["metric"], g["n"], g["mean"]) == (m["metric"], m["n"], m["mean"])
            for k in ("std", "ci_low", "ci_high"):
                if m[k] is None:
                    assert g[k] is None, (s["system"], g["metric"], k)
                else:
                    assert math.isclose(g[k], m[k], rel_tol=1e-12, abs_tol=1e-15), (s["system"], g["metric"], k)


def test_a_block_scored_through_the_c_interface_equals_the_cli():
    scorer = rr.ScoreBatches(metrics=METRICS)
    # A table of several chunks arrives as one stream; the rows keep its order.
    out = scorer(example_table(chunk=25))
    assert out.num_rows == 124 and out.column_names[:3] == KEY
    assert out.column_names[3:-1] == scorer.columns and out.column_names[-1] == "error"
    assert_frames_equal(as_cli_frame(out), cli_rows())


def test_a_malformed_record_names_its_row_and_field():
    table = example_table().slice(0, 5).drop_columns(["query"])
    with pytest.raises(ragjudge.RecordError) as e:
        rr.ScoreBatches(metrics=["lexical"])(table)
    assert e.value.line == 1 and e.value.field == "query", str(e.value)


def test_partial_summaries_merge_into_the_cli_summary():
    from ragjudge import _native

    rows = rr.ScoreBatches(metrics=METRICS)(example_table())
    parts = [rows.slice(0, 50), rows.slice(50, 30), rows.slice(80)]
    states = [_native.summary_state(p, bootstrap=1000, seed=0) for p in reversed(parts)]
    got = json.loads(_native.summary_from_states(states, level=0.95)["summary"])
    want = json.loads((DATA / "examples_summary.json").read_text())
    assert_summary_equal(got, want)
    with pytest.raises(ValueError, match="different bootstraps"):
        _native.summary_from_states(states + [_native.summary_state(parts[0], bootstrap=10, seed=0)])


@pytest.fixture(scope="module")
def ray_cluster():
    if os.environ.get("RAGJUDGE_REQUIRE_RAY"):
        import ray
    else:
        ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    ray.shutdown()


def test_a_ray_dataset_scores_and_summarises_as_the_cli(ray_cluster):
    # Four blocks. (Not `repartition`: an all-to-all step needs a CPU the two workers hold.)
    table = example_table()
    ds = ray_cluster.data.from_arrow([table.slice(i, 31) for i in range(0, 124, 31)])
    scores = rr.score(ds, metrics=METRICS, batch_size=16, concurrency=2).materialize()
    got = cli_frame(scores.to_pandas())
    assert len(got) == 124
    assert_frames_equal(got, cli_rows())
    summary = rr.summarize(scores, batch_size=40)
    want = json.loads((DATA / "examples_summary.json").read_text())
    assert_summary_equal(summary.report, want)
    assert "oracle" in summary.table and len(summary.frame) == 4 * len(summary.report["systems"][0]["metrics"])


def test_a_tournament_judged_by_ray_tasks_equals_one_process(ray_cluster, monkeypatch, tmp_path):
    import hashlib

    from conftest import start_judge

    asked = []

    def reply(body):
        # A judge that is not a constant: P(first) from a hash of the prompt, so the leaderboard
        # depends on every verdict, and the same prompt always gets the same answer.
        asked.append(1)
        h = int(hashlib.sha256(json.dumps(body["messages"]).encode()).hexdigest()[:8], 16)
        p = 0.05 + 0.9 * (h % 1000) / 999
        return "a", [("a", math.log(p)), ("b", math.log(1 - p))]

    httpd = start_judge(reply, monkeypatch)
    try:
        runs = [str(p) for p in RUNS]
        opts = dict(protocol="two-label", format="round-robin", ids=[f"q{i:02d}" for i in range(1, 9)])
        one = ragjudge.tournament(runs, "openai:scripted", cache=tmp_path / "one.sqlite", **opts)
        calls = len(asked)
        assert calls == 6 * 8 * 2
        on_ray = rr.tournament(runs, "openai:scripted", cache=tmp_path / "ray.sqlite", parts=3, **opts)
        # The parts made each call once; the final run asked nothing.
        assert len(asked) == 2 * calls
    finally:
        httpd.shutdown()
    assert on_ray.leaderboard.equals(one.leaderboard)
    assert on_ray.report["matches"] == one.report["matches"]
