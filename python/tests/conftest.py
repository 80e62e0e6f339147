"""Shared fixtures: the repository's example runs and the `ragjudge` binary, when it is built."""

import json
import os
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
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


def start_judge(reply, monkeypatch):
    """A scripted OpenAI-compatible judge on loopback, set as OPENAI_BASE_URL: ``reply(body)``
    gives ``(content, top_logprobs)`` for each chat-completion request body, ``top_logprobs`` a
    list of ``(token, logprob)`` (the first one is the generated token) or None. Returns the
    server; call ``shutdown()`` when done."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            content, top = reply(body)
            logprobs = None
            if top:
                entries = [{"token": t, "logprob": lp} for t, lp in top]
                logprobs = {"content": [{"token": top[0][0], "logprob": top[0][1], "top_logprobs": entries}]}
            answer = {"id": "x", "object": "chat.completion", "model": body["model"],
                      "choices": [{"index": 0, "finish_reason": "stop", "logprobs": logprobs,
                                   "message": {"role": "assistant", "content": content}}],
                      "usage": {"prompt_tokens": 100, "completion_tokens": 1, "total_tokens": 101}}
            data = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{httpd.server_address[1]}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    return httpd
