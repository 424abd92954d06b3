"""The command line: replay a recorded stream and print its events.

streamcalls replay FILE [--provider P] [--chunk N] [--delay S] [--json]
streamcalls demo
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator, Sequence
from importlib import resources
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
    ToolCallStarted,
)
from ._parser import StreamParser
from .providers import PROVIDER_NAMES

__all__ = ("describe", "main")

DEMO_STREAMS = ("openai_parallel_calls.sse", "anthropic_thinking_then_call.sse")


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


def _chunks(data: bytes, size: int) -> Iterator[bytes]:
    if size <= 0:
        yield data
        return
    for start in range(0, len(data), size):
        yield data[start : start + size]


def replay(
    data: bytes, *, provider: str, chunk: int, delay: float, as_json: bool, out: TextIO = sys.stdout
) -> int:
    """Feed ``data`` in chunks and print each event as it comes; returns an exit status."""
    parser = StreamParser(provider)
    started = time.perf_counter()
    failed = False

    def show(events: list[Event]) -> None:
        nonlocal failed
        for event in events:
            failed = failed or isinstance(event, (ParseError, ProviderError, ToolCallFailed))
            if as_json:
                out.write(msgspec.json.encode(event).decode() + "\n")
            else:
                out.write(f"+{time.perf_counter() - started:6.3f}s  {describe(event)}\n")
            out.flush()

    for piece in _chunks(data, chunk):
        show(parser.feed(piece))
        if delay:
            time.sleep(delay)
    show(parser.close())
    return 1 if failed else 0


def _demo(out: TextIO = sys.stdout) -> int:
    folder = resources.files("streamcalls") / "demo_streams"
    for name in DEMO_STREAMS:
        data = (folder / name).read_bytes()
        out.write(f"\n=== {name}: {len(data)} bytes, fed in 24-byte chunks as they arrive ===\n")
        replay(data, provider="auto", chunk=24, delay=0.004, as_json=False, out=out)
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
    commands.add_parser("demo", help="replay the bundled recorded streams")
    args = parser.parse_args(argv)
    try:
        if args.command == "demo":
            return _demo()
        data = sys.stdin.buffer.read() if str(args.file) == "-" else args.file.read_bytes()
        return replay(data, provider=args.provider, chunk=args.chunk, delay=args.delay, as_json=args.json)
    except BrokenPipeError:  # the reader went away (e.g. piped into head)
        sys.stderr.close()
        return 0
