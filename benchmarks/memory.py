"""What a parser holds, measured with tracemalloc.

- Idle parsers: 10 000 parsers, each fed its stream's first event (so the
  provider is known and the stream is open, as in a gateway waiting on
  slow upstreams); the traced memory they hold, in total and per parser.
- Open calls: 10 000 parsers, each fed its stream up to its call's start
  and ``OPEN_FRAGMENTS`` argument fragments after it (about 100 characters
  of arguments): a gateway whose streams are all inside a call.  Its
  budget is 30 MB (the regression guard, :mod:`benchmarks.guard`, checks it).
- Open call: one parser fed a stream up to (not including) the last
  argument fragment of its only call; the memory it holds, for 10 KB and
  100 KB arguments.  O(open call size) means the ratio of the two is ~10
  (a little less: the parser's own few KB are in both); a call holds its
  arguments at about one byte per character, so ``bytes_per_argument_byte``
  is near 1.
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable, Sequence
from typing import Any

import streamcalls

from .streams import Stream, anthropic_stream, openai_stream

__all__ = ("OPEN_FRAGMENTS", "idle_parsers", "measure_memory", "open_call_state", "open_calls")

OPEN_FRAGMENTS = 18  # argument fragments each parser of the open-calls row has been fed
BUDGET_MB = 30.0  # for 10 000 such parsers (issue 24); in proportion for fewer


def _traced(build: Callable[[], Any]) -> tuple[Any, int]:
    """Build something and return it with the traced bytes it still holds."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = build()
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return kept, after - before


def idle_parsers(provider: streamcalls.ProviderName, first: bytes, n: int = 10_000) -> dict[str, Any]:
    def build() -> list[streamcalls.StreamParser]:
        parsers = [streamcalls.StreamParser(provider) for _ in range(n)]
        for parser in parsers:
            parser.feed(first)
        return parsers

    parsers, used = _traced(build)
    del parsers
    return {"provider": provider, "parsers": n, "bytes": used, "mb": used / 1e6, "bytes_per_parser": used / n}


def _reads_into_call(stream: Stream, fragments: int) -> tuple[bytes, ...]:
    """The stream's reads up to the one that starts its first call, and ``fragments`` more."""
    parser = streamcalls.StreamParser(stream.provider)
    for number, read in enumerate(stream.reads):
        if any(isinstance(e, streamcalls.ToolCallStarted) for e in parser.feed(read)):
            return stream.reads[: number + 1 + fragments]
    raise ValueError(f"{stream.key} starts no call")


def open_calls(stream: Stream, n: int = 10_000, fragments: int = OPEN_FRAGMENTS) -> dict[str, Any]:
    """``n`` parsers, each fed ``stream`` up to its call's start and ``fragments`` argument fragments."""
    reads = _reads_into_call(stream, fragments)

    def build() -> list[streamcalls.StreamParser]:
        parsers = [streamcalls.StreamParser(stream.provider) for _ in range(n)]
        for parser in parsers:
            for read in reads:
                parser.feed(read)
        return parsers

    parsers, used = _traced(build)
    del parsers
    return {
        "provider": stream.provider,
        "parsers": n,
        "fragments": fragments,
        "bytes": used,
        "mb": used / 1e6,
        "bytes_per_parser": used / n,
        "budget_mb": BUDGET_MB * n / 10_000,
    }


def _fragment_reads(stream: Stream) -> int:
    """How many reads to feed to stop just before the call's last argument fragment."""
    if stream.wire == "openai":
        return len(stream.reads) - 4  # last fragment, finish chunk, usage chunk, [DONE]
    return len(stream.reads) - 4  # last fragment, block stop, message_delta, message_stop


def open_call_state(make: Callable[[int, int], Stream], sizes: Sequence[int]) -> list[dict[str, Any]]:
    out = []
    for size in sizes:
        stream = make(1, size)
        reads = stream.reads[: _fragment_reads(stream)]

        def build(
            reads: tuple[bytes, ...] = reads, provider: streamcalls.ProviderName = stream.provider
        ) -> Any:
            parser = streamcalls.StreamParser(provider)
            for read in reads:
                parser.feed(read)
            return parser

        parser, used = _traced(build)
        del parser
        out.append(
            {
                "stream": stream.key,
                "args_bytes": size,
                "bytes": used,
                "bytes_per_argument_byte": used / size,
            }
        )
    return out


def measure_memory(n_parsers: int = 10_000, sizes: Sequence[int] = (10_000, 100_000)) -> dict[str, Any]:
    openai = openai_stream(1, 1000)
    anthropic = anthropic_stream(1, 1000)
    return {
        "idle": [
            idle_parsers("openai", openai.reads[0], n_parsers),
            idle_parsers("anthropic", anthropic.reads[0], n_parsers),
        ],
        "open_calls": [open_calls(openai, n_parsers), open_calls(anthropic, n_parsers)],
        "open_call": open_call_state(openai_stream, sizes) + open_call_state(anthropic_stream, sizes),
    }
