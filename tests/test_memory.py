"""Memory stays bounded: a long stream runs in constant memory, an idle parser is small.

Measured with tracemalloc (allocations, not time, so these are stable on a
busy machine).  The full-size runs -- a 1 GB text stream, 10 000 idle parsers --
are in ``make bench`` (benchmarks/memory.py); here smaller sizes show the shape.
"""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from streamcalls import StreamParser
from tests.streams import openai_chunk

PROSE = ("Some prose with {braces}, ~tildes~, <tags> and `ticks`.\n~~ almost a fence\n" * 60).encode()


def peak_while(feed: object) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        feed()  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("total", [4_000_000, 16_000_000])
def test_a_long_text_stream_runs_in_constant_memory(total: int) -> None:
    def feed() -> None:
        parser = StreamParser("text", detect=("fence", "json", "hermes", "mistral", "llama", "deepseek"))
        for _ in range(total // len(PROSE)):
            parser.feed(PROSE)  # the events are dropped, as a consumer would
        parser.close()

    # The same ceiling for 4 MB and 16 MB: nothing grows with the stream.
    assert peak_while(feed) < 300_000


def test_a_long_sse_text_stream_runs_in_constant_memory() -> None:
    chunk = openai_chunk({"content": "word " * 40})

    def feed() -> None:
        parser = StreamParser("openai")
        for _ in range(20_000):
            parser.feed(chunk)

    assert peak_while(feed) < 100_000


def test_an_idle_parser_is_small() -> None:
    gc.collect()
    tracemalloc.start()
    parsers = [StreamParser("auto") for _ in range(2_000)]
    size = tracemalloc.get_traced_memory()[0] / len(parsers)
    tracemalloc.stop()
    assert parsers
    assert size < 4_000  # bytes per idle parser: 10 000 of them stay well under 50 MB
