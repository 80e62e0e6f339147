"""fuse gives what `ragjudge fuse fit` + `ragjudge fuse apply` give, and recovers a known linear
label exactly."""

import json
import subprocess

import pandas as pd
import pytest

import ragjudge
from conftest import ROOT

RATINGS = ROOT / "examples" / "human" / "ratings.csv"
RUNS = sorted((ROOT / "examples" / "runs").glob("*.jsonl"))


@pytest.fixture(scope="module")
def scored():
    return ragjudge.score([str(p) for p in RUNS], metrics=["lexical", "ciu"])


def test_linear_fusion_recovers_a_planted_linear_label(scored):
    # label = 1 + 2 ciu + 3 bleu: least squares on (ciu, bleu) must give it back exactly.
    frame = scored.to_pandas()
    labels = frame[["id", "system"]].assign(y=1 + 2 * frame["ciu"] + 3 * frame["bleu"])
    model = ragjudge.fuse(scored, labels, "y", inputs=["ciu", "bleu"], model="linear")
    assert model.name == "linear" and model.inputs == ["ciu", "bleu"]
    assert model.report["join"]["joined"] == len(frame) == 124
    out = model.predict(scored)
    assert list(out.columns) == ["id", "system", "fused"]
    assert (out["fused"] - labels["y"]).abs().max() < 1e-9
    assert model.report["training_spearman"] == pytest.approx(1.0)


def test_moe_fusion_equals_the_cli(scored, cli, tmp_path):
    scores = tmp_path / "scores.csv"
    subprocess.run([cli, "score", "--metrics", "lexical,ciu", "--output", str(scores), "--input",
                    *map(str, RUNS)], check=True, capture_output=True)
    saved = tmp_path / "cli.model.json"
    inputs = "bleu,rougeL_f,ciu,meteor"
    subprocess.run([cli, "fuse", "fit", "--scores", str(scores), "--labels", str(RATINGS), "--label-col",
                    "usefulness", "--inputs", inputs, "--model", "moe", "--seed", "3", "--epochs", "40",
                    "--save", str(saved)], check=True, capture_output=True)
    applied = tmp_path / "cli.fused.csv"
    subprocess.run([cli, "fuse", "apply", str(saved), "--scores", str(scores), "--output", str(applied)],
                   check=True, capture_output=True)
    want = pd.read_csv(applied, dtype={"id": str, "system": str})

    model = ragjudge.fuse(scores, RATINGS, "usefulness", inputs=inputs.split(","), model="moe", seed=3, epochs=40)
    cli_model = json.loads(saved.read_text())
    ours = json.loads(model.text)
    assert ours["model"] == cli_model["model"]
    assert ours["inputs"] == cli_model["inputs"]  # definitions read from the score file's sidecar
    got = model.predict(scores)
    assert list(got.columns) == list(want.columns)
    assert got["id"].tolist() == want["id"].tolist()
    for c in want.columns[2:]:
        assert (got[c] - want[c]).abs().max() < 1e-12, c
    # The CLI reads a model fitted in Python, and the other way round.
    path = tmp_path / "py.model.json"
    model.save(path)
    again = ragjudge.FusionModel.load(saved).predict(scored)
    assert (again["fused"] - want["fused"]).abs().max() < 1e-12
    subprocess.run([cli, "fuse", "apply", str(path), "--scores", str(scores), "--output",
                    str(tmp_path / "x.csv")], check=True, capture_output=True)


def test_a_shrunk_model_falls_back_as_the_cli_does_under_a_shift(scored, cli, tmp_path):
    # Fitted on the oracle's rows, applied to every system's: the shift check warns, and the
    # shrunk model scores as its single input, as `ragjudge fuse apply` does by default.
    frame = scored.to_pandas()
    oracle = frame[frame["system"] == "oracle"]
    labels = oracle[["id", "system"]].assign(y=1 + 2 * oracle["ciu"] + 3 * oracle["bleu"])
    model = ragjudge.fuse(oracle, labels, "y", inputs=["ciu", "bleu"], model="linear", shrink=0.25)
    with pytest.warns(UserWarning, match="scores as its single input"):
        got = model.predict(frame)
    assert got.attrs["shift_warned"] is True and got.attrs["fell_back_to"] in ("ciu", "bleu")
    scores = tmp_path / "scores.csv"
    frame.to_csv(scores, index=False)
    path = tmp_path / "m.json"
    model.save(path)
    applied = tmp_path / "applied.csv"
    subprocess.run([cli, "fuse", "apply", str(path), "--scores", str(scores), "--output", str(applied)],
                   check=True, capture_output=True)
    want = pd.read_csv(applied, dtype={"id": str, "system": str})
    assert (got["fused"] - want["fused"]).abs().max() < 1e-12
    # The training rows themselves: no warning, the model's own score.
    same = model.predict(oracle)
    assert same.attrs["shift_warned"] is False and same.attrs["fell_back_to"] is None


def test_a_model_refuses_inputs_computed_differently(scored):
    frame = scored.to_pandas()
    labels = frame[["id", "system"]].assign(y=frame["ciu"] + frame["bleu"])
    model = ragjudge.fuse(scored, labels, "y", inputs=["ciu", "bleu"], model="linear")
    other = ragjudge.score([str(p) for p in RUNS], metrics=["lexical", "ciu"], ciu_c_char=0.01)
    with pytest.raises(ValueError, match="computed differently.*ciu"):
        model.predict(other)
    # A bare frame carries no definitions: nothing to check, so it is scored.
    assert model.predict(other.to_pandas())["fused"].notna().all()


def test_bad_joins_are_errors_naming_the_row(scored):
    frame = scored.to_pandas()
    labels = frame[["id", "system"]].assign(y=frame["ciu"])
    with pytest.raises(ValueError, match=r"labels: row 1: key \(id=.*\) repeated"):
        ragjudge.fuse(scored, pd.concat([labels.iloc[:1], labels]), "y", inputs=["ciu"], model="linear")
    holes = frame.copy()
    holes.loc[5, "ciu"] = float("nan")
    with pytest.raises(ValueError, match=r"row 5 .*no value of `ciu`"):
        ragjudge.fuse(holes, labels, "y", inputs=["ciu"], model="linear")
    with pytest.raises(ValueError, match="no column nope"):
        ragjudge.fuse(scored, labels, "y", inputs=["nope"])
    with pytest.raises(ValueError, match="constant label"):
        ragjudge.fuse(scored, labels.assign(y=1.0), "y", inputs=["ciu"], model="linear")
    with pytest.raises(ValueError, match="model must be"):
        ragjudge.fuse(scored, labels, "y", inputs=["ciu"], model="forest")
    # Scored rows without a label are counted, not fitted.
    m = ragjudge.fuse(scored, labels.iloc[:60], "y", inputs=["ciu"], model="linear")
    assert m.report["join"]["joined"] == 60 and m.report["join"]["scores_without_label"] == 64
