"""The README's code runs as written: its Python blocks, and its shell commands with their output.

Python blocks run in order in a temporary folder (a later shell block may read the files an
earlier Python block wrote). Shell blocks run ``robustclf curve/certify/list`` lines through the
CLI's ``main``; a block that starts with ``$ robustclf ...`` and shows output must print exactly
those lines. ``demo``, ``reproduce`` and install lines are covered by their own tests and CI.
"""

import re
import shlex
from pathlib import Path

import matplotlib
import pytest

from robustclf.cli import main

matplotlib.use("Agg")

README = Path(__file__).parents[1] / "README.md"
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
_RUNNABLE = ("curve", "certify", "list")


def _blocks():
    return [(lang, body) for lang, body in _FENCE.findall(README.read_text(encoding="utf-8"))]


def _commands(body: str) -> list[str]:
    """The ``robustclf`` commands of a shell block, continuation lines joined."""
    joined = body.replace("\\\n", " ")
    return [line.strip().removeprefix("$ ") for line in joined.splitlines()
            if line.strip().removeprefix("$ ").startswith("robustclf ")]


def test_readme_code_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    ran = 0
    for lang, body in _blocks():
        if lang == "python":
            exec(compile(body, str(README), "exec"), {"__name__": "__readme__"})
            ran += 1
            continue
        for command in _commands(body):
            argv = shlex.split(command)[1:]
            if argv[0] not in _RUNNABLE:
                continue
            extra = ([] if argv[0] == "list"
                     else ["--no-progress", "--output", str(tmp_path / "out")])
            capsys.readouterr()
            assert main(argv + extra) == 0, capsys.readouterr().err
            ran += 1
            shown = [line for line in body.splitlines()[1:] if line.startswith("|")]
            if body.lstrip().startswith("$ ") and shown:
                printed = [line for line in capsys.readouterr().out.splitlines()
                           if line.startswith("|")]
                assert printed == shown, "\n".join(printed)
    assert ran >= 4


def test_readme_names_every_public_estimator():
    import robustclf

    text = README.read_text(encoding="utf-8")
    missing = [name for name in robustclf.__all__ if name != "__version__" and name not in text]
    assert not missing, missing


@pytest.mark.parametrize("flag", ["--fast"])
def test_readme_demo_flags_exist(flag):
    assert f"robustclf demo [--output DIR] [{flag}]" in README.read_text(encoding="utf-8")


def test_ci_runs_the_readme_commands_verbatim():
    """CI runs the README's test and documentation commands as a user would type them."""
    ci = (Path(__file__).parents[1] / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    commands = [body.strip() for lang, body in _blocks() if lang == "sh"
                and body.strip().startswith("test -x .venv/bin/python")]
    tests = [c for c in commands if c.endswith("-m pytest")]
    docs = [c for c in commands if "sphinx-build" in c]
    assert len(tests) == 1 and len(docs) == 1
    assert tests[0] in ci and docs[0] in ci
