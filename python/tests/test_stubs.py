"""The typed stubs match the compiled module."""

import ast
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import ragjudge
from ragjudge import _native

STUB = Path(ragjudge.__file__).with_name("_native.pyi")


def stub_names():
    tree = ast.parse(STUB.read_text())
    names = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            args = node.args
            names[node.name] = [a.arg for a in args.args + args.kwonlyargs]
        elif isinstance(node, ast.ClassDef):
            names[node.name] = None
        elif isinstance(node, ast.AnnAssign):
            names[node.target.id] = None
    return names


def test_every_stub_name_exists_with_the_same_parameters():
    stubs = stub_names()
    public = {n for n in dir(_native) if not n.startswith("_") or n == "__version__"}
    assert set(stubs) == public
    for name, params in stubs.items():
        if params is None:
            continue
        sig = inspect.signature(getattr(_native, name))
        assert list(sig.parameters) == params, name
    assert issubclass(_native.RecordError, ValueError)
    assert Path(ragjudge.__file__).with_name("py.typed").exists()


def test_stubtest_agrees_when_mypy_is_installed():
    pytest.importorskip("mypy")
    proc = subprocess.run([sys.executable, "-m", "mypy.stubtest", "ragjudge._native"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
