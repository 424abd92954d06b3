"""The command line: replay a recorded stream and print its events.

streamcalls replay FILE [--provider P] [--chunk N] [--delay S] [--json] [--partial]
streamcalls serve [--host H] [--port N] [--recordings DIR] [--max-chunk N] [--max-delay S] [--seed N]
streamcalls demo

``serve`` and ``demo`` use the async front and need their extras
(``streamcalls[serve]``, ``streamcalls[demo]``); they are imported only when run.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TextIO

import msgspec

from ._events import (
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
from ._parser import StreamParser
from .providers import PROVIDER_NAMES

__all__ = ("describe", "main")


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
    provider: str,
    chunk: int,
    delay: float,
    as_json: bool,
    partial: bool = False,
    out: TextIO = sys.stdout,
) -> int:
    """Feed ``data`` in chunks and print each event as it comes; returns an exit status."""
    parser = StreamParser(provider, partial_arguments=partial)
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
    return 1 if failed else 0


def _demo(fast: bool) -> int:
    try:
        import anyio

        from ._demo import run_demo
    except ImportError as exc:
        sys.stderr.write(f"the demo needs its extra: pip install 'streamcalls[demo]' ({exc})\n")
        return 2
    return anyio.run(lambda: run_demo(fast=fast))


def _serve(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    try:
        import anyio

        from ._replay import ReplayApp, bundled_recordings, load_recordings
        from ._serve import serve
    except ImportError as exc:
        sys.stderr.write(f"serving needs its extra: pip install 'streamcalls[serve]' ({exc})\n")
        return 2
    recordings = bundled_recordings() if args.recordings is None else load_recordings(args.recordings)
    if not recordings:
        sys.stderr.write(f"no recordings found in {args.recordings}\n")
        return 2
    app = ReplayApp(recordings, seed=args.seed, max_chunk=args.max_chunk, max_delay=args.max_delay)

    async def run() -> None:
        async with serve(app, args.host, args.port, graceful_timeout=2.0) as url:
            out.write(f"replaying {len(recordings)} recorded streams at {url}  (Ctrl+C stops)\n")
            out.write(f"  POST {url}/v1/chat/completions   OpenAI-compatible; base_url={url}/v1\n")
            out.write(f"  POST {url}/v1/messages           Anthropic-style;   base_url={url}\n")
            out.write(f"  GET  {url}/replay/<provider>/<name>\n")
            out.write('  "model" picks a recording (else the first of its provider):\n')
            for key in sorted(recordings):
                out.write(f"    {key}\n")
            out.flush()
            await anyio.sleep_forever()

    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(run)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="streamcalls", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("replay", help="parse a recorded stream file and print its events")
    play.add_argument("file", type=Path, help="a recorded response body; - for stdin")
    play.add_argument("--provider", default="auto", choices=PROVIDER_NAMES)
    play.add_argument("--chunk", type=int, default=0, help="feed N bytes at a time (default: whole)")
    play.add_argument("--delay", type=float, default=0.0, help="seconds to wait between chunks")
    play.add_argument("--json", action="store_true", help="print events as JSON lines")
    play.add_argument(
        "--partial",
        action="store_true",
        help="also print each call's arguments as they stream (partial_arguments=True: ToolCallPatch events)",
    )
    serve = commands.add_parser("serve", help="run the local replay server of recorded provider streams")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000, help="0 picks a free port (default: 8000)")
    serve.add_argument("--recordings", type=Path, help="a folder of recordings (default: the bundled ones)")
    serve.add_argument("--max-chunk", type=int, default=64, help="largest piece sent at once, in bytes")
    serve.add_argument("--max-delay", type=float, default=0.02, help="longest pause between pieces (s)")
    serve.add_argument("--seed", type=int, help="seed of the random chunking and pauses")
    demo = commands.add_parser("demo", help="run tools as their calls complete, against the replay server")
    demo.add_argument("--fast", action="store_true", help="no pauses (for tests)")
    args = parser.parse_args(argv)
    try:
        if args.command == "demo":
            return _demo(args.fast)
        if args.command == "serve":
            return _serve(args)
        data = sys.stdin.buffer.read() if str(args.file) == "-" else args.file.read_bytes()
        return replay(
            data,
            provider=args.provider,
            chunk=args.chunk,
            delay=args.delay,
            as_json=args.json,
            partial=args.partial,
        )
    except BrokenPipeError:  # the reader went away (e.g. piped into head)
        sys.stderr.close()
        return 0
