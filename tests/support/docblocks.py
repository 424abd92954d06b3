"""The code blocks of the documentation -- the site's pages (docs/**/*.md) and the README -- found and run.

The README's blocks are copies of blocks on the site (tests/project/test_readme.py
checks each is there, word for word), so running the site's runs them.

A block is checked by its kind:

- a ```` ```python ```` block with a top-level ``import streamcalls`` line is a
  *program*: it runs as written in its own interpreter, against a
  ``streamcalls serve`` started for it when it names the replay server's
  address (``http://127.0.0.1:8000``), and ``mypy --strict`` checks it;
- any other ```` ```python ```` block is a *fragment* of its page: the page's
  fragments and sessions run in order in one namespace, as a reader goes down
  the page (top-level ``await`` is allowed), where ``streamcalls`` is imported;
- a ```` ```pycon ```` block is a *session*: each ``>>>`` line runs in that
  namespace and must print what the page shows (doctest);
- a block in any other language (```` ```text ````, ```` ```sh ````) is shown,
  not run.

An HTML comment on the line before a program's fence gives the replay server
its options: ``<!-- serve: --max-chunk 50 -->`` (default: ``--max-delay
0.002``).  It does not show on the page.
"""

from __future__ import annotations

import ast
import doctest
import inspect
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio

import streamcalls

ROOT = Path(__file__).resolve().parent.parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
SERVER = "http://127.0.0.1:8000"  # the address the pages' programs use: streamcalls serve's default
DEFAULT_SERVE = ("--max-delay", "0.002")

_FENCE = re.compile(r"^(?P<indent>[ ]*)(?P<fence>```+|~~~+)(?P<info>[^\n`]*)$")
_HEADING = re.compile(r"^(#{1,6}) (.+?)\s*#*$")
_DIRECTIVE = re.compile(r"^\s*<!--\s*serve:(.*?)-->\s*$")
_PROGRAM = re.compile(r"^import streamcalls$", re.MULTILINE)


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page."""

    page: Path  # the markdown file
    line: int  # the fence's line number, from 1
    heading: str  # the nearest heading above it ("" before the first)
    language: str  # the fence's info string's first word
    code: str
    serve: tuple[str, ...]  # replay server options from a <!-- serve: ... --> line before it

    @property
    def where(self) -> str:
        """``docs/guide/codec.md:42``, for messages and file names."""
        page = self.page.relative_to(ROOT) if self.page.is_relative_to(ROOT) else self.page
        return f"{page}:{self.line}"

    @property
    def kind(self) -> str:
        """``"program"``, ``"fragment"``, ``"session"`` or ``"shown"``."""
        if self.language == "python":
            return "program" if _PROGRAM.search(self.code) else "fragment"
        if self.language == "pycon":
            return "session"
        return "shown"

    @property
    def needs_server(self) -> bool:
        return SERVER in self.code


def site_pages() -> list[Path]:
    """Every page of the site, in a stable order."""
    return sorted(p for p in DOCS.rglob("*.md") if "_ext" not in p.parts)


def blocks(page: Path) -> list[Block]:
    """The fenced code blocks of a markdown file, in order."""
    page = page.resolve()
    found: list[Block] = []
    lines = page.read_text().splitlines()
    heading = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        title = _HEADING.match(line)
        if title:
            heading = title.group(2)
        fence = _FENCE.match(line)
        if not fence:
            i += 1
            continue
        indent, marker = len(fence.group("indent")), fence.group("fence")
        language = (fence.group("info").split() or [""])[0].lstrip(".").lower()
        directive = _DIRECTIVE.match(lines[i - 1]) if i else None
        serve = tuple(shlex.split(directive.group(1))) if directive else DEFAULT_SERVE
        body: list[str] = []
        j = i + 1
        while j < len(lines) and lines[j].strip() != marker:
            body.append(lines[j][indent:] if not lines[j][:indent].strip() else lines[j].lstrip())
            j += 1
        found.append(Block(page, i + 1, heading, language, "\n".join(body) + "\n", serve))
        i = j + 1
    return found


def site_blocks() -> list[Block]:
    return [block for page in site_pages() for block in blocks(page)]


def under(page: Path, heading: str) -> list[Block]:
    """The blocks of ``page`` whose nearest heading above is ``heading``."""
    return [block for block in blocks(page) if block.heading == heading]


# -- programs ---------------------------------------------------------------------------------------------


@contextmanager
def served(*options: str) -> Iterator[str]:
    """``streamcalls serve`` in a subprocess; yields its URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "streamcalls", "serve", "--port", "0", *options],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("replaying "), first
        yield first.split(" at ")[1].split()[0]
    finally:
        process.terminate()
        process.wait(timeout=10)


class Servers:
    """Replay servers started on first use, one per set of options, stopped together."""

    def __init__(self) -> None:
        self._stack = ExitStack()
        self._urls: dict[tuple[str, ...], str] = {}

    def url(self, options: tuple[str, ...]) -> str:
        if options not in self._urls:
            self._urls[options] = self._stack.enter_context(served(*options))
        return self._urls[options]

    def close(self) -> None:
        self._stack.close()


def run_program(block: Block, servers: Servers | None = None) -> subprocess.CompletedProcess[str]:
    """Run a program block as written (against a replay server when it names one); its result."""
    assert block.kind == "program", block.where
    code = block.code
    with ExitStack() as stack:
        if block.needs_server:
            url = servers.url(block.serve) if servers else stack.enter_context(served(*block.serve))
            code = code.replace(SERVER, url)
        return subprocess.run(
            [sys.executable, "-c", code],
            check=False,
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
        )


# -- a page's fragments and sessions ----------------------------------------------------------------------


class BlockFailed(AssertionError):
    pass


def run_page(page: Path) -> int:
    """Run a page's fragments and sessions in order, in one namespace; how many ran.

    Raises :class:`BlockFailed` naming the block (and, for a session, the
    example whose output differs).
    """
    namespace: dict[str, object] = {"__name__": "__docs__", "streamcalls": streamcalls}
    runnable = [b for b in blocks(page) if b.kind in ("fragment", "session")]

    async def go() -> None:
        for block in runnable:
            if block.kind == "fragment":
                await run_fragment(block, namespace)
            else:
                run_session(block, namespace)

    anyio.run(go)
    return len(runnable)


async def run_fragment(block: Block, namespace: dict[str, object]) -> None:
    try:
        code = compile(block.code, block.where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        result = eval(code, namespace)
        if inspect.iscoroutine(result):
            await result
    except Exception as exc:
        raise BlockFailed(f"{block.where}: {type(exc).__name__}: {exc}") from exc


def run_session(block: Block, namespace: dict[str, object]) -> None:
    test = doctest.DocTestParser().get_doctest(
        block.code, namespace, block.where, str(block.page), block.line
    )
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=report.append, clear_globs=False)
    namespace.update(test.globs)  # the DocTest ran in a copy: what it defined is for the blocks after it
    if runner.failures:
        raise BlockFailed(f"{block.where}:\n" + "".join(report))


# -- types ---------------------------------------------------------------------------------------------------


def mypy(*files: Path) -> subprocess.CompletedProcess[str]:
    """mypy --strict over files of a user's own that import streamcalls, with the project's settings."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(ROOT / ".mypy_cache"),
            *map(str, files),
        ],
        cwd=ROOT,  # where streamcalls is found, as installed for development
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )
