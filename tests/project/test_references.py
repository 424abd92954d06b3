"""Names of modules and files in the prose: every one still exists.

A docstring, a comment or a docs page that points at a module or a file points the reader at the
code; after a move or a rename it points nowhere.  This test reads the package's sources, the docs
pages, the README, CONTRIBUTING and the benchmarks for the two kinds of pointer, and checks each:

- a dotted name under the package (``streamcalls.detectors._engine.markup``, ``streamcalls.parse``)
  imports, down to its last attribute;
- a path inside the checkout (``tests/corpus/test_protocol.py``, ``streamcalls/_parser.py``) is a
  file or folder of it.
"""

from __future__ import annotations

import importlib
import re
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = (
    sorted((ROOT / "streamcalls").rglob("*.py"))
    + sorted((ROOT / "docs").rglob("*.md"))
    + sorted((ROOT / "benchmarks").glob("*.py"))
    + [ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
)
DOTTED = re.compile(r"(?<![\w.])streamcalls(?:\.[A-Za-z_]\w*)+")
PATH = re.compile(r"(?<![\w./-])(?:streamcalls|tests|docs|benchmarks|fuzz)/[\w./<>*-]*[\w>*]")
WRITTEN = {"benchmarks/results/quick.json", "fuzz/gate.log"}  # made by a run, named by the docs


@cache
def resolves(name: str) -> bool:
    """Whether ``name`` is a module of the package, or an attribute reached from one."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:end]))
        except ImportError:
            continue
        for part in parts[end:]:
            if not hasattr(found, part) and not _submodule(found, part):
                return False
            found = getattr(found, part, None) or _submodule(found, part)
        return True
    return False


def _submodule(module: object, name: str) -> ModuleType | None:
    if not isinstance(module, ModuleType) or not hasattr(module, "__path__"):
        return None
    try:
        return importlib.import_module(f"{module.__name__}.{name}")
    except ImportError:
        return None


def exists(path: str) -> bool:
    """Whether ``path`` names something in the checkout, or what a run writes there (a pattern such
    as ``providers/*/x.py`` or ``tests/data/<provider>/NAME.sse`` aside)."""
    if re.search(r"[*<]|NAME", path):
        return True
    return path in WRITTEN or (ROOT / path).exists()


def pointers(pattern: re.Pattern[str]) -> list[tuple[str, str]]:
    """(where, what) for every match of ``pattern`` in the sources, one per distinct pair."""
    found: dict[tuple[str, str], None] = {}
    for source in SOURCES:
        text = source.read_text(encoding="utf-8")
        for match in pattern.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.setdefault((f"{source.relative_to(ROOT)}:{line}", match.group().rstrip(".")), None)
    return list(found)


def test_the_sources_are_read() -> None:
    assert len(SOURCES) > 100
    assert len(pointers(DOTTED)) > 100
    assert len(pointers(PATH)) > 50


def test_every_dotted_name_under_the_package_exists() -> None:
    missing = [f"{where}: {name}" for where, name in pointers(DOTTED) if not resolves(name)]
    assert not missing, "\n".join(missing)


def test_every_path_in_the_checkout_exists() -> None:
    missing = [f"{where}: {path}" for where, path in pointers(PATH) if not exists(path)]
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize(
    ("name", "found"),
    [
        ("streamcalls.detectors.formats.rawjson", True),
        ("streamcalls.StreamParser.feed", True),
        ("streamcalls.detectors.rawjson", False),
        ("streamcalls.StreamParser.no_such_method", False),
    ],
)
def test_a_name_resolves_only_when_it_exists(name: str, found: bool) -> None:
    assert resolves(name) is found
