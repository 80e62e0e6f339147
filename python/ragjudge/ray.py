"""Score a Ray Data set with ragjudge's engine (the optional ``ray`` extra).

    import ray, ragjudge.ray

    ray.init()
    ds = ray.data.read_parquet("runs/")                      # the columns of Parquet input
    scores = ragjudge.ray.score(ds, metrics=["lexical", "ciu"])
    scores.write_parquet("scores/")                          # one row per record, as ``score -o x.parquet``
    summary = ragjudge.ray.summarize(scores)                 # equals ``ragjudge score``'s summary
    print(summary.table)

Blocks go to Rust as Arrow through the Arrow C data interface and the rows come back the same
way: no Python object is made per record. Each worker is one :class:`ScoreBatches` (a callable
class), so models load once per worker. The summary adds up per-block partial summaries: a
record's bootstrap weights depend on its id, system and run only, so the means equal a single
``score`` run's bit for bit and the intervals up to the order of summation (docs/scale.md).
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Union

import pandas as pd
import pyarrow as pa

from . import DEFAULT_JUDGE, _names, _native, _run_lines
from . import tournament as _tournament

__all__ = ["ScoreBatches", "RaySummary", "score", "summarize", "tournament"]

#: Environment a judging task needs from the driver (the judge servers, the model store).
_JUDGE_ENV = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "RAGJUDGE_HOME")

#: Records per block handed to a worker (Ray's ``batch_size``).
DEFAULT_BATCH_SIZE = 4096
#: Score rows per partial summary.
SUMMARY_BATCH_SIZE = 65536


def _options(metrics: Union[str, Sequence[str]], judge: Optional[str], options: Dict[str, Any]) -> Any:
    opts = dict(options)
    if "k" in opts:
        opts["k"] = list(opts["k"])
    return _native.ScoreOptions(metrics=_names(metrics), judge=judge or DEFAULT_JUDGE, **opts)


class ScoreBatches:
    """A callable class for ``Dataset.map_batches(..., batch_format="pyarrow")``: builds the
    metrics (and loads their models) once, then scores each block of records.

    ``metrics``, ``judge`` and ``options`` are those of :func:`ragjudge.score` (``system``,
    ``lang``, ``k``, ``embedder``, ...); ``detail=True`` adds each row's evidence as JSON text in
    a ``detail`` column. A malformed record fails the block with an error naming the block's
    row and field (``skip_invalid`` is not offered: a skipped record would go uncounted).
    """

    def __init__(
        self,
        metrics: Union[str, Sequence[str]] = ("lexical", "ciu", "retrieval"),
        judge: Optional[str] = None,
        detail: bool = False,
        **options: Any,
    ) -> None:
        if options.get("skip_invalid"):
            raise ValueError("skip_invalid is not offered on Ray: a skipped record would go uncounted")
        self._scorer = _native.BatchScorer(_options(metrics, judge, options), detail=detail)

    @property
    def columns(self) -> List[str]:
        """The value columns of the rows, in order."""
        return list(self._scorer.columns)

    def __call__(self, batch: pa.Table) -> pa.Table:
        rows = pa.record_batch(self._scorer.score(batch))
        return pa.Table.from_batches([rows])


def score(
    ds: Any,
    metrics: Union[str, Sequence[str]] = ("lexical", "ciu", "retrieval"),
    judge: Optional[str] = None,
    *,
    detail: bool = False,
    batch_size: int = DEFAULT_BATCH_SIZE,
    concurrency: Optional[int] = None,
    num_cpus: Optional[float] = None,
    **options: Any,
) -> Any:
    """The score rows of the records of Ray Dataset ``ds`` (lazy, as every Ray Data step): the
    columns of ``ragjudge score -o x.parquet`` (``id``, ``system``, ``run``, one float per value
    column, ``error``), plus ``detail`` when asked. ``concurrency`` workers (Ray's default when
    ``None``), each ``num_cpus`` CPUs (Ray's default: 1) and as many scoring threads unless
    ``threads`` says otherwise; the other options as :class:`ScoreBatches`. Leave the cluster a
    CPU for the steps before and after (reading, an all-to-all step such as ``repartition``):
    workers hold theirs for the whole run."""
    import ray.data

    if options.get("threads") is None:
        # One scoring thread per CPU the worker holds, not one per core of the machine.
        options["threads"] = max(1, math.ceil(num_cpus if num_cpus is not None else 1))
    kwargs: Dict[str, Any] = {}
    if concurrency is not None:
        kwargs["compute"] = ray.data.ActorPoolStrategy(size=concurrency)
    if num_cpus is not None:
        kwargs["num_cpus"] = num_cpus
    return ds.map_batches(
        ScoreBatches,
        fn_constructor_kwargs=dict(metrics=metrics, judge=judge, detail=detail, **options),
        batch_format="pyarrow",
        batch_size=batch_size,
        **kwargs,
    )


def _partial_summary(batch: pa.Table, bootstrap: int, seed: int) -> pa.Table:
    return pa.table({"state": [_native.summary_state(batch, bootstrap=bootstrap, seed=seed)]})


@dataclass
class RaySummary:
    """The per-system summary of a scored Ray Dataset, as :attr:`ragjudge.ScoreResult.summary`."""

    #: The summary as ``ragjudge score --json`` gives it.
    report: Dict[str, Any]
    #: The summary as ``ragjudge score`` prints it.
    table: str

    @property
    def frame(self) -> pd.DataFrame:
        """One row per system and column: ``n``, ``mean``, ``std``, ``ci_low``, ``ci_high``."""
        rows = [
            {"system": s["system"], **m} for s in self.report["systems"] for m in s["metrics"]
        ]
        return pd.DataFrame(rows, columns=["system", "metric", "n", "mean", "std", "ci_low", "ci_high"])


def summarize(
    scores: Any,
    *,
    bootstrap: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    batch_size: int = SUMMARY_BATCH_SIZE,
) -> RaySummary:
    """The per-system summary of score rows (a Ray Dataset from :func:`score`, or any with that
    layout): each block of ``batch_size`` rows becomes a partial summary on a worker (counts, exact
    sums, moments, bootstrap replicate sums), and the driver merges them. ``bootstrap``, ``seed``
    and ``level`` as ``ragjudge score``'s: the same give the same summary."""
    parts = scores.map_batches(
        _partial_summary,
        fn_kwargs=dict(bootstrap=bootstrap, seed=seed),
        batch_format="pyarrow",
        batch_size=batch_size,
    )
    states = [row["state"] for row in parts.take_all()]
    out = _native.summary_from_states(states, level=level)
    return RaySummary(report=json.loads(out["summary"]), table=out["table"])


def _judge_part(records: List[Dict[str, Any]], ids: List[str], judge: str, options: Dict[str, Any]) -> bytes:
    """Judges the pairs of the questions ``ids`` into a fresh call cache; returns the cache file."""
    with tempfile.TemporaryDirectory() as d:
        cache = os.path.join(d, "cache.sqlite")
        _tournament(records, judge, ids=ids, cache=cache, **options)
        # The run closed its cache: SQLite has folded the write-ahead log into the file.
        with open(cache, "rb") as f:
            return f.read()


def tournament(
    runs: Any,
    judge: str = DEFAULT_JUDGE,
    *,
    cache: Union[str, "os.PathLike[str]"],
    parts: int = 2,
    num_cpus: float = 1,
    output: Optional[Union[str, "os.PathLike[str]"]] = None,
    **options: Any,
) -> Any:
    """A tournament whose judgements are made on Ray: the questions are split into ``parts``
    disjoint parts, each judged by a Ray task (``num_cpus`` CPUs) with its own call cache; the
    caches are merged into ``cache`` and one run over all records here replays them, giving what
    a single process gives with that cache (:func:`ragjudge.tournament`'s result).

    ``runs`` and ``options`` (``protocol``, ``format``, ``rounds``, ...) as
    :func:`ragjudge.tournament`. A round robin's parts make exactly the calls of one run; a Swiss
    run's pairings depend on all earlier results, so the final run makes the calls its pairings
    need that the parts did not. Tasks get the driver's ``OPENAI_BASE_URL``, ``OPENAI_API_KEY``
    and ``RAGJUDGE_HOME``: give them a judge server pool (or a local model each)."""
    import ray

    records = [json.loads(line) for line in _run_lines(runs)]
    ids = list(dict.fromkeys(str(r["id"]) for r in records))
    chosen = options.pop("ids", None)
    if chosen:
        ids = [i for i in ids if i in set(chosen)]
    if parts < 1:
        raise ValueError(f"parts must be at least 1, got {parts}")
    env = {k: os.environ[k] for k in _JUDGE_ENV if k in os.environ}
    task = ray.remote(_judge_part).options(num_cpus=num_cpus, runtime_env={"env_vars": env})
    blobs = ray.get([task.remote(records, ids[i::parts], judge, options) for i in range(parts) if ids[i::parts]])
    with tempfile.TemporaryDirectory() as d:
        files = []
        for i, blob in enumerate(blobs):
            path = os.path.join(d, f"part{i + 1}.sqlite")
            with open(path, "wb") as f:
                f.write(blob)
            files.append(path)
        _native.merge_caches(os.fspath(cache), files)
    return _tournament(records, judge, cache=cache, output=output, ids=chosen or (), **options)
