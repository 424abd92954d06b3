"""The pre-commit configuration runs make test's ruff and mypy, as make test runs them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent.parent


def _hooks() -> dict[str, dict[str, Any]]:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    assert set(config["default_install_hook_types"]) == {"pre-commit", "commit-msg"}
    (repo,) = config["repos"]
    assert repo["repo"] == "local"  # the venv's tools, not a pinned copy that could drift from make test's
    return {hook["id"]: hook for hook in repo["hooks"]}


def _make_test_commands() -> dict[str, str]:
    """make test's checks, by name, with $(PY) and $(LINTED) written out."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    linted = re.search(r"^LINTED := (.+)$", makefile, re.MULTILINE)
    assert linted is not None
    checks = re.findall(r'check "([^"]+)" \$\(PY\) (.+?); \\$', makefile, re.MULTILINE)
    return {name: f".venv/bin/python {command.replace('$(LINTED)', linted[1])}" for name, command in checks}


def test_the_hooks_run_make_tests_ruff_and_mypy() -> None:
    hooks, commands = _hooks(), _make_test_commands()
    for hook_id, check in (
        ("ruff-check", "ruff check"),
        ("ruff-format", "ruff format --check"),
        ("mypy", "mypy --strict"),
    ):
        hook = hooks[hook_id]
        assert hook["entry"] == commands[check], hook_id
        assert hook["language"] == "system"
        assert hook["pass_filenames"] is False  # the whole tree, as make test checks it
    assert commands["mypy --strict"] == ".venv/bin/python -m mypy"


def test_the_commit_subject_hook_refuses_a_long_subject() -> None:
    hook = _hooks()["commit-subject"]
    assert (hook["language"], hook["args"], hook["stages"]) == ("pygrep", ["--multiline"], ["commit-msg"])
    long_subject = re.compile(hook["entry"], re.MULTILINE)  # pygrep fails the commit on a match
    body = "\n\n" + "a detail line of the body may be as long as it needs to be, " * 3 + "\n"
    assert long_subject.search("x" * 72 + body) is None
    assert long_subject.search("x" * 73 + body) is not None
    assert long_subject.search("Fix the thing\n\n" + "y" * 100 + "\n") is None
