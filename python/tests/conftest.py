"""Shared fixtures: the repository's example runs and the `ragjudge` binary, when it is built."""

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNS = sorted((ROOT / "examples" / "runs").glob("*.jsonl"))
DATA = Path(__file__).resolve().parent / "data"


def find_cli():
    """The `ragjudge` binary: $RAGJUDGE_BIN, else the repository's (or $CARGO_TARGET_DIR's) debug
    or release build, else one on PATH; None when there is none."""
    env = os.environ.get("RAGJUDGE_BIN")
    if env:
        return env
    targets = [Path(os.environ["CARGO_TARGET_DIR"])] if os.environ.get("CARGO_TARGET_DIR") else []
    targets.append(ROOT / "target")
    for t in targets:
        for profile in ("debug", "release"):
            p = t / profile / "ragjudge"
            if p.is_file() and os.access(p, os.X_OK):
                return str(p)
    return shutil.which("ragjudge")


@pytest.fixture(scope="session")
def cli():
    path = find_cli()
    if path is None:
        pytest.skip("the ragjudge binary is not built (cargo build -p ragjudge-cli)")
    return path


@pytest.fixture(scope="session")
def runs():
    assert len(RUNS) == 4, RUNS
    return [str(p) for p in RUNS]
