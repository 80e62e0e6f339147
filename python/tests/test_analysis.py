"""calibrate and weakness give what `ragjudge calibrate` and `ragjudge weakness` give."""

import json
import subprocess

import pandas as pd
import pytest

import ragjudge
from conftest import ROOT

RATINGS = ROOT / "examples" / "human" / "ratings.csv"


@pytest.fixture(scope="module")
def scored(runs):
    return ragjudge.score(runs, metrics=["lexical", "ciu", "retrieval"])


def test_calibration_fits_and_applies(scored, tmp_path):
    cal = ragjudge.calibrate(scored.to_pandas(), RATINGS, score_col="rougeL_f", label_col="usefulness", binarize=4)
    assert cal.report["joined"] == 124 and cal.report["labels"] == [0.0, 1.0]
    out = cal.apply(scored.to_pandas())
    assert list(out.columns) == ["id", "system", "p_0", "p_1", "set_lac"]
    assert (out["p_0"] + out["p_1"]).sub(1).abs().max() < 1e-12
    # Platt scaling is monotone in the score: order by rougeL_f, P(useful) must not fall.
    frame = scored.to_pandas().dropna(subset=["rougeL_f"]).reset_index(drop=True)
    order = frame["rougeL_f"].argsort(kind="stable")
    p = out["p_1"].to_numpy()[order]
    assert all(a <= b + 1e-15 for a, b in zip(p, p[1:]))
    path = tmp_path / "cal.json"
    cal.save(path)
    assert ragjudge.Calibration.load(path).calibrator == cal.calibrator


def test_calibration_equals_the_cli(scored, cli, tmp_path):
    scores = tmp_path / "scores.csv"
    subprocess.run([cli, "score", "--input", *map(str, sorted((ROOT / "examples" / "runs").glob("*.jsonl"))),
                    "--output", str(scores)], check=True, capture_output=True)
    saved = tmp_path / "cli_cal.json"
    proc = subprocess.run([cli, "calibrate", "--scores", str(scores), "--labels", str(RATINGS), "--score-col",
                           "rougeL_f,ciu", "--label-col", "usefulness", "--method", "ordinal", "--json",
                           "--save", str(saved)], check=True, capture_output=True, text=True)
    want = json.loads(proc.stdout)
    cal = ragjudge.calibrate(scores, RATINGS, score_col=["rougeL_f", "ciu"], label_col="usefulness", method="ordinal")
    for key in ("method", "labels", "joined", "fit", "calibration", "test", "calibrator", "quality", "sets",
                "reliability", "rows"):
        assert cal.report[key] == want[key], key
    assert cal.calibrator == json.loads(saved.read_text())
    applied = tmp_path / "applied.csv"
    subprocess.run([cli, "calibrate", "--apply", str(saved), "--scores", str(scores), "--output", str(applied)],
                   check=True, capture_output=True)
    cli_out = pd.read_csv(applied, float_precision="round_trip", dtype={"id": str})
    ours = cal.apply(scores)
    for level in ("1", "2", "3", "4", "5"):
        assert ours[f"p_{level}"].tolist() == cli_out[f"p_{level}"].tolist()
    as_text = ["{" + ",".join(str(int(v)) for v in s) + "}" for s in ours["set_lac"]]
    assert as_text == cli_out["set_lac"].tolist()


def test_weakness_equals_the_cli(scored, runs, cli, tmp_path):
    scores = tmp_path / "scores.csv"
    subprocess.run([cli, "score", "--input", *runs, "--output", str(scores)], check=True, capture_output=True)
    proc = subprocess.run([cli, "weakness", "--scores", str(scores), "--input", *runs, "--by", "topic,query_type",
                           "--metric", "rougeL_f,mrr", "--json"], check=True, capture_output=True, text=True)
    want = {m["metric"]: m for m in json.loads(proc.stdout)}
    got = ragjudge.weakness(scored, by=["topic", "query_type"], metric=["rougeL_f", "mrr"], records=runs)
    for metric in ("rougeL_f", "mrr"):
        assert got.reports[metric] == want[metric]["report"], metric
        assert got.rows_left_out[metric] == want[metric]["rows_left_out"]
    assert set(got.slices["metric"]) == {"rougeL_f", "mrr"}


def test_weakness_by_columns_of_the_frame(scored, runs):
    records = [json.loads(line) for p in runs for line in open(p) if line.strip()]
    frame = scored.to_pandas()
    topics = {(r["id"], r["system"]): r["meta"]["topic"] for r in records}
    frame["topic"] = [topics[(i, s)] for i, s in zip(frame["id"], frame["system"])]
    by_column = ragjudge.weakness(frame, by="topic", metric="rougeL_f")
    by_meta = ragjudge.weakness(scored, by="topic", metric="rougeL_f", records=runs)
    assert by_column.reports == by_meta.reports
