"""The build's one dynamic part: the native fast path (streamcalls/_native), when it can be built.

pyproject.toml holds everything else.  The C extension is optional: on a
machine without a compiler (or with one that fails) the build says so in one
line and goes on, and the package runs on its pure-Python path.
``STREAMCALLS_PURE_PYTHON_BUILD=1`` skips it (the pure-Python wheel);
``STREAMCALLS_REQUIRE_NATIVE=1`` makes a failed build an error instead (the
platform wheels: cibuildwheel, configured in pyproject.toml);
``STREAMCALLS_LIMITED_API=1`` builds it against the stable ABI (abi3), which
reads the parser's objects by name (docs/design.md, "The native path", says
what that costs: it is not what the wheels are built with).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

NATIVE = "streamcalls/_native"
SOURCES = [
    f"{NATIVE}/{name}.c"
    for name in (
        "_speedups",
        "sse",
        "json",
        "calls",
        "openai",
        "anthropic",
        "feed",
        "writer",
        "turn",
        "triggers",
    )
]


class OptionalBuildExt(build_ext):
    """build_ext that falls back to the pure-Python package when the extension does not build."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # any failure to build leaves the pure path
            self._fell_back(exc)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:  # a compiler error, no compiler at all
            self._fell_back(exc)

    def _fell_back(self, exc: BaseException) -> None:
        if _wanted("STREAMCALLS_REQUIRE_NATIVE"):
            raise exc
        # Nothing of the extension is to be copied or linked into place now (the editable
        # install's link tree, build_ext --inplace): the package is the pure one.
        self.extensions = []
        self.distribution.ext_modules = []
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[-1]
        if len(reason) > 160:
            reason = reason[:157] + "..."
        print(
            f"streamcalls: the native fast path was not built ({reason}); the pure-Python path is used",
            file=sys.stderr,
        )


def _wanted(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


def extensions() -> list[Extension]:
    if _wanted("STREAMCALLS_PURE_PYTHON_BUILD"):
        return []
    # gcc and clang: C11, the module's own symbols hidden (calls between its files are direct) and
    # link-time optimization across them (the readers inline the JSON reader's small functions).
    unix = ["-std=c11", "-fvisibility=hidden", "-flto"] if os.name != "nt" else []
    options: dict[str, Any] = {
        "sources": SOURCES,
        "depends": [f"{NATIVE}/speedups.h"],
        "extra_compile_args": unix,
        "extra_link_args": unix[1:],
    }
    if _wanted("STREAMCALLS_LIMITED_API"):
        options["define_macros"] = [("Py_LIMITED_API", "0x030A0000")]
        options["py_limited_api"] = True
    return [Extension("streamcalls._native._speedups", **options)]


if __name__ == "__main__":  # (as setuptools' build backend runs it; tests import it)
    setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
