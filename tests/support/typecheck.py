"""Run ``mypy --strict`` over code as a user of the installed package would.

The snippets are written to temporary files and checked by a mypy subprocess
whose Python is a throwaway virtual environment (``--without-pip``, created
in well under a second).  Its ``site-packages`` holds one ``.pth`` file
naming where the packages are, so mypy finds ``streamcalls`` as an installed,
typed package -- as a user's mypy does -- rather than as this repository's
source (whose errors it would report, under this repository's config):

- ``sdks=True``: the repository and this environment's ``site-packages``
  (msgspec, anyio, and the openai and anthropic SDKs of the dev extra);
- ``sdks=False``: a folder of links to ``streamcalls``, ``msgspec`` and
  ``anyio`` only, so the SDKs are absent.

mypy's cache lives in ``.mypy_cache/typecheck-<sdks>`` of the repository:
the first run reads the SDKs' types (some seconds), later runs take about
one.  Each run is independent of the others' results.
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import anyio
import msgspec

import streamcalls

ROOT = Path(__file__).resolve().parent.parent.parent
PACKAGES = (streamcalls, msgspec, anyio)


def run_mypy(files: dict[str, str], tmp: Path, *, sdks: bool = True) -> tuple[int, list[str]]:
    """``mypy --strict`` over ``{file name: source}``; its exit status and output lines."""
    environment = tmp / "venv"
    venv.EnvBuilder(with_pip=False).create(environment)
    python = environment / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    if sdks:
        paths = [str(ROOT), sysconfig.get_paths()["purelib"]]
    else:
        links = tmp / "packages"
        links.mkdir()
        for package in PACKAGES:
            folder = Path(package.__file__ or "").parent
            (links / folder.name).symlink_to(folder, target_is_directory=True)
        paths = [str(links)]
    (site / "typecheck.pth").write_text("\n".join(paths) + "\n")
    sources = tmp / "src"
    sources.mkdir()
    for name, code in files.items():
        (sources / name).write_text(code)
    cache = ROOT / ".mypy_cache" / f"typecheck-{'sdks' if sdks else 'bare'}"
    command = [
        sys.executable,
        "-m",
        "mypy",
        "--strict",
        "--no-error-summary",
        "--hide-error-context",
        "--show-error-codes",
        "--python-executable",
        str(python),
        "--cache-dir",
        str(cache),
        "--config-file",
        "",  # not this repository's pyproject: the user's own settings are mypy's defaults
        *sorted(files),
    ]
    result = subprocess.run(command, cwd=sources, capture_output=True, text=True, check=False, timeout=300)
    assert not result.stderr.strip() or "error:" not in result.stderr, result.stderr
    return result.returncode, result.stdout.splitlines()
