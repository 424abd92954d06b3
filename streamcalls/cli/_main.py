"""The command line: replay a recorded stream, measure the parser on recordings, serve them, run the demo.

streamcalls replay FILE [--provider P] [--detect NAMES] [--model NAME] [--chunk N] [--delay S] [--json] [--partial]
streamcalls bench FILE... [--provider P] [--detect NAMES] [--chunk N] [--json]
streamcalls serve [--host H] [--port N] [--recordings DIR] [--max-chunk N] [--max-delay S] [--seed N]
streamcalls demo

Each subcommand is one ``_add_*`` function (its arguments) and one ``_run_*``
function (what it does).  A mistake of the user's -- a file that cannot be
read, a bad option value, a port in use -- is one line on stderr and exit
status 2, never a traceback.  ``serve`` and ``demo`` use the async front and
need their extras (``streamcalls[serve]``, ``streamcalls[demo]``); they are
imported only when run.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO, TypeAlias

import msgspec

from .._errors import UsageError
from .._events import (
    Event,
    ParseError,
    ProviderError,
    ReasoningDelta,
    StreamFinished,
    TextDelta,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallPatch,
    ToolCallStarted,
)
from .._names import ProviderName
from .._parser import StreamParser
from ..detectors import DETECTORS
from ..providers import ADAPTERS, PROVIDER_NAMES

__all__ = ("describe", "main", "replay")

EXIT_OK = 0
EXIT_PROBLEMS = 1  # the stream had problems
EXIT_USAGE = 2  # the command could not run as given

EXIT_STATUS = """\
exit status:
  0  done, and every stream was clean
  1  a stream had problems: a ParseError, a ProviderError or a failed call
  2  the command could not run as given: a bad option value, a file that cannot be read,
     a port in use, a missing extra (one line on stderr says which)
"""


class CommandError(Exception):
    """A mistake in the command line: reported as one line, exit status 2."""


class _ArgumentParser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault(
            "formatter_class", argparse.RawDescriptionHelpFormatter
        )  # keeps EXIT_STATUS's lines
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        # argparse prints its usage too; one line says it, and --help has the rest.
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see {self.prog} --help)\n")


Commands: TypeAlias = "argparse._SubParsersAction[_ArgumentParser]"


# -- option values ------------------------------------------------------------------------------


def _number(text: str, parse: Callable[[str], float], what: str) -> float:
    try:
        return parse(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def _positive_int(text: str) -> int:
    value = int(_number(text, int, "a whole number"))
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _seconds(text: str) -> float:
    value = _number(text, float, "a number of seconds")
    if not value >= 0:  # NaN too
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds, not {text}")
    return value


def _port(text: str) -> int:
    value = int(_number(text, int, "a port number"))
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be 0 to 65535 (0 picks a free port), not {value}")
    return value


def _detectors(text: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if names == ("none",):
        return ()
    unknown = [name for name in names if name not in DETECTORS]
    if unknown:
        known = ", ".join(DETECTORS)
        raise argparse.ArgumentTypeError(
            f"unknown detector {unknown[0]!r}; expected some of {known}, or none"
        )
    return names


def _read(path: Path) -> bytes:
    """A recording's bytes (``-``: stdin)."""
    if str(path) == "-":
        return sys.stdin.buffer.read()
    try:
        return path.read_bytes()
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from None


def _add_stream_options(command: argparse.ArgumentParser, chunk_help: str) -> None:
    command.add_argument(
        "--provider",
        default="auto",
        choices=PROVIDER_NAMES,
        metavar="P",
        help=f"auto (default), {', '.join(ADAPTERS)}, or an alias (openrouter, groq, vllm, ...)",
    )
    command.add_argument(
        "--detect",
        type=_detectors,
        metavar="NAMES",
        help=f"text detectors, comma-separated ({', '.join(DETECTORS)}), or none (default: fence,json)",
    )
    command.add_argument("--chunk", type=_positive_int, metavar="N", help=chunk_help)
    command.add_argument("--json", action="store_true", help="print JSON for scripts")


# -- replay ------------------------------------------------------------------------------------------


def describe(event: Event) -> str:
    """One readable line for an event."""
    if isinstance(event, TextDelta):
        return f"text       {event.text!r}"
    if isinstance(event, ReasoningDelta):
        return f"reasoning  {event.text!r}"
    if isinstance(event, ToolCallStarted):
        return f"call #{event.index} started   {event.name} (id {event.id})"
    if isinstance(event, ToolCallDelta):
        return f"call #{event.index} arguments {event.arguments_delta!r}"
    if isinstance(event, ToolCallPatch):
        return f"call #{event.index} {event.op:9} {event.pointer or '(root)'} {_short(event.value)}"
    if isinstance(event, ToolCallCompleted):
        call = event.call
        return f"call #{call.index} COMPLETED {call.name}({call.arguments_json})"
    if isinstance(event, ToolCallFailed):
        return f"call #{event.index} FAILED    {event.name}: {event.error}"
    if isinstance(event, StreamFinished):
        usage = f", usage {msgspec.json.encode(event.usage).decode()}" if event.usage else ""
        return f"finished   {event.reason} (provider said {event.provider_reason!r}{usage})"
    if isinstance(event, ProviderError):
        return f"PROVIDER ERROR {event.message} (code {event.code})"
    if isinstance(event, ParseError):
        return f"PARSE ERROR {event.message}"
    raise AssertionError(event)


def _short(value: object, limit: int = 80) -> str:
    text = msgspec.json.encode(value).decode()
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _GrowingStrings:
    """``--partial``'s human view: a patch's path and its value so far (a long string's last characters)."""

    TAIL = 60

    def __init__(self) -> None:
        self._strings: dict[tuple[int, tuple[object, ...]], tuple[int, str]] = {}  # (length, tail)

    def describe(self, patch: ToolCallPatch) -> str:
        key = (patch.index, patch.path)
        value = patch.value
        if patch.op == "add" and type(value) is not str:
            return describe(patch)
        length, tail = self._strings.get(key, (0, "")) if patch.op == "append" else (0, "")
        length += len(value)
        tail = (tail + value)[-self.TAIL :]
        self._strings[key] = (length, tail)
        shown = ("…" if length > len(tail) else "") + _short(tail, self.TAIL + 20)
        return f"call #{patch.index} {patch.op:9} {patch.pointer or '(root)'} = {shown} ({length} chars)"


def _chunks(data: bytes, size: int) -> Iterator[bytes]:
    if size <= 0:
        yield data
        return
    for start in range(0, len(data), size):
        yield data[start : start + size]


def replay(
    data: bytes,
    *,
    provider: ProviderName,
    chunk: int,
    delay: float,
    as_json: bool,
    detect: Sequence[str] | None = None,
    partial: bool = False,
    out: TextIO | None = None,
    model: str | None = None,
) -> int:
    """Feed ``data`` in chunks (``chunk <= 0``: whole) and print each event as it comes; returns an exit status."""
    out = out or sys.stdout
    parser = StreamParser(provider, detect=detect, partial_arguments=partial, model=model)
    strings = _GrowingStrings()
    started = time.perf_counter()
    failed = False

    def show(events: list[Event]) -> None:
        nonlocal failed
        for event in events:
            failed = failed or isinstance(event, (ParseError, ProviderError, ToolCallFailed))
            if as_json:
                out.write(msgspec.json.encode(event).decode() + "\n")
            else:
                line = strings.describe(event) if type(event) is ToolCallPatch else describe(event)
                out.write(f"+{time.perf_counter() - started:6.3f}s  {line}\n")
            out.flush()

    for piece in _chunks(data, chunk):
        show(parser.feed(piece))
        if delay:
            time.sleep(delay)
    show(parser.close())
    return EXIT_PROBLEMS if failed else EXIT_OK


def _add_replay(commands: Commands) -> None:
    command = commands.add_parser(
        "replay", help="parse a recorded stream file and print its events", epilog=EXIT_STATUS
    )
    command.add_argument("file", type=Path, help="a recorded response body; - for stdin")
    _add_stream_options(command, "feed N bytes at a time (default: the whole file at once)")
    command.add_argument(
        "--delay", type=_seconds, default=0.0, metavar="S", help="seconds to wait between chunks"
    )
    command.add_argument(
        "--partial",
        action="store_true",
        help="also print each call's arguments as they stream (partial_arguments=True: ToolCallPatch events)",
    )
    command.add_argument(
        "--model",
        metavar="NAME",
        help="the model's name: its family's text detectors join the defaults (e.g. openai/gpt-oss-20b)",
    )
    command.set_defaults(run=_run_replay)


def _run_replay(args: argparse.Namespace) -> int:
    data = _read(args.file)
    return replay(
        data,
        provider=args.provider,
        chunk=args.chunk or 0,
        delay=args.delay,
        as_json=args.json,
        detect=args.detect,
        partial=args.partial,
        model=args.model,
    )


# -- bench -------------------------------------------------------------------------------------------

BENCH_CHUNK = 256


def _add_bench(commands: Commands) -> None:
    command = commands.add_parser(
        "bench",
        help="measure the parser's chunk throughput on recordings, against the split + decode floor",
        description="Replays each recording through the parser and through the msgspec split + decode floor\n"
        "of its framing, timed in the same run (CPU time, medians of interleaved runs), and shows\n"
        "when each call completed: bytes into the stream against the stream's end.",
        epilog=EXIT_STATUS,
    )
    command.add_argument("files", type=Path, nargs="+", metavar="FILE", help="recorded response bodies")
    _add_stream_options(command, f"bytes per read (default: {BENCH_CHUNK})")
    command.set_defaults(run=_run_bench)


def _run_bench(args: argparse.Namespace) -> int:
    from ._bench import bench_file, render, render_json

    out = sys.stdout
    recordings = [(path, _read(path)) for path in args.files]  # every file readable before any timing
    results = []
    for path, data in recordings:
        results.append(
            bench_file(
                str(path), data, provider=args.provider, chunk=args.chunk or BENCH_CHUNK, detect=args.detect
            )
        )
        if not args.json:
            out.write(render(results[-1:]))
            out.flush()
    if args.json:
        out.write(render_json(results))
    return EXIT_PROBLEMS if any(m.problems for m in results) else EXIT_OK


# -- serve and demo ------------------------------------------------------------------------------------


def _add_serve(commands: Commands) -> None:
    command = commands.add_parser(
        "serve", help="run the local replay server of recorded provider streams", epilog=EXIT_STATUS
    )
    command.add_argument("--host", default="127.0.0.1")
    command.add_argument("--port", type=_port, default=8000, help="0 picks a free port (default: 8000)")
    command.add_argument("--recordings", type=Path, help="a folder of recordings (default: the bundled ones)")
    command.add_argument(
        "--max-chunk", type=_positive_int, default=64, help="largest piece sent at once, in bytes"
    )
    command.add_argument("--max-delay", type=_seconds, default=0.02, help="longest pause between pieces (s)")
    command.add_argument("--seed", type=int, help="seed of the random chunking and pauses")
    command.set_defaults(run=_run_serve)


def _run_serve(args: argparse.Namespace) -> int:
    try:
        import anyio

        from ..replay._app import ReplayApp, bundled_recordings, load_recordings
        from ..replay._routes import ENDPOINTS
        from ..replay._serve import serve
    except ImportError as exc:
        raise CommandError(f"serving needs its extra: pip install 'streamcalls[serve]' ({exc})") from None
    if args.recordings is None:
        recordings = bundled_recordings()
    else:
        try:
            recordings = load_recordings(args.recordings)
        except OSError as exc:
            raise CommandError(
                f"cannot read recordings from {args.recordings}: {exc.strerror or exc}"
            ) from None
    if not recordings:
        raise CommandError(f"no recordings found in {args.recordings}")
    app = ReplayApp(recordings, seed=args.seed, max_chunk=args.max_chunk, max_delay=args.max_delay)
    out = sys.stdout
    listening = False

    async def run() -> None:
        nonlocal listening
        async with serve(app, args.host, args.port, graceful_timeout=2.0) as url:
            listening = True
            out.write(f"replaying {len(recordings)} recorded streams at {url}  (Ctrl+C stops)\n")
            width = max(len(endpoint) for endpoint, _ in ENDPOINTS)
            for endpoint, what in ENDPOINTS:
                out.write(f"  {endpoint:<{width}}  {what.replace('<url>', url)}\n")
            out.write(
                "  the model picks a recording; a history ending with tool results gets its next turn:\n"
            )
            for key in sorted(recordings):
                turns = recordings[key].turns
                out.write(f"    {key}{f'  ({turns} turns)' if turns > 1 else ''}\n")
            out.flush()
            await anyio.sleep_forever()

    try:
        with contextlib.suppress(KeyboardInterrupt):
            anyio.run(run)
    except OSError as exc:
        if listening:
            raise
        # Binding failed: the port is taken, the host is not this machine's, ...
        raise CommandError(f"cannot serve on {args.host}:{args.port}: {exc.strerror or exc}") from None
    return EXIT_OK


def _add_demo(commands: Commands) -> None:
    command = commands.add_parser(
        "demo", help="run tools as their calls complete, against the replay server", epilog=EXIT_STATUS
    )
    command.add_argument("--fast", action="store_true", help="no pauses (for tests)")
    command.set_defaults(run=_run_demo)


def _run_demo(args: argparse.Namespace) -> int:
    try:
        import anyio

        from ..replay._demo import run_demo
    except ImportError as exc:
        raise CommandError(f"the demo needs its extra: pip install 'streamcalls[demo]' ({exc})") from None
    status: int = anyio.run(lambda: run_demo(fast=args.fast))
    return status


# -- main ----------------------------------------------------------------------------------------------

SUBCOMMANDS: tuple[Callable[[Commands], None], ...] = (_add_replay, _add_bench, _add_serve, _add_demo)


def build_parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(prog="streamcalls", description=__doc__.split("\n")[0], epilog=EXIT_STATUS)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (see ``streamcalls --help``).

    A mistake of the user's is one line on stderr and status 2, never an exception.
    """
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help, or a bad argument (already reported on one line)
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    try:
        status: int = args.run(args)
        return status
    except (CommandError, UsageError) as exc:
        sys.stderr.write(f"streamcalls {args.command}: {exc}\n")
        return EXIT_USAGE
    except BrokenPipeError:  # the reader went away (e.g. piped into head)
        sys.stderr.close()
        return EXIT_OK
    except KeyboardInterrupt:
        return 130  # the shell's code for Ctrl+C
