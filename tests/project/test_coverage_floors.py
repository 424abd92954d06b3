"""make test's coverage line (tests/support/coverage_floors.py): what counts as the core, and when the line fails."""

from __future__ import annotations

from pathlib import Path

from tests.project.test_layering import PACKAGE
from tests.support.coverage_floors import core_files, verdict


def test_the_core_is_every_module_below_the_async_front() -> None:
    core = {Path(path).relative_to(PACKAGE).as_posix() for path in core_files()}
    every = {path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py")}
    above = {path for path in every if path.split("/")[0] in ("aio", "replay", "cli")}
    above |= {"testing.py", "__main__.py", "__init__.py"}
    assert core == every - above
    assert {
        "_parser.py",
        "framing/_sse.py",
        "providers/openai_chat/reader.py",
        "detectors/formats/hermes.py",
    } <= core
    assert {"codec/_encode.py", "_names.py", "_options.py"} <= core


def test_the_verdict_line() -> None:
    assert verdict(95.84, 96.71, 95, 96) == (
        True,
        "coverage 95.8% (floor 95%), sans-IO core 96.7% (floor 96%)",
    )
    assert verdict(94.9, 96.7, 95, 96) == (
        False,
        "coverage 94.9% (floor 95%), sans-IO core 96.7% (floor 96%): all under the floor",
    )
    assert verdict(94.0, 95.99, 95, 96.5)[1].endswith(": all and core under the floor")
