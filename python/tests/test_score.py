"""ragjudge.score against the command line's output, against hand calculation, and its input forms."""

import json
import math
import subprocess

import pandas as pd
import pytest

import ragjudge
from conftest import DATA, RUNS

METRICS = ["lexical", "ciu", "retrieval"]


def read_cli_csv(path):
    """A `ragjudge score -o x.csv` file as the frame ScoreResult.to_pandas() gives."""
    df = pd.read_csv(path, float_precision="round_trip", dtype={"id": object, "system": object},
                     keep_default_na=False, na_values={c: [""] for c in ["run"]})
    for c in df.columns:
        if c not in ("id", "system", "run", "error"):
            df[c] = pd.to_numeric(df[c].replace("", float("nan")), errors="raise").astype("float64")
    df["run"] = df["run"].astype("Int64")
    df["error"] = df["error"].replace("", None).astype(object)
    return df


def assert_frames_equal(got, want):
    assert list(got.columns) == list(want.columns)
    assert len(got) == len(want)
    for c in got.columns:
        g, w = got[c].tolist(), want[c].tolist()
        if pd.api.types.is_float_dtype(want[c]):
            for i, (x, y) in enumerate(zip(g, w)):
                assert (math.isnan(x) and math.isnan(y)) or x == y, (c, i, x, y)
        else:
            assert [None if pd.isna(x) else x for x in g] == [None if pd.isna(x) else x for x in w], c


def test_examples_equal_the_committed_cli_output(runs):
    got = ragjudge.score(runs, metrics=METRICS).to_pandas()
    want = read_cli_csv(DATA / "examples_scores.csv")
    assert len(got) == 124
    assert_frames_equal(got, want)


def test_examples_equal_the_cli_run_now(runs, cli, tmp_path):
    out = tmp_path / "scores.csv"
    proc = subprocess.run([cli, "score", "--input", *runs, "--metrics", ",".join(METRICS), "--output", str(out),
                           "--json"], check=True, capture_output=True, text=True)
    result = ragjudge.score(runs, metrics=METRICS)
    assert_frames_equal(result.to_pandas(), read_cli_csv(out))
    summary = json.loads(proc.stdout)
    summary.pop("output")
    assert result.summary_report == summary


def test_summary_equals_the_committed_cli_summary(runs):
    result = ragjudge.score(runs, metrics=METRICS)
    want = json.loads((DATA / "examples_summary.json").read_text())
    want.pop("output", None)
    assert result.summary_report == want
    s = result.summary
    row = s[(s.system == "oracle") & (s.metric == "token_f1")].iloc[0]
    assert row["n"] == 31 and row["ci_low"] <= row["mean"] <= row["ci_high"]


def test_in_memory_records_equal_the_files(runs):
    records = [json.loads(line) for p in RUNS for line in p.read_text().splitlines() if line.strip()]
    from_files = ragjudge.score(runs, metrics=METRICS).to_pandas()
    from_dicts = ragjudge.score(records, metrics=METRICS).to_pandas()
    assert_frames_equal(from_dicts, from_files)
    from_frame = ragjudge.score(pd.DataFrame(records), metrics=METRICS).to_pandas()
    assert_frames_equal(from_frame, from_files)


def test_values_by_hand():
    rec = {"id": "t1", "system": "s", "query": "Where did the cat sit?", "answer": "The cat sat quietly",
           "reference": "A cat sat on the mat",
           "contexts": [{"text": "x", "relevance": 0}, {"text": "y", "relevance": 3}, {"text": "z", "relevance": 2}]}
    r = ragjudge.score([rec], metrics=["lexical", "retrieval"], k=[1, 3], bootstrap=10)
    row = r.to_pandas().iloc[0]
    # SQuAD: lower-case, drop punctuation and articles -> answer [cat, sat, quietly],
    # reference [cat, sat, on, mat]; 2 common: P = 2/3, R = 1/2, F1 = 4/7.
    assert row["token_f1"] == pytest.approx(4 / 7, abs=1e-12)
    assert row["exact_match"] == 0.0
    # rouge-score tokens: [the, cat, sat, quietly] vs [a, cat, sat, on, the, mat]: 3 shared unigrams.
    assert row["rouge1_p"] == pytest.approx(3 / 4, abs=1e-12)
    assert row["rouge1_r"] == pytest.approx(3 / 6, abs=1e-12)
    assert row["rouge1_f"] == pytest.approx(0.6, abs=1e-12)
    # Relevant (grade >= 2) at ranks 2 and 3: P@1 = 0, P@3 = 2/3, MRR = 1/2,
    # AP@3 = mean(P@2, P@3) = (1/2 + 2/3) / 2 = 7/12, recall@3 = 2/2.
    assert row["precision@1"] == 0.0
    assert row["precision@3"] == pytest.approx(2 / 3, abs=1e-12)
    assert row["mrr"] == pytest.approx(0.5, abs=1e-12)
    assert row["ap@3"] == pytest.approx(7 / 12, abs=1e-12)
    assert row["recall@3"] == pytest.approx(1.0, abs=1e-12)
    assert r["token_f1"] == [row["token_f1"]]
    assert pd.isna(row["error"])


def ragas_frame(path):
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    ragas = pd.DataFrame({
        "user_input": [r["query"] for r in rows],
        "retrieved_contexts": [[c["text"] for c in r["contexts"]] for r in rows],
        "response": [r["answer"] for r in rows],
        "reference": [r["reference"] for r in rows],
    })
    native = [{"query": r["query"], "contexts": [c["text"] for c in r["contexts"]], "answer": r["answer"],
               "reference": r["reference"]} for r in rows]
    return ragas, native


def test_a_ragas_frame_scores_as_the_native_records():
    ragas, native = ragas_frame(RUNS[0])
    a = ragjudge.score(ragas, metrics=["lexical", "ciu"]).to_pandas()
    b = ragjudge.score(native, metrics=["lexical", "ciu"]).to_pandas()
    assert_frames_equal(a, b)
    assert a["id"].tolist()[:2] == ["1", "2"] and set(a["system"]) == {"records"}

    class EvaluationDataset:  # the part of RAGAS' class that ragjudge uses
        def to_pandas(self):
            return ragas

    c = ragjudge.score(EvaluationDataset(), metrics=["lexical", "ciu"], system="rag-v1").to_pandas()
    assert set(c["system"]) == {"rag-v1"}
    assert_frames_equal(c.drop(columns="system"), a.drop(columns="system"))


def test_a_ragas_frame_read_from_csv_parses_its_list_cells(tmp_path):
    ragas, _ = ragas_frame(RUNS[0])
    path = tmp_path / "ragas.csv"
    ragas.to_csv(path, index=False)  # list cells become Python list literals, as RAGAS writes them
    a = ragjudge.score(pd.read_csv(path), metrics=["lexical", "ciu"]).to_pandas()
    b = ragjudge.score(ragas, metrics=["lexical", "ciu"]).to_pandas()
    assert_frames_equal(a, b)


def test_a_bad_record_raises_with_index_and_field():
    good = {"query": "q", "answer": "a"}
    with pytest.raises(ragjudge.RecordError) as e:
        ragjudge.score([good, good, {"query": "q"}])
    assert isinstance(e.value, ValueError)
    assert str(e.value) == "record 2: field `answer`: missing"
    assert (e.value.index, e.value.field) == (2, "answer")
    with pytest.raises(ragjudge.RecordError) as e:
        ragjudge.score([good, {"query": "q", "answer": "a", "contexts": [{"text": 5}]}])
    assert (e.value.index, e.value.field) == (1, "contexts[0].text")
    assert "record 1" in str(e.value) and "contexts[0].text" in str(e.value)
    with pytest.raises(ragjudge.RecordError) as e:
        ragjudge.score([good, {"query": "q", "answer": "a", "meta": {"x": {1, 2}}}])
    assert e.value.index == 1


def test_a_bad_record_in_a_file_names_file_and_line(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_text('{"query": "q", "answer": "a"}\n{"query": 3, "answer": "a"}\n')
    with pytest.raises(ragjudge.RecordError) as e:
        ragjudge.score(str(path))
    assert str(e.value) == f"{path}:2: field `query`: expected a string, found number"
    assert (e.value.line, e.value.field) == (2, "query")


def test_skip_invalid_counts_the_skipped_record():
    r = ragjudge.score([{"query": "q", "answer": "a"}, {"answer": "a"}], metrics="lexical", skip_invalid=True)
    assert len(r) == 1
    assert r.summary_report["skipped"] == 1
    assert r.warnings == ["skipped: record 1: field `query`: missing"]


def test_unknown_metric_is_a_value_error():
    with pytest.raises(ValueError, match="unknown metric `nope`"):
        ragjudge.score([{"query": "q", "answer": "a"}], metrics=["nope"])
    assert "lexical" in ragjudge.metric_families()
