"""aparse: the async front over any async iterable of chunks, on asyncio and trio."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import aclosing

import anyio
import httpx
import pytest

import streamcalls
from streamcalls import TextDelta, ToolCallCompleted
from streamcalls.testing import ReplayApp, load_recordings, serve
from tests.support import DATA, counter_ids, normalize

pytestmark = pytest.mark.anyio

PARALLEL = (DATA / "openai" / "parallel_calls.sse").read_bytes()
ONE_CALL = (DATA / "openai" / "one_call.sse").read_bytes()


class Source:
    """An async source of chunks that records what was read and whether it was closed."""

    def __init__(self, chunks: list[bytes], *, block_after: int | None = None) -> None:
        self.chunks = chunks
        self.read = 0
        self.closed = False
        self.block_after = block_after

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._gen()

    async def _gen(self) -> AsyncIterator[bytes]:
        try:
            for chunk in self.chunks:
                if self.block_after is not None and self.read >= self.block_after:
                    await anyio.sleep_forever()
                self.read += 1
                yield chunk
        finally:
            self.closed = True


def events_split(data: bytes) -> list[bytes]:
    """One chunk per SSE event."""
    return [part + b"\n\n" for part in data.split(b"\n\n") if part]


async def test_aparse_gives_the_same_events_as_parse() -> None:
    chunks = [PARALLEL[i : i + 13] for i in range(0, len(PARALLEL), 13)]
    got = [e async for e in streamcalls.aparse(Source(chunks), id_factory=counter_ids())]
    assert normalize(got) == normalize(streamcalls.parse(PARALLEL, id_factory=counter_ids()))


async def test_str_chunks_and_an_explicit_provider() -> None:
    async def text() -> AsyncIterator[str]:
        yield "hello "
        yield "world"

    got = [e async for e in streamcalls.aparse(text(), provider="text")]
    assert normalize(got)[0] == TextDelta("hello world")


async def test_reading_is_pulled_by_the_consumer() -> None:
    """Backpressure: a chunk is read only when the events before it have been taken."""
    chunks = events_split(PARALLEL)
    source = Source(chunks)
    events = streamcalls.aparse(source)
    async with aclosing(events):
        first = await events.__anext__()
        assert first == streamcalls.StreamStarted("openai", "gpt-4o", "chatcmpl-C3")
        assert await events.__anext__() == TextDelta("Checking both cities.")
        assert source.read == 1
        await anyio.sleep(0.01)  # a slow consumer: nothing is read ahead meanwhile
        assert source.read == 1
        async for event in events:
            if isinstance(event, ToolCallCompleted):
                break
        # call 0 completes in the 4th SSE event: exactly four chunks were read
        assert source.read == 4
    assert source.closed


async def test_closing_early_closes_the_source() -> None:
    source = Source(events_split(PARALLEL))
    async with aclosing(streamcalls.aparse(source)) as events:
        async for _ in events:
            break
    assert source.closed
    assert source.read == 1


async def test_cancelling_closes_the_source() -> None:
    source = Source(events_split(PARALLEL), block_after=2)
    seen = []
    with anyio.move_on_after(0.05) as scope:
        async for event in streamcalls.aparse(source):
            seen.append(event)
    assert scope.cancelled_caught
    assert source.closed
    assert source.read == 2
    assert len(seen) == 3  # the start, the text, then call 0 started


async def test_a_sync_iterable_is_refused_with_a_hint() -> None:
    with pytest.raises(streamcalls.UsageError, match="parse_iter"):
        streamcalls.aparse([b"data: x\n\n"])  # type: ignore[arg-type]
    with pytest.raises(streamcalls.UsageError, match="async iterable"):
        streamcalls.aparse(42)  # type: ignore[arg-type]


async def test_a_dropped_connection_fails_the_open_call_then_raises_a_clear_error() -> None:
    closed = False
    stream = (DATA / "openai" / "one_call.sse").read_bytes()
    cut = stream.index(b"location")  # inside the call's arguments

    async def failing() -> AsyncIterator[bytes]:
        nonlocal closed
        try:
            yield stream[:cut]
            raise ConnectionResetError("peer went away")
        finally:
            closed = True

    events: list[streamcalls.Event] = []

    async def consume() -> None:
        async for event in streamcalls.aparse(failing()):
            events.append(event)

    with pytest.raises(streamcalls.StreamInterrupted, match="broke off") as info:
        await consume()
    assert isinstance(info.value.__cause__, ConnectionResetError)
    failed = [e for e in events if isinstance(e, streamcalls.ToolCallFailed)]
    assert [(f.name, f.error) for f in failed] == [("get_weather", "stream ended before the call completed")]
    assert events[-1] == streamcalls.StreamFinished("error", None, None)
    assert closed


async def test_an_idle_source_ends_with_stream_stalled() -> None:
    async def stalls() -> AsyncIterator[bytes]:
        yield b'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n'
        await anyio.sleep(3600)
        yield b""  # pragma: no cover

    events: list[streamcalls.Event] = []

    async def consume() -> None:
        async for event in streamcalls.aparse(stalls(), idle_timeout=0.2):
            events.append(event)

    with anyio.fail_after(30), pytest.raises(streamcalls.StreamStalled, match=r"no content for 0\.2 s"):
        await consume()
    assert events[:2] == [streamcalls.StreamStarted("openai"), streamcalls.TextDelta("hi")]
    assert events[-1] == streamcalls.StreamFinished("error", None, None)


def test_idle_timeout_must_be_positive() -> None:
    async def empty() -> AsyncIterator[bytes]:
        yield b""

    with pytest.raises(streamcalls.UsageError, match="idle_timeout"):
        streamcalls.aparse(empty(), idle_timeout=0)


def test_the_sync_twin_fails_the_open_call_then_raises() -> None:
    stream = (DATA / "anthropic" / "one_call.sse").read_bytes()
    cut = stream.index(b"renheit")

    def failing() -> Iterator[bytes]:
        yield stream[:cut]
        raise OSError("reset")

    events: list[streamcalls.Event] = []
    with pytest.raises(streamcalls.StreamInterrupted) as info:
        events.extend(streamcalls.parse_iter(failing()))
    assert isinstance(info.value.__cause__, OSError)
    assert [type(e).__name__ for e in events[-3:]] == ["ToolCallFailed", "ParseError", "StreamFinished"]


# -- from_httpx and from_httpx_sync refuse each other's responses ---------------------------------


async def test_a_sync_httpx_response_is_refused_naming_from_httpx_sync() -> None:
    async with serve(ReplayApp(load_recordings(DATA)), graceful_timeout=0.1) as url:

        def in_a_thread() -> tuple[str, list[streamcalls.Event]]:
            with httpx.Client() as client, client.stream("GET", f"{url}/replay/openai/one_call") as response:
                try:
                    streamcalls.from_httpx(response)
                except streamcalls.UsageError as exc:
                    refused = str(exc)
                return refused, list(streamcalls.from_httpx_sync(response))  # what to do instead

        refused, events = await anyio.to_thread.run_sync(in_a_thread)
        async with (
            httpx.AsyncClient() as client,
            client.stream("GET", f"{url}/replay/openai/one_call") as response,
        ):
            with pytest.raises(streamcalls.UsageError) as info:
                streamcalls.from_httpx_sync(response)
            got = [e async for e in streamcalls.from_httpx(response)]
    assert refused == (
        "this response comes from a sync httpx.Client, whose body cannot be read this way: "
        "use streamcalls.from_httpx_sync(response)"
    )
    assert str(info.value) == (
        "this response comes from an httpx.AsyncClient, whose body cannot be read this way: "
        "use streamcalls.from_httpx(response)"
    )
    assert normalize(events) == normalize(got) == normalize(streamcalls.parse(ONE_CALL))


def test_what_is_not_a_response_is_refused() -> None:
    with pytest.raises(
        streamcalls.UsageError, match=r"expected an httpx.Response \(with aiter_bytes\(\)\), not bytes"
    ):
        streamcalls.from_httpx(b"data: {}\n\n")  # type: ignore[arg-type]
