"""Many concurrent streams through the async layer, on one event loop.

The replay server (``streamcalls.testing``) streams recorded OpenAI,
Anthropic and Ollama responses over 127.0.0.1, cut at random points; the
client reads each with ``from_httpx`` and checks that every stream's calls are
exactly the recording's.  Reports throughput, the process's peak memory, and
how much of the process's CPU time the parser took: every ``feed`` and
``close`` of every :class:`~streamcalls.StreamParser` is timed while the run
lasts (the class's own methods are wrapped, whoever made the parser), against
the process's CPU time (``time.process_time``).  The replay server runs in the
same process and event loop, so the rest is the server, httpx, the event loop
and the sockets of both ends.
"""

from __future__ import annotations

import resource
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx

import streamcalls
from streamcalls.testing import ReplayApp, load_recordings, serve

__all__ = ("load",)

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
KEYS = ("openai/parallel_calls", "anthropic/parallel_calls", "ollama/parallel_calls_one_line")


def _calls(events: list[streamcalls.Event]) -> list[tuple[str, Any]]:
    return [(e.call.name, e.call.arguments) for e in events if isinstance(e, streamcalls.ToolCallCompleted)]


def _clock_cost(clock: Callable[[], float], samples: int = 2001) -> float:
    """What reading ``clock`` twice adds to an interval it times (the median of empty intervals)."""
    empty = []
    for _ in range(samples):
        start = clock()
        empty.append(clock() - start)
    return statistics.median(empty)


@contextmanager
def parser_clock() -> Iterator[dict[str, float]]:
    """While the block runs, the CPU seconds spent inside ``StreamParser.feed`` and ``close`` (and
    how many calls), counted in the dict it yields when the block ends.  The thread's CPU clock, not
    wall time: a call preempted by another process on a shared machine is not charged for it; what
    reading the clock adds to each interval is taken off."""
    parser_class = streamcalls.StreamParser
    feed, close = parser_class.feed, parser_class.close
    totals = {"seconds": 0.0, "calls": 0.0}
    clock = time.thread_time
    cost = _clock_cost(clock)

    def timed_feed(self: streamcalls.StreamParser, data: Any) -> list[streamcalls.Event]:
        start = clock()
        try:
            return feed(self, data)
        finally:
            totals["seconds"] += clock() - start
            totals["calls"] += 1

    def timed_close(self: streamcalls.StreamParser) -> list[streamcalls.Event]:
        start = clock()
        try:
            return close(self)
        finally:
            totals["seconds"] += clock() - start
            totals["calls"] += 1

    parser_class.feed = timed_feed  # type: ignore[method-assign]
    parser_class.close = timed_close  # type: ignore[method-assign]
    try:
        yield totals
    finally:
        parser_class.feed = feed  # type: ignore[method-assign]
        parser_class.close = close  # type: ignore[method-assign]
        totals["seconds"] = max(0.0, totals["seconds"] - cost * totals["calls"])


async def _load(streams: int, concurrency: int) -> dict[str, Any]:
    recordings = load_recordings(DATA)
    expected = {key: _calls(list(streamcalls.parse(recordings[key].body))) for key in KEYS}
    exact = 0
    limiter = anyio.CapacityLimiter(concurrency)

    async def one(client: httpx.AsyncClient, url: str, number: int) -> None:
        nonlocal exact
        key = KEYS[number % len(KEYS)]
        async with limiter, client.stream("GET", f"{url}/replay/{key}") as response:
            events = [event async for event in streamcalls.from_httpx(response)]
        exact += _calls(events) == expected[key]

    app = ReplayApp(recordings, max_chunk=64, max_delay=0.0, seed=1)
    started = time.perf_counter()
    with parser_clock() as parser:
        cpu = time.process_time()
        async with serve(app, graceful_timeout=5.0) as url:  # closing connections finish first
            limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=0)
            async with (
                httpx.AsyncClient(timeout=120, limits=limits) as client,
                anyio.create_task_group() as group,
            ):
                for number in range(streams):
                    group.start_soon(one, client, url, number)
        cpu = time.process_time() - cpu
    seconds = time.perf_counter() - started
    return {
        "cpu_s": cpu,
        "parser_s": parser["seconds"],
        "parser_calls": int(parser["calls"]),
        "parser_share": parser["seconds"] / cpu if cpu else None,
        "streams": streams,
        "concurrent": concurrency,
        "exact": exact,
        "seconds": seconds,
        "streams_per_s": streams / seconds,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def load(streams: int = 10_000, concurrency: int = 500) -> dict[str, Any]:
    return anyio.run(_load, streams, concurrency)
