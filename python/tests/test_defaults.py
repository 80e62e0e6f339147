"""Settings are declared once, in the library: every default of the Python functions (in the
compiled signatures and in the typed stubs) equals the library's default for that setting.

A default the signature shows as `...` is not a literal: python/src writes it as the library's
default itself (e.g. `embedder=ModelSettings::default().embedder`), so there is nothing to
compare; the stub then shows `...` too."""

import ast
import inspect
import json
from pathlib import Path

import ragjudge
from ragjudge import _native

STUB = Path(ragjudge.__file__).with_name("_native.pyi")
LIBRARY = json.loads(_native._library_defaults())

# Parameters that are not settings of a library job: what to read and how to run it here.
NOT_SETTINGS = {
    "score": {"records", "paths", "metrics", "system", "format", "threads", "ruber_model", "cache", "no_cache"},
    "compare": {"a", "b", "output", "lang", "cache", "no_cache", "threads"},
    "tournament": {"records", "output", "format", "rounds", "rank_by", "seed", "lang", "cache", "no_cache", "threads"},
    "weakness": {"systems", "values", "strata", "by"},
    "fuse_fit": {"x", "y", "inputs", "label_column", "definitions", "label_file"},
    "calibrate_fit": {"x", "y", "score_columns", "label_column", "on"},
    # `types=None` is the library's every type; topics and eps left open choose them from the data.
    "testgen": {"corpus", "types", "weights", "topics", "eps", "dry_run", "cache", "no_cache", "threads"},
}


# Jobs whose settings a class of options takes (its constructor), not the function itself.
OPTIONS = {"score": "ScoreOptions"}


def stub_defaults(name):
    """The stub's defaults of `name` as Python values (`...` where the stub leaves it open)."""
    tree = ast.parse(STUB.read_text())
    if name in OPTIONS:
        cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == OPTIONS[name])
        node = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__new__")
    else:
        node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
    args = node.args
    positional = args.args[len(args.args) - len(args.defaults):]
    pairs = list(zip(positional, args.defaults)) + [
        (a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None
    ]
    return {a.arg: ast.literal_eval(d) for a, d in pairs}


def mismatches(name, signature, stub):
    """What in `signature` (parameter -> default) and `stub` differs from the library's defaults
    of `name`, or is a setting without a library default; `...` is a default left open."""
    library = LIBRARY[name]
    found = []
    for param, default in signature.items():
        if param in NOT_SETTINGS[name]:
            continue
        if param not in library:
            found.append(f"{name}({param}=...): no library default to check against")
            continue
        want = library[param]
        if default is not ... and default != want:
            found.append(f"{name}({param}={default!r}): the library says {want!r}")
        if stub.get(param, ...) is not ... and stub[param] != want:
            found.append(f"_native.pyi {name}({param}={stub[param]!r}): the library says {want!r}")
    return found


def signature_defaults(name):
    params = inspect.signature(getattr(_native, OPTIONS.get(name, name))).parameters.items()
    return {k: (... if p.default is p.empty else p.default) for k, p in params}


def test_every_default_is_the_librarys():
    for name in LIBRARY:
        assert mismatches(name, signature_defaults(name), stub_defaults(name)) == []


def test_a_drifted_or_unchecked_default_is_reported():
    signature, stub = signature_defaults("weakness"), stub_defaults("weakness")
    assert mismatches("weakness", {**signature, "alpha": 0.1}, stub) == [
        "weakness(alpha=0.1): the library says 0.05"
    ]
    assert mismatches("weakness", signature, {**stub, "min_n": 3}) == [
        "_native.pyi weakness(min_n=3): the library says 5"
    ]
    assert mismatches("weakness", {**signature, "new_option": 1}, stub) == [
        "weakness(new_option=...): no library default to check against"
    ]
