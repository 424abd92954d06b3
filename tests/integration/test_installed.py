"""The package as ``make`` installs it: seen by a type checker, and nothing else of the checkout with it.

``make demo`` and ``make test`` install the checkout editable in ``.venv`` in
setuptools' strict mode (the Makefile says why): ``build/__editable__...``
holds a link to each file of ``streamcalls/``, and a ``.pth`` file puts that
folder, and only it, on ``sys.path``.  A program outside the checkout must
then type-check against the package (the default mode's import hook is
invisible to mypy), and must not be able to import the checkout's ``tests``,
``benchmarks`` or ``fuzz``.  Both are checked from a temporary folder, in
that ``.venv``, with no ``PYTHONPATH``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
VENV = ROOT / ".venv"

PROGRAM = """\
import streamcalls

parser = streamcalls.StreamParser("openai")
events: list[streamcalls.Event] = parser.feed(b"data: [DONE]\\n\\n") + parser.close()
finished = events[-1]
assert isinstance(finished, streamcalls.StreamFinished)
reason: str = finished.reason
"""

MISSPELT = """\
import streamcalls

streamcalls.StreamParser("opnai")
"""


@pytest.fixture
def outside(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A folder outside the checkout, and an environment without the checkout on the path."""
    if Path(sys.prefix).resolve() != VENV.resolve():
        pytest.skip(
            f"the running interpreter ({sys.prefix}) is not this checkout's .venv, where make installs the "
            "package: run through make test"
        )
    # In site-packages: the checkout (on sys.path here) may hold a streamcalls.egg-info of its own.
    (distribution,) = metadata.distributions(name="streamcalls", path=[sysconfig.get_paths()["purelib"]])
    assert json.loads(distribution.read_text("direct_url.json") or "{}").get("url") == ROOT.as_uri()
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
    return tmp_path, environment


def test_mypy_outside_the_checkout_sees_the_installed_package(outside: tuple[Path, dict[str, str]]) -> None:
    folder, environment = outside
    (folder / "agent.py").write_text(PROGRAM)
    (folder / "typo.py").write_text(MISSPELT)

    def mypy(name: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "--config-file", "", name]
        command[-1:-1] = ["--cache-dir", str(ROOT / ".mypy_cache" / "installed")]
        return subprocess.run(
            command, cwd=folder, env=environment, capture_output=True, text=True, check=False, timeout=300
        )

    clean = mypy("agent.py")
    assert (clean.returncode, clean.stdout) == (0, ""), clean.stdout + clean.stderr
    typo = mypy("typo.py")  # the types are read, not just the module found
    assert typo.returncode == 1
    assert (
        'typo.py:3: error: Argument 1 to "StreamParser" has incompatible type "Literal[\'opnai\']"'
        in typo.stdout
    )
    assert "[arg-type]" in typo.stdout


def test_only_streamcalls_is_importable_outside_the_checkout(outside: tuple[Path, dict[str, str]]) -> None:
    folder, environment = outside
    probe = (
        "import importlib.util, json, streamcalls\n"
        "print(streamcalls.__file__)\n"
        "found = {name: importlib.util.find_spec(name) for name in ('tests', 'benchmarks', 'fuzz')}\n"
        "print(json.dumps({name: list(spec.submodule_search_locations or [spec.origin])"
        " for name, spec in found.items() if spec}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=folder, env=environment, capture_output=True, text=True, check=True
    )
    where, others = result.stdout.splitlines()
    assert Path(where).resolve() == ROOT / "streamcalls" / "__init__.py"  # a link: an edit needs no reinstall
    assert not Path(where).is_relative_to(
        ROOT / "streamcalls"
    )  # through build/, not the checkout on sys.path
    for name, places in json.loads(others).items():  # another distribution's, maybe; never the checkout's
        assert not any(Path(place).resolve().is_relative_to(ROOT) for place in places), (name, places)
