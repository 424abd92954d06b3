"""The version has one place, ``streamcalls.__version__``; pyproject.toml reads it from there."""

from __future__ import annotations

import ast
import importlib.metadata
import json
import sysconfig
from pathlib import Path

import pytest

import streamcalls

ROOT = Path(__file__).resolve().parent.parent.parent


def test_pyproject_reads_the_version_from_the_package() -> None:
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"]  # no second place
    assert "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "streamcalls.__version__"}


def test_the_version_is_a_literal_a_build_reads_without_importing() -> None:
    # setuptools reads an ``attr`` statically when it is a plain string assignment, so
    # building needs none of the package's dependencies.
    tree = ast.parse((ROOT / "streamcalls" / "__init__.py").read_text(encoding="utf-8"))
    values = [
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["__version__"]
    ]
    assert len(values) == 1
    assert isinstance(values[0], ast.Constant)
    assert values[0].value == streamcalls.__version__
    assert streamcalls.__version__.count(".") == 2


def test_the_installed_distribution_has_the_packages_version() -> None:
    # In site-packages: the checkout (on sys.path here) may hold a streamcalls.egg-info of its own.
    found = list(
        importlib.metadata.distributions(name="streamcalls", path=[sysconfig.get_paths()["purelib"]])
    )
    if not found:
        pytest.skip("streamcalls is not installed in this environment (make test installs it)")
    (distribution,) = found
    direct_url = json.loads(distribution.read_text("direct_url.json") or "{}")
    if direct_url.get("url") != ROOT.as_uri():
        pytest.skip(f"the installed streamcalls is built from {direct_url.get('url')}, not this checkout")
    assert distribution.version == streamcalls.__version__
