"""Many concurrent streams through the async layer, on one event loop.

The replay server (``streamcalls.testing``) streams recorded OpenAI,
Anthropic and Ollama responses over 127.0.0.1, cut at random points; the
client reads each with ``from_httpx`` and checks that every stream's calls are
exactly the recording's.  Reports throughput and the process's peak memory.
"""

from __future__ import annotations

import resource
import time
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
    async with serve(app, graceful_timeout=5.0) as url:  # closing connections finish first
        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=0)
        async with (
            httpx.AsyncClient(timeout=120, limits=limits) as client,
            anyio.create_task_group() as group,
        ):
            for number in range(streams):
                group.start_soon(one, client, url, number)
    seconds = time.perf_counter() - started
    return {
        "streams": streams,
        "concurrent": concurrency,
        "exact": exact,
        "seconds": seconds,
        "streams_per_s": streams / seconds,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def load(streams: int = 10_000, concurrency: int = 500) -> dict[str, Any]:
    return anyio.run(_load, streams, concurrency)
