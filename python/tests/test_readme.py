"""The README's Python example runs and gives the command line's per-record scores."""

import os
import re

from conftest import DATA, ROOT
from test_score import assert_frames_equal, read_cli_csv


def test_the_readme_example_equals_the_cli_output():
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "README has no python example"
    scope = {}
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        exec(compile(blocks[0], "README.md", "exec"), scope)
    finally:
        os.chdir(cwd)
    assert_frames_equal(scope["df"], read_cli_csv(DATA / "examples_scores.csv"))
    summary = scope["result"].summary
    assert set(summary["system"]) == {"abstain", "oracle", "partial", "wrong"}
