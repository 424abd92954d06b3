"""``make test``'s coverage line: the whole package's and the sans-IO core's, each against its floor.

``python -m tests.support.coverage_floors FLOOR CORE_FLOOR`` reads the data of the
``coverage run -m pytest`` that just ran (combined with its subprocesses'),
prints one line for the verdict, and exits 1 when either percentage is under
its floor (or there is no data).  The sans-IO core is every module in a layer
below the async front in ``tests/project/test_layering.py``'s ``LAYERS``: the leaf
modules, framing, the providers and detectors, the parser and the codec.
``python -m coverage report`` shows the numbers file by file.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import coverage
from coverage.exceptions import NoDataError

from tests.project.test_layering import LAYERS, PACKAGE

ASYNC_FRONT = "the async front"


def core_files() -> list[str]:
    """The paths of the modules below the async front."""
    below = LAYERS[: [layer.name for layer in LAYERS].index(ASYNC_FRONT)]
    files: list[Path] = []
    for layer in below:
        for held in layer.holds:
            files += sorted((PACKAGE / held).rglob("*.py")) if held.endswith("/") else [PACKAGE / held]
    return [str(path) for path in files]


def verdict(total: float, core: float, floor: float, core_floor: float) -> tuple[bool, str]:
    """Whether both are at their floors, and the line that says so."""
    line = f"coverage {total:.1f}% (floor {floor:g}%), sans-IO core {core:.1f}% (floor {core_floor:g}%)"
    low = [
        what for what, value, least in (("all", total, floor), ("core", core, core_floor)) if value < least
    ]
    return not low, line + (f": {' and '.join(low)} under the floor" if low else "")


def main(argv: list[str]) -> int:
    floor, core_floor = (float(value) for value in argv)
    measured = coverage.Coverage()
    measured.load()
    try:
        total = measured.report(file=io.StringIO())
        core = measured.report(file=io.StringIO(), include=core_files())
    except NoDataError:
        print("coverage: no data (did pytest run?)")
        return 1
    ok, line = verdict(total, core, floor, core_floor)
    print(line)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
