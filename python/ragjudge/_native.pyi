"""Type stubs of ragjudge._native, the compiled engine bindings (see ragjudge/__init__.py)."""

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union, final

__all__ = [
    "ArrowBatch",
    "BatchScorer",
    "RecordError",
    "ScoreOptions",
    "__version__",
    "calibrate_apply",
    "calibrate_fit",
    "compare",
    "fuse_apply",
    "fuse_fit",
    "merge_caches",
    "metric_families",
    "read_definitions",
    "score",
    "summary_from_states",
    "summary_state",
    "testgen",
    "tournament",
    "weakness",
]
__version__: str

class RecordError(ValueError):
    index: Optional[int]
    field: Optional[str]
    file: Optional[str]
    line: Optional[int]

def metric_families() -> List[str]: ...
@final
class ScoreOptions:
    """`score`'s settings, parsed and checked once."""

    def __new__(
        cls,
        *,
        metrics: Sequence[str] = ...,
        system: Optional[str] = None,
        format: str = "auto",
        skip_invalid: bool = False,
        bootstrap: int = 1000,
        seed: int = 0,
        threads: Optional[int] = None,
        k: Sequence[int] = ...,
        relevance_threshold: float = 2.0,
        skip_short_lists: bool = False,
        rouge_stemmer: bool = False,
        lang: str = "en",
        zh_rouge: str = "jieba",
        ciu_c_char: float = 0.005,
        ciu_position: bool = True,
        ciu_frequency: bool = True,
        ciu_effort: bool = True,
        ruber_model: Optional[str] = None,
        embedder: str = ...,
        nli: Optional[str] = None,
        pii_model: str = ...,
        batch_size: int = 32,
        judge: str = ...,
        cache: Optional[str] = None,
        no_cache: bool = False,
    ) -> "ScoreOptions": ...

def score(
    records: Optional[Sequence[str]] = None,
    paths: Optional[Sequence[str]] = None,
    *,
    options: ScoreOptions,
) -> Dict[str, Any]: ...

@final
class ArrowBatch:
    """Score rows as one Arrow record batch (``pyarrow.record_batch(x)`` takes it)."""

    def __arrow_c_array__(self, requested_schema: Optional[Any] = None) -> Tuple[Any, Any]: ...
    def __len__(self) -> int: ...

@final
class BatchScorer:
    """`score`'s metrics built once, scoring one Arrow block at a time (a Ray Data worker)."""

    columns: List[str]

    def __new__(cls, options: ScoreOptions, *, detail: bool = False) -> "BatchScorer": ...
    def score(self, data: Any, first_row: int = 1) -> ArrowBatch: ...

def summary_state(data: Any, *, bootstrap: int = 1000, seed: int = 0) -> str: ...
def merge_caches(into: str, inputs: Sequence[str]) -> List[int]: ...
def summary_from_states(states: Sequence[str], *, level: float = 0.95) -> Dict[str, Any]: ...
def calibrate_fit(
    x: Sequence[Sequence[float]],
    y: Sequence[float],
    score_columns: Sequence[str],
    label_column: str,
    *,
    method: str = "platt",
    alpha: float = 0.1,
    cal_fraction: float = 0.25,
    test_fraction: float = 0.25,
    seed: int = 42,
    binarize: Optional[float] = None,
    on: Sequence[str] = ...,
) -> Tuple[str, str]: ...
def calibrate_apply(calibrator: str, x: Sequence[Sequence[float]]) -> Dict[str, Any]: ...
def weakness(
    systems: Sequence[str],
    values: Sequence[float],
    strata: Sequence[Sequence[Optional[str]]],
    by: Sequence[str],
    *,
    alpha: float = 0.05,
    min_n: int = 5,
    bootstrap: int = 1000,
    seed: int = 0,
) -> str: ...
def compare(
    a: Sequence[str],
    b: Sequence[str],
    output: str,
    *,
    judge: str = ...,
    protocol: str = "dice",
    reasoning: bool = True,
    swap: bool = True,
    tau: float = 0.1,
    limit: Optional[int] = None,
    ids: Sequence[str] = ...,
    lang: str = "auto",
    debias: bool = False,
    cache: Optional[str] = None,
    no_cache: bool = False,
    threads: Optional[int] = None,
) -> Tuple[str, str, str]: ...
def tournament(
    records: Sequence[str],
    output: str,
    *,
    judge: str = ...,
    protocol: str = "dice",
    format: str = "swiss",
    rounds: Optional[int] = None,
    rank_by: str = "bt",
    seed: int = 0,
    reasoning: bool = True,
    swap: bool = True,
    tau: float = 0.1,
    limit: Optional[int] = None,
    ids: Sequence[str] = ...,
    lang: str = "auto",
    debias: bool = False,
    cache: Optional[str] = None,
    no_cache: bool = False,
    threads: Optional[int] = None,
) -> Tuple[str, str]: ...
def read_definitions(path: str) -> Optional[str]: ...
def fuse_fit(
    x: Sequence[Sequence[float]],
    y: Sequence[float],
    inputs: Sequence[str],
    label_column: str,
    *,
    model: str = "moe",
    seed: int = 0,
    epochs: Optional[int] = None,
    binarize: Optional[float] = None,
    folds: int = 5,
    monotone: bool = False,
    shrink: Optional[Union[str, float]] = None,
    definitions: Optional[str] = None,
    label_file: str = ...,
) -> Tuple[str, str]: ...
def fuse_apply(
    model: str,
    x: Sequence[Sequence[float]],
    *,
    definitions: Optional[str] = None,
    source: str = ...,
) -> Dict[str, Any]: ...
def testgen(
    corpus: Sequence[str],
    *,
    judge: str = ...,
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
    cache: Optional[str] = None,
    no_cache: bool = False,
    threads: Optional[int] = None,
) -> Dict[str, Any]: ...
