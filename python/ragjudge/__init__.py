"""ragjudge from Python: score RAG records into pandas DataFrames with ragjudge's engine.

    import ragjudge
    result = ragjudge.score("examples/runs/oracle.jsonl", metrics=["lexical", "ciu"])
    df = result.to_pandas()          # one row per record, the columns of `ragjudge score -o x.csv`
    result.summary                   # per system and metric: n, mean, std, 95% bootstrap CI

Records are the project's record objects (``id, system, query, contexts, answer, reference,
history, meta``) as a list of dicts or a DataFrame, a RAGAS ``EvaluationDataset`` (or its frame:
``user_input, retrieved_contexts, response, reference``) as it is, or record files (JSONL, CSV,
RAGAS, Open RAG Eval). Scoring and judging release the GIL. See docs/python.md.
"""

from __future__ import annotations

import ast
import json
import math
import os
import tempfile
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

import pandas as pd

from . import _native
from ._native import RecordError

__all__ = [
    "RecordError",
    "ScoreResult",
    "MatchResult",
    "TournamentResult",
    "Calibration",
    "WeaknessResult",
    "FusionModel",
    "TestgenResult",
    "score",
    "compare",
    "tournament",
    "calibrate",
    "weakness",
    "fuse",
    "testgen",
    "metric_families",
    "to_records",
]

__version__: str = _native.__version__

#: The judge every judging call uses unless told otherwise (as the command line).
DEFAULT_JUDGE = "local:qwen2.5-1.5b"

PathLike = Union[str, "os.PathLike[str]"]
Records = Union[pd.DataFrame, Sequence[Dict[str, Any]], Any]

# Cells that hold JSON (or, in RAGAS CSV exports, Python list literals) when a frame was read
# from a CSV file.
_STRUCTURED = ("contexts", "retrieved_contexts", "history", "meta")


def metric_families() -> List[str]:
    """The metric families ``score`` knows (``--metrics`` of the command line)."""
    return list(_native.metric_families())


def _clean(value: Any) -> Any:
    """A JSON-ready copy of ``value``: numpy arrays and scalars to Python, NaN / NA to None."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    tolist = getattr(value, "tolist", None)
    if callable(tolist):  # numpy arrays and scalars
        return _clean(tolist())
    try:
        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return value


def _parse_cell(key: str, value: Any) -> Any:
    """A structured cell given as text (a frame read from CSV) parsed as JSON or a Python literal."""
    if key not in _STRUCTURED or not isinstance(value, str):
        return value
    text = value.strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return value  # the engine reports the field as malformed


def _frame_records(frame: pd.DataFrame) -> List[Dict[str, Any]]:
    """Rows of a frame as record dicts; ``meta.X`` columns become meta keys."""
    out = []
    meta_cols = [c for c in frame.columns if isinstance(c, str) and c.startswith("meta.")]
    for row in frame.to_dict(orient="records"):
        rec: Dict[str, Any] = {}
        meta: Dict[str, Any] = {}
        for k, v in row.items():
            k = str(k)
            if k in meta_cols:
                v = _clean(v)
                if v is not None:
                    meta[k[len("meta."):]] = v
            else:
                rec[k] = _parse_cell(k, v)
        if meta:
            base = _clean(rec.get("meta")) or {}
            rec["meta"] = {**base, **meta} if isinstance(base, dict) else base
        out.append(rec)
    return out


def to_records(data: Records) -> List[Dict[str, Any]]:
    """Records as a list of dicts from a list of dicts, a DataFrame or a RAGAS ``EvaluationDataset``."""
    if isinstance(data, pd.DataFrame):
        return _frame_records(data)
    to_pandas = getattr(data, "to_pandas", None)
    if callable(to_pandas):  # a RAGAS EvaluationDataset, or anything that becomes a frame
        return _frame_records(to_pandas())
    if isinstance(data, dict):
        raise TypeError("records: expected a list of dicts or a DataFrame, got one dict (wrap it in a list)")
    return [r if not isinstance(r, dict) else {str(k): _parse_cell(str(k), v) for k, v in r.items()} for r in data]


def _json_lines(data: Records) -> List[str]:
    """One JSON text per record; a record that cannot be written as JSON is a RecordError."""
    lines = []
    for i, rec in enumerate(to_records(data)):
        try:
            lines.append(json.dumps(_clean(rec), ensure_ascii=False, allow_nan=False))
        except (TypeError, ValueError) as e:
            err = RecordError(f"record {i}: cannot be written as JSON: {e}")
            err.index, err.field, err.file, err.line = i, None, None, None
            raise err from None
    return lines


def _is_paths(data: Any) -> bool:
    if isinstance(data, (str, os.PathLike)):
        return True
    return isinstance(data, (list, tuple)) and len(data) > 0 and all(isinstance(d, (str, os.PathLike)) for d in data)


def _names(metrics: Union[str, Sequence[str]]) -> List[str]:
    if isinstance(metrics, str):
        return [m.strip() for m in metrics.split(",") if m.strip()]
    return [str(m) for m in metrics]


@dataclass
class ScoreResult:
    """What ``score`` computed: per-record rows, per-system summary, evidence and warnings.

    Like a RAGAS ``EvaluationResult``: ``to_pandas()`` gives the per-record frame and
    ``result[column]`` one column's values in record order.
    """

    columns: List[str]
    """Metric columns, in order."""
    summary_report: Dict[str, Any]
    """The per-system summary as ``ragjudge score --json`` prints it."""
    details: List[Optional[Dict[str, Any]]]
    """Per record, each metric family's evidence (what the JSONL output keeps), or None."""
    warnings: List[str]
    """Records skipped as invalid (``skip_invalid=True``) and other warnings, one line each."""
    table: str
    """The summary table as ``ragjudge score`` prints it."""
    _data: Dict[str, Any] = field(repr=False)
    definitions: Dict[str, Any] = field(default_factory=dict, repr=False)
    """Per metric column, how it was computed (family, version, settings): what ``score -o``
    writes beside a score file, and what a fusion model checks its inputs against."""

    def to_pandas(self, detail: bool = False) -> pd.DataFrame:
        """One row per record: ``id, system, run``, the metric columns, ``error`` (None when every
        metric succeeded); with ``detail=True`` also ``detail`` (dict of evidence per family).
        Values are float64 (NaN: the metric does not apply or failed, never silently: see ``error``)."""
        d = self._data
        frame = pd.DataFrame(
            {
                "id": pd.Series(d["id"], dtype=object),
                "system": pd.Series(d["system"], dtype=object),
                "run": pd.array(d["run"], dtype="Int64"),
            }
        )
        values = {c: pd.Series([float("nan") if v is None else v for v in col], dtype="float64")
                  for c, col in zip(self.columns, d["values"])}
        frame = pd.concat([frame, pd.DataFrame(values, index=frame.index)], axis=1)
        frame["error"] = pd.Series(d["error"], dtype=object)
        if detail:
            frame["detail"] = pd.Series(self.details, dtype=object)
        return frame

    @property
    def summary(self) -> pd.DataFrame:
        """Per system and metric: ``records, failed, n, mean, std, ci_low, ci_high`` (95% Poisson
        bootstrap interval of the mean unless ``level``/``bootstrap`` said otherwise)."""
        rows = []
        for s in self.summary_report["systems"]:
            for m in s["metrics"]:
                rows.append({"system": s["system"], "metric": m["metric"], "records": s["records"],
                             "failed": s["failed"], "n": m["n"], "mean": m["mean"], "std": m["std"],
                             "ci_low": m["ci_low"], "ci_high": m["ci_high"]})
        frame = pd.DataFrame(rows, columns=["system", "metric", "records", "failed", "n", "mean", "std",
                                            "ci_low", "ci_high"])
        for c in ("mean", "std", "ci_low", "ci_high"):
            frame[c] = frame[c].astype("float64")
        return frame

    def __getitem__(self, column: str) -> List[Optional[float]]:
        try:
            return list(self._data["values"][self.columns.index(column)])
        except ValueError:
            raise KeyError(column) from None

    def __len__(self) -> int:
        return len(self._data["id"])

    def __repr__(self) -> str:
        return self.table


def score(
    data: Union[Records, PathLike, Sequence[PathLike]],
    metrics: Union[str, Sequence[str]] = ("lexical", "ciu", "retrieval"),
    judge: Optional[str] = None,
    *,
    system: Optional[str] = None,
    format: str = "auto",
    skip_invalid: bool = False,
    bootstrap: int = 1000,
    seed: int = 0,
    threads: Optional[int] = None,
    k: Sequence[int] = (1, 3, 5),
    relevance_threshold: float = 2.0,
    skip_short_lists: bool = False,
    rouge_stemmer: bool = False,
    lang: str = "en",
    zh_rouge: str = "jieba",
    ciu_c_char: float = 0.005,
    ciu_position: bool = True,
    ciu_frequency: bool = True,
    ciu_effort: bool = True,
    ruber_model: Optional[PathLike] = None,
    embedder: str = "minilm",
    nli: Optional[str] = None,
    pii_model: str = "pii-ner",
    batch_size: int = 32,
    cache: Optional[PathLike] = None,
    no_cache: bool = False,
) -> ScoreResult:
    """Scores records with the metric families named (as ``ragjudge score --metrics``; a fitted
    fusion model is ``"fused:FILE"``) and summarises them per system.

    ``data``: a list of record dicts, a DataFrame of records, a RAGAS ``EvaluationDataset`` or
    its frame (``user_input, retrieved_contexts, response, reference``), or record file path(s).
    Records without ``system`` get ``system`` (default: ``records``; for files the file's stem).
    A malformed record raises ``RecordError`` naming the record (0-based position) and field,
    unless ``skip_invalid`` (then it is listed in ``warnings`` and counted in the summary).
    """
    opts = dict(
        metrics=_names(metrics), system=system, format=format, skip_invalid=skip_invalid,
        bootstrap=bootstrap, seed=seed, threads=threads, k=list(k), relevance_threshold=relevance_threshold,
        skip_short_lists=skip_short_lists, rouge_stemmer=rouge_stemmer, lang=lang,
        zh_rouge=zh_rouge, ciu_c_char=ciu_c_char,
        ciu_position=ciu_position, ciu_frequency=ciu_frequency, ciu_effort=ciu_effort,
        ruber_model=None if ruber_model is None else os.fspath(ruber_model), embedder=embedder, nli=nli,
        pii_model=pii_model, batch_size=batch_size, judge=judge or DEFAULT_JUDGE,
        cache=None if cache is None else os.fspath(cache), no_cache=no_cache,
    )
    if _is_paths(data):
        paths = [data] if isinstance(data, (str, os.PathLike)) else list(data)
        out = _native.score(paths=[os.fspath(p) for p in paths], options=_native.ScoreOptions(**opts))
    else:
        if system is None:
            opts["system"] = "records"
        out = _native.score(records=_json_lines(data), options=_native.ScoreOptions(**opts))
    return ScoreResult(
        columns=list(out["columns"]),
        summary_report=json.loads(out["summary"]),
        details=[None if d is None else json.loads(d) for d in out["detail"]],
        warnings=list(out["warnings"]),
        table=out["table"],
        _data=out,
        definitions=json.loads(out["definitions"]),
    )


def _dice_output(output: Optional[PathLike]) -> str:
    return os.fspath(output) if output is not None else tempfile.mkdtemp(prefix="ragjudge-dice-")


@dataclass
class MatchResult:
    """One DICE match (``compare``): the report of ``compare.json``, per-question scores, trust."""

    report: Dict[str, Any]
    questions: pd.DataFrame
    trust: str
    output: str

    @property
    def s_a(self) -> float:
        """Mean DICE score of the first system."""
        return float(self.report["s_a"])


@dataclass
class TournamentResult:
    """A DICE tournament: the leaderboard, the report of ``leaderboard.json``, trust."""

    leaderboard: pd.DataFrame
    report: Dict[str, Any]
    trust: str
    output: str


def compare(
    a: Union[Records, PathLike],
    b: Union[Records, PathLike],
    judge: str = DEFAULT_JUDGE,
    *,
    output: Optional[PathLike] = None,
    protocol: str = "dice",
    reasoning: bool = True,
    swap: bool = True,
    tau: float = 0.1,
    limit: Optional[int] = None,
    ids: Sequence[str] = (),
    lang: str = "auto",
    debias: bool = False,
    cache: Optional[PathLike] = None,
    no_cache: bool = False,
    threads: Optional[int] = None,
) -> MatchResult:
    """A DICE match between two systems' records, joined on ``id`` (``ragjudge compare``).
    ``protocol`` is ``dice`` or one of the protocols for small judges (``two-label``,
    ``pointwise``, ``claims``, ``ragchecker``, ``ensemble``; see docs/judge-eval.md). Traces, labels and, for the
    other protocols, ``verdicts.jsonl`` go to ``output`` (default: a new temporary directory)."""
    out = _dice_output(output)
    report, questions, trust = _native.compare(
        _json_lines(_load(a)), _json_lines(_load(b)), out, judge=judge, protocol=protocol, reasoning=reasoning,
        swap=swap, tau=tau, limit=limit, ids=list(ids), lang=lang, debias=debias, cache=None if cache is None else os.fspath(cache),
        no_cache=no_cache, threads=threads,
    )
    return MatchResult(json.loads(report), pd.DataFrame(json.loads(questions)), trust, out)


def tournament(
    runs: Union[Records, Sequence[PathLike]],
    judge: str = DEFAULT_JUDGE,
    *,
    output: Optional[PathLike] = None,
    protocol: str = "dice",
    format: str = "swiss",
    rounds: Optional[int] = None,
    rank_by: str = "bt",
    seed: int = 0,
    reasoning: bool = True,
    swap: bool = True,
    tau: float = 0.1,
    limit: Optional[int] = None,
    ids: Sequence[str] = (),
    lang: str = "auto",
    debias: bool = False,
    cache: Optional[PathLike] = None,
    no_cache: bool = False,
    threads: Optional[int] = None,
) -> TournamentResult:
    """A DICE tournament among the systems of ``runs`` (records of several systems, or run files),
    Swiss or round robin, ranked by Bradley-Terry (``rank_by="bt"``) or Elo (``ragjudge tournament``);
    ``protocol`` as for :func:`compare`."""
    lines = _run_lines(runs)
    out = _dice_output(output)
    report, trust = _native.tournament(
        lines, out, judge=judge, protocol=protocol, format=format, rounds=rounds, rank_by=rank_by, seed=seed, reasoning=reasoning,
        swap=swap, tau=tau, limit=limit, ids=list(ids), lang=lang, debias=debias,
        cache=None if cache is None else os.fspath(cache), no_cache=no_cache, threads=threads,
    )
    rep = json.loads(report)
    return TournamentResult(pd.DataFrame(rep["systems"]), rep, trust, out)


def _run_lines(runs: Union[Records, Sequence[PathLike]]) -> List[str]:
    """One JSON text per record of ``runs``: records of several systems, or run files (each
    file's stem the default system)."""
    if _is_paths(runs):
        paths = [runs] if isinstance(runs, (str, os.PathLike)) else list(runs)
        return [line for p in paths for line in _json_lines(_load(p))]
    return _json_lines(runs)


def _load(data: Union[Records, PathLike]) -> Records:
    """Records from a JSONL path (the file's stem is the default system), or ``data`` itself."""
    if not isinstance(data, (str, os.PathLike)):
        return data
    stem = os.path.splitext(os.path.basename(os.fspath(data)))[0]
    recs = []
    with open(data, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    rec = json.loads(line)
                except ValueError as e:
                    err = RecordError(f"{os.fspath(data)}:{n}: invalid JSON: {e}")
                    err.index, err.field, err.file, err.line = None, None, os.fspath(data), n
                    raise err from None
                if isinstance(rec, dict):
                    rec.setdefault("system", stem)
                recs.append(rec)
    return recs


def _frame(data: Union[pd.DataFrame, ScoreResult, PathLike]) -> pd.DataFrame:
    if isinstance(data, ScoreResult):
        return data.to_pandas()
    if isinstance(data, pd.DataFrame):
        return data
    path = os.fspath(data)
    if path.lower().endswith((".jsonl", ".ndjson", ".json")):
        return pd.read_json(path, lines=True, dtype=False)
    return pd.read_csv(path, float_precision="round_trip", dtype={"id": str, "system": str})


def _label_text(x: float) -> str:
    """A label as the command line writes it (``1``, ``4.5``)."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _join_keys(scores: pd.DataFrame, labels: pd.DataFrame, on: Optional[Sequence[str]]) -> List[str]:
    if on:
        return list(on)
    return ["id", "system"] if "system" in scores.columns and "system" in labels.columns else ["id"]


def _join_sides(
    s: pd.DataFrame, lab: pd.DataFrame, cols: List[str], label_col: str, on: Optional[Sequence[str]]
) -> "tuple[List[str], pd.DataFrame, pd.DataFrame]":
    """The join keys, the scores' key + ``cols`` columns and the labels' key + label columns,
    keys as text; a missing column is a ValueError naming the frame."""
    keys = _join_keys(s, lab, on)
    for name, frame, need in (("scores", s, keys + cols), ("labels", lab, keys + [label_col])):
        missing = [c for c in need if c not in frame.columns]
        if missing:
            raise ValueError(f"{name}: no column {', '.join(missing)}")
    left = s[keys + cols].copy()
    right = lab[keys + [label_col]].copy()
    for k in keys:
        left[k], right[k] = left[k].astype(str), right[k].astype(str)
    return keys, left, right


class Calibration:
    """A fitted two-stage calibration (HCAT §5): probabilities per label level, then split
    conformal prediction sets. Its JSON is the calibrator file of ``ragjudge calibrate --save``."""

    def __init__(self, calibrator_json: str, report: Optional[Dict[str, Any]] = None) -> None:
        self.calibrator: Dict[str, Any] = json.loads(calibrator_json)
        self._json = calibrator_json
        self.report: Dict[str, Any] = report or {}
        """The fit report (as ``ragjudge calibrate --json``): split, Brier, ECE, coverage, sets."""

    @classmethod
    def load(cls, path: PathLike) -> "Calibration":
        """A calibrator file written by ``save`` or ``ragjudge calibrate --save``."""
        with open(path, encoding="utf-8") as f:
            return cls(f.read())

    def save(self, path: PathLike) -> None:
        """Writes the calibrator file (readable by ``ragjudge calibrate --apply``)."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self._json + "\n")

    def to_json(self) -> str:
        return self._json

    def apply(self, scores: Union[pd.DataFrame, PathLike]) -> pd.DataFrame:
        """Calibrated probabilities ``p_LABEL`` and prediction sets ``set_lac`` (and ``set_aps``
        for more than two levels; lists of label values) for each row of ``scores`` that has
        every score column; the key columns the calibrator was fitted with come first."""
        frame = _frame(scores)
        cols = list(self.calibrator["score_columns"])
        missing = [c for c in cols if c not in frame.columns]
        if missing:
            raise ValueError(f"scores: no column {', '.join(missing)}")
        keep = frame.dropna(subset=cols)
        out = _native.calibrate_apply(self._json, keep[cols].astype("float64").values.tolist())
        result = keep[[k for k in self.calibrator.get("on", []) if k in keep.columns]].reset_index(drop=True)
        probs = out["probs"]
        for i, label in enumerate(out["labels"]):
            result[f"p_{_label_text(label)}"] = [p[i] for p in probs]
        for name in ("set_lac", "set_aps"):
            if name in out:
                result[name] = out[name]
        return result


def calibrate(
    scores: Union[pd.DataFrame, ScoreResult, PathLike],
    labels: Union[pd.DataFrame, PathLike],
    score_col: Union[str, Sequence[str]],
    label_col: str,
    *,
    on: Optional[Sequence[str]] = None,
    method: str = "platt",
    binarize: Optional[float] = None,
    alpha: float = 0.1,
    cal_fraction: float = 0.25,
    test_fraction: float = 0.25,
    seed: int = 42,
) -> Calibration:
    """Fits a calibrator of score column(s) to human labels (``ragjudge calibrate``): the frames
    are joined on ``on`` (default ``id, system`` when both have ``system``, else ``id``; the first
    of repeated keys in ``scores``), rows without every score or a label left out."""
    s, lab = _frame(scores), _frame(labels)
    cols = [score_col] if isinstance(score_col, str) else list(score_col)
    keys, left, right = _join_sides(s, lab, cols, label_col, on)
    left = left.drop_duplicates(subset=keys, keep="first")
    joined = left.merge(right.drop_duplicates(subset=keys, keep="first"), on=keys, how="inner")
    joined = joined.dropna(subset=cols + [label_col])
    if joined.empty:
        raise ValueError(f"no row of scores has all score columns and a label on keys {','.join(keys)}")
    text, report = _native.calibrate_fit(
        joined[cols].astype("float64").values.tolist(), joined[label_col].astype("float64").tolist(), cols, label_col,
        method=method, alpha=alpha, cal_fraction=cal_fraction, test_fraction=test_fraction, seed=seed,
        binarize=binarize, on=keys,
    )
    rep = json.loads(report)
    rep["rows"] = len(s)
    return Calibration(text, rep)


@dataclass
class WeaknessResult:
    """Weakness analysis per metric (HCAT §6.2): the reports of ``ragjudge weakness --json`` and
    their marginal slices as one frame."""

    reports: Dict[str, Dict[str, Any]]
    rows_left_out: Dict[str, int]

    @property
    def slices(self) -> pd.DataFrame:
        """Every (metric, system, dimension, stratum) slice with its test against the rest."""
        frames = [pd.DataFrame(r["marginal"]).assign(metric=m) for m, r in self.reports.items() if r["marginal"]]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def weakest(self, metric: str) -> pd.DataFrame:
        """The significant weak slices of ``metric``, weakest first."""
        r = self.reports[metric]
        return pd.DataFrame([r["marginal"][i] for i in r["weakest"]])


def weakness(
    scores: Union[pd.DataFrame, ScoreResult, PathLike],
    by: Union[str, Sequence[str]],
    metric: Union[None, str, Sequence[str]] = None,
    *,
    records: Optional[Union[Records, PathLike, Sequence[PathLike]]] = None,
    alpha: float = 0.05,
    min_n: int = 5,
    bootstrap: int = 1000,
    seed: int = 0,
) -> WeaknessResult:
    """Where a system fails (``ragjudge weakness``): strata ``by`` are columns of ``scores``, or
    ``meta`` keys of ``records`` joined on ``id, system``; each metric (default: every metric
    column) per system, stratum and pair of strata, Benjamini-Hochberg over all tests."""
    frame = scores.to_pandas() if isinstance(scores, ScoreResult) else _frame(scores)
    dims = _names(by)
    if isinstance(scores, ScoreResult):
        metric_cols = list(scores.columns)
    else:
        metric_cols = [c for c in frame.columns if c not in ("id", "system", "run", "error", *dims)
                       and pd.api.types.is_numeric_dtype(frame[c])]
    metrics = metric_cols if metric is None else _names(metric)
    if records is not None:
        recs = [r for p in ([records] if isinstance(records, (str, os.PathLike)) else
                            records if _is_paths(records) else [None]) for r in
                (to_records(_load(p)) if p is not None else to_records(records))]
        strata = {}
        for r in recs:
            meta = r.get("meta") or {}
            strata[(str(r.get("id")), str(r.get("system")))] = [_stratum(meta.get(d)) for d in dims]
        for i, d in enumerate(dims):
            if all(v[i] is None for v in strata.values()):
                raise ValueError(f"no record has a `meta.{d}` (strata: by)")
        get = lambda row: strata.get((str(row["id"]), str(row["system"])))  # noqa: E731
    else:
        missing = [d for d in dims if d not in frame.columns]
        if missing:
            raise ValueError(f"scores: no column {', '.join(missing)} (give records= to use their meta)")
        get = lambda row: [_stratum(row[d]) for d in dims]  # noqa: E731
    reports, left_out = {}, {}
    rows = frame.to_dict(orient="records")
    for m in metrics:
        if m not in frame.columns:
            raise ValueError(f"scores: no numeric column `{m}`")
        systems, values, strata_rows, unmatched = [], [], [], 0
        for row in rows:
            v, s = row[m], get(row)
            if v is None or (isinstance(v, float) and math.isnan(v)) or s is None:
                unmatched += 1
                continue
            systems.append(str(row["system"]))
            values.append(float(v))
            strata_rows.append(s)
        reports[m] = json.loads(_native.weakness(systems, values, strata_rows, dims, alpha=alpha, min_n=min_n,
                                                 bootstrap=bootstrap, seed=seed))
        left_out[m] = unmatched
    return WeaknessResult(reports, left_out)


def _stratum(v: Any) -> Optional[str]:
    v = _clean(v)
    if v is None or (isinstance(v, str) and not v.strip()):
        return None
    if isinstance(v, str):
        return v
    return json.dumps(v)


def _definitions_json(scores: Union[pd.DataFrame, ScoreResult, PathLike]) -> Optional[str]:
    """How the score columns were computed, as JSON text: a ScoreResult's own, or the definitions
    ``ragjudge score -o`` wrote beside a score file; None for a bare frame."""
    if isinstance(scores, ScoreResult):
        return json.dumps(scores.definitions)
    if isinstance(scores, pd.DataFrame):
        return None
    return _native.read_definitions(os.fspath(scores))


def _keys_repeated(frame: pd.DataFrame, keys: List[str], name: str) -> None:
    dup = frame.duplicated(subset=keys, keep="first")
    if dup.any():
        i = int(dup.to_numpy().nonzero()[0][0])
        key = ", ".join(f"{k}={frame[k].iloc[i]}" for k in keys)
        raise ValueError(f"{name}: row {i}: key ({key}) repeated; each key must appear once")


class FusionModel:
    """A fitted fusion model (the CIU paper's MoE-CIU, section 3.3, or its SVR / least-squares
    baselines). Its JSON is the model file of ``ragjudge fuse fit --save``, so models move freely
    between Python and the command line (``score --metrics fused:FILE``, ``fuse apply``)."""

    def __init__(self, text: str, report: Dict[str, Any]):
        self.text = text
        self.report = report
        info = json.loads(text)
        self.name: str = report.get("model") or info["model"]["kind"]
        self.inputs: List[str] = [c["name"] for c in info["inputs"]]

    @classmethod
    def load(cls, path: PathLike) -> "FusionModel":
        """A model file written by ``save`` or ``ragjudge fuse fit --save``."""
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return cls(text, {})

    def save(self, path: PathLike) -> None:
        """Writes the model file (readable by ``ragjudge fuse apply`` and ``score --metrics fused:FILE``)."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.text)

    def predict(self, scores: Union[pd.DataFrame, ScoreResult, PathLike]) -> pd.DataFrame:
        """The fused score of every row of ``scores`` (as ``ragjudge fuse apply``): the key columns
        ``id`` (and ``system``), ``fused``, and for MoE-CIU ``gate_<input>`` (the gate's weight
        on each input). A row without every input value gets NaN, and is counted in ``attrs``, as are
        ``shift_warned`` (the shift check of the rows) and ``fell_back_to`` (the single input a
        shrunk model scored as under that warning; a ``UserWarning`` says so)."""
        frame = _frame(scores)
        missing = [c for c in ["id"] + self.inputs if c not in frame.columns]
        if missing:
            raise ValueError(f"scores: no column {', '.join(missing)}")
        keys = ["id"] + (["system"] if "system" in frame.columns else [])
        x = frame[self.inputs].astype("float64")
        complete = x.notna().all(axis=1).to_numpy()
        out = _native.fuse_apply(self.text, x[complete].values.tolist(), definitions=_definitions_json(scores),
                                 source=os.fspath(scores) if isinstance(scores, (str, os.PathLike)) else "the scores")
        result = frame[keys].copy().reset_index(drop=True)
        for k in keys:
            result[k] = result[k].astype(str)
        fused = pd.Series(float("nan"), index=result.index, dtype="float64")
        fused[complete] = out["fused"]
        result["fused"] = fused
        if out["gates"] is not None:
            gates = pd.DataFrame(out["gates"], columns=[f"gate_{i}" for i in self.inputs]).set_index(
                result.index[complete])
            result = result.join(gates)
        result.attrs["incomplete_rows"] = int((~complete).sum())
        result.attrs["shift_warned"] = out["shift_warned"]
        result.attrs["fell_back_to"] = out["fell_back_to"]
        if out["fell_back_to"] is not None:
            warnings.warn(f"{self.name}: the inputs are distributed unlike the training rows; the shrunk model "
                          f"scores as its single input `{out['fell_back_to']}` alone (as `ragjudge fuse apply`)",
                          stacklevel=2)
        return result

    def __repr__(self) -> str:
        return f"FusionModel({self.name}, inputs={self.inputs})"


def fuse(
    scores: Union[pd.DataFrame, ScoreResult, PathLike],
    labels: Union[pd.DataFrame, PathLike],
    label_col: str,
    *,
    inputs: Optional[Sequence[str]] = None,
    on: Optional[Sequence[str]] = None,
    model: str = "moe",
    seed: int = 0,
    epochs: Optional[int] = None,
    binarize: Optional[float] = None,
    folds: int = 5,
    monotone: bool = False,
    shrink: Optional[Union[str, float]] = None,
) -> FusionModel:
    """Fits a fusion model of metric columns to human labels (``ragjudge fuse fit``): ``model`` is
    ``moe`` (MoE-CIU), ``moe-concat``, ``svr`` or ``linear`` (``monotone=True``: every weight >= 0,
    ``--monotone``); ``shrink`` (``"auto"`` or a weight in [0, 1], ``--shrink``) mixes the fused
    score with the best single input; ``inputs`` default to the CIU
    paper's six (``bleu, meteor, rougeL_f, ciu, ruber, bertscore_f``). The frames are joined on
    ``on`` (default ``id, system`` when both have ``system``, else ``id``) as the command line
    joins them: a repeated key or a labelled row with an empty input is an error, scored rows
    without a label and labels without a scored row are counted in ``report["join"]``."""
    s, lab = _frame(scores), _frame(labels)
    cols = list(inputs) if inputs else ["bleu", "meteor", "rougeL_f", "ciu", "ruber", "bertscore_f"]
    keys, left, right = _join_sides(s, lab, cols, label_col, on)
    _keys_repeated(left, keys, "scores")
    _keys_repeated(right, keys, "labels")
    empty = right[label_col].isna()
    right = right[~empty]
    joined = left.reset_index().merge(right, on=keys, how="inner").sort_values("index")
    bad = joined[cols].isna()
    if bad.any().any():
        r = joined[bad.any(axis=1)].iloc[0]
        col = next(c for c in cols if pd.isna(r[c]))
        key = ", ".join(f"{k}={r[k]}" for k in keys)
        raise ValueError(f"scores: row {int(r['index'])} ({key}) has a label but no value of `{col}`")
    if joined.empty:
        raise ValueError(f"no row of scores has a label on keys {','.join(keys)}")
    text, report = _native.fuse_fit(
        joined[cols].astype("float64").values.tolist(), joined[label_col].astype("float64").tolist(), cols,
        label_col, model=model, seed=seed, epochs=epochs, binarize=binarize, folds=folds, monotone=monotone,
        shrink=shrink, definitions=_definitions_json(scores),
        label_file=os.fspath(labels) if isinstance(labels, (str, os.PathLike)) else "DataFrame",
    )
    rep = json.loads(report)
    rep["join"] = {
        "score_rows": len(s), "labels": int((~empty).sum()), "empty_labels": int(empty.sum()),
        "joined": len(joined), "scores_without_label": len(s) - len(joined),
        "labels_without_scores": int((~empty).sum()) - len(joined),
    }
    return FusionModel(text, rep)


@dataclass
class TestgenResult:
    """What ``testgen`` produced: the kept questions (records ready for ``collect``), the rejected
    tasks with their reasons, the chunks with their topics, and the topic strata."""

    questions: List[Dict[str, Any]]
    rejected: List[Dict[str, Any]]
    chunks: pd.DataFrame
    topics: Dict[str, Any]
    summary: Dict[str, Any]

    def to_pandas(self) -> pd.DataFrame:
        """One row per question: ``id, query, reference`` and the ``meta.*`` strata (topic, query
        type, difficulty, sources)."""
        return pd.json_normalize(self.questions, sep=".")

    def save(self, path: PathLike) -> None:
        """Writes the questions as JSONL (the ``--output`` of ``ragjudge testgen``)."""
        with open(path, "w", encoding="utf-8") as f:
            for q in self.questions:
                f.write(json.dumps(q, ensure_ascii=False) + "\n")


def testgen(
    corpus: Union[PathLike, Sequence[PathLike]],
    judge: Optional[str] = None,
    *,
    sample: int = 24,
    per_chunk: int = 1,
    types: Optional[Sequence[str]] = None,
    allocation: str = "proportional",
    weights: Optional[Dict[str, float]] = None,
    min_per_topic: int = 1,
    per_topic: int = 0,
    cluster: str = "kmeans",
    topics: Optional[int] = None,
    max_topics: int = 12,
    eps: Optional[float] = None,
    min_points: int = 4,
    dims: int = 10,
    chunk_tokens: int = 160,
    overlap: int = 1,
    round_trip_k: int = 5,
    retries: int = 2,
    seed: int = 0,
    embedder: Optional[str] = None,
    skip_invalid: bool = False,
    dry_run: bool = False,
    cache: Optional[PathLike] = None,
    no_cache: bool = False,
    threads: Optional[int] = None,
) -> TestgenResult:
    """Questions from a document collection, stratified by topic (``ragjudge testgen``, HCAT §2):
    chunks, embeds and clusters the collection, samples chunks per topic, asks the judge model
    for questions of each type and keeps those that pass the checks of docs/testgen.md (wording,
    near-duplicates, the round trip to their source within ``round_trip_k`` chunks, answerable,
    grounded, a reference that answers; unanswerable ones checked against the whole collection).
    ``embedder`` defaults to MiniLM when every document is English, else multilingual-e5-small.
    With ``dry_run`` no model is called: the chunks, topics and call estimate only."""
    paths = [corpus] if isinstance(corpus, (str, os.PathLike)) else list(corpus)
    out = _native.testgen(
        [os.fspath(p) for p in paths], judge=judge or DEFAULT_JUDGE, sample=sample, per_chunk=per_chunk,
        types=None if types is None else list(types), allocation=allocation, weights=weights,
        min_per_topic=min_per_topic, per_topic=per_topic, cluster=cluster, topics=topics, max_topics=max_topics,
        eps=eps, min_points=min_points, dims=dims, chunk_tokens=chunk_tokens, overlap=overlap,
        round_trip_k=round_trip_k, retries=retries,
        seed=seed, embedder=embedder, skip_invalid=skip_invalid, dry_run=dry_run,
        cache=None if cache is None else os.fspath(cache), no_cache=no_cache, threads=threads,
    )
    return TestgenResult(
        questions=[json.loads(q) for q in out["questions"]],
        rejected=[json.loads(r) for r in out["rejected"]],
        chunks=pd.DataFrame([json.loads(c) for c in out["chunks"]]),
        topics=json.loads(out["topics"]),
        summary=json.loads(out["summary"]),
    )
