"""A source that breaks off: the tools of completed calls run to their end, their results are
yielded, then the source's error is raised.  In memory, and over real sockets (the replay server,
its connection cut while a tool runs) on asyncio and trio."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Any

import anyio
import httpx
import pytest

import streamcalls
from streamcalls import StreamFinished, ToolCallCompleted, ToolResult
from streamcalls.testing import ReplayApp, load_recordings, serve
from tests.integration.test_e2e import MESSAGES, events_until_first_call
from tests.support import DATA, plain
from tests.support.streams import openai_call_start
from tests.unit.test_tools import HangingTool

pytestmark = pytest.mark.anyio


class Watched:
    """Events from a source, with ``failed`` set the moment the source raises."""

    def __init__(self, events: AsyncGenerator[streamcalls.Event, None]) -> None:
        self.events = events
        self.failed = anyio.Event()

    async def __aiter__(self) -> AsyncIterator[streamcalls.Event]:
        try:
            async for event in self.events:
                yield event
        except BaseException:
            self.failed.set()
            raise
        finally:
            await self.events.aclose()


async def broken_chunks(*parts: bytes, error: Exception) -> AsyncIterator[bytes]:
    for part in parts:
        yield part
    raise error


async def consume(run: streamcalls.ToolRun, items: list[Any]) -> None:
    async with run:
        async for item in run:
            items.append(item)


async def test_a_tool_running_when_the_source_breaks_finishes_and_its_result_comes_first() -> None:
    chunks = broken_chunks(
        openai_call_start(0, "call_a", "add", '{"a": 1, "b": 2}'),
        openai_call_start(1, "call_b", "add", '{"a": 1'),  # cut off inside its arguments
        error=ConnectionResetError("peer went away"),
    )
    source = Watched(streamcalls.aparse(chunks))

    async def add(a: int, b: int) -> int:
        await source.failed.wait()  # still running when the source raises
        return a + b

    items: list[Any] = []
    with anyio.fail_after(10), pytest.raises(streamcalls.StreamInterrupted, match="peer went away") as caught:
        await consume(streamcalls.run_tools(source, [add]), items)
    assert isinstance(caught.value.__cause__, ConnectionResetError)
    kinds = [type(item).__name__ for item in items]
    # The events that end a cut-off stream, then the result of the tool that was running.
    assert kinds[-4:] == ["ToolCallFailed", "ParseError", "StreamFinished", "ToolResult"], kinds
    assert items[-1] == ToolResult("call_a", "add", "3")
    assert items[-2].reason == "error"


async def test_a_stalled_source_lets_its_tools_finish_then_raises_stream_stalled() -> None:
    async def stalls() -> AsyncIterator[bytes]:
        yield openai_call_start(0, "call_a", "add", '{"a": 1, "b": 2}')
        await anyio.sleep_forever()
        yield b""

    source = Watched(streamcalls.aparse(stalls(), idle_timeout=0.05))

    async def add(a: int, b: int) -> int:
        await source.failed.wait()
        return a + b

    items: list[Any] = []
    with anyio.fail_after(10), pytest.raises(streamcalls.StreamStalled):
        await consume(streamcalls.run_tools(source, [add]), items)
    assert items[-1] == ToolResult("call_a", "add", "3")


async def test_any_exception_from_the_source_is_raised_as_it_is_after_the_results() -> None:
    call = streamcalls.ToolCall("call_a", "echo", {"text": "hi"})
    failed = anyio.Event()

    async def events() -> AsyncIterator[streamcalls.Event]:
        yield ToolCallCompleted(call)
        failed.set()
        raise ValueError("the source's own error")

    async def echo(text: str) -> str:
        await failed.wait()
        await anyio.sleep(0.01)  # the pump is already waiting for this tool
        return text

    items: list[Any] = []
    with anyio.fail_after(10), pytest.raises(ValueError, match="the source's own error") as caught:
        await consume(streamcalls.run_tools(events(), [echo]), items)
    assert type(caught.value) is ValueError  # not wrapped in an exception group
    assert items == [ToolCallCompleted(call), ToolResult("call_a", "echo", "hi")]


async def test_the_wait_is_bounded_by_the_timeout() -> None:
    async def events() -> AsyncIterator[streamcalls.Event]:
        yield ToolCallCompleted(streamcalls.ToolCall("call_a", "hang", {}))
        raise ConnectionResetError("gone")

    items: list[Any] = []
    with anyio.fail_after(10), pytest.raises(ConnectionResetError):
        await consume(streamcalls.run_tools(events(), {"hang": HangingTool()}, timeout=0.05), items)
    assert items[-1] == ToolResult("call_a", "hang", "tool 'hang' timed out after 0.05 s", True)


async def test_leaving_the_block_while_tools_finish_still_cancels_them() -> None:
    gone = anyio.Event()

    async def events() -> AsyncIterator[streamcalls.Event]:
        yield ToolCallCompleted(streamcalls.ToolCall("call_a", "hang", {}))
        yield StreamFinished("error")
        gone.set()
        raise ConnectionResetError("gone")

    hang = HangingTool()
    with anyio.fail_after(10):
        async with streamcalls.run_tools(events(), {"hang": hang}) as run:
            async for item in run:
                if isinstance(item, StreamFinished):
                    await gone.wait()  # the source has raised; the run waits for the tool
                    break
    assert hang.cancelled
    [message] = plain(run.messages("anthropic"))[1:]  # the call had no result: an error result says so
    assert message["content"][0]["is_error"] is True


# -- over real sockets ---------------------------------------------------------------------------


class Cuttable:
    """The replay server, whose connection the test can cut: once ``armed``, the app's next send
    raises, and the server drops the connection in the middle of the response."""

    def __init__(self, app: ReplayApp) -> None:
        self.app = app
        self.armed = False
        self.cut = anyio.Event()

    async def __call__(
        self, scope: Any, receive: Callable[[], Awaitable[Any]], send: Callable[[Any], Awaitable[None]]
    ) -> None:
        async def cutting_send(message: Any) -> None:
            if self.armed and scope["type"] == "http":
                self.cut.set()
                raise ConnectionAbortedError("the test cut the connection")
            await send(message)

        await self.app(scope, receive, cutting_send)


@pytest.mark.parametrize(
    ("path", "key", "expected"),
    [
        ("/v1/chat/completions", "openai/parallel_calls", "get_weather: Paris"),
        ("/v1/messages", "anthropic/parallel_calls", "read_file: src/main.py"),
    ],
)
async def test_a_tool_started_before_the_cut_finishes_then_stream_interrupted(
    path: str, key: str, expected: str
) -> None:
    app = ReplayApp(load_recordings(DATA), seed=3, max_chunk=48)
    hold = app.hold(after_events=events_until_first_call(key))
    server = Cuttable(app)
    request = {"model": key.split("/")[1], "stream": True, "max_tokens": 100, "messages": MESSAGES}
    moments: list[str] = []
    items: list[Any] = []

    async def across_the_cut(answer: str) -> str:
        moments.append("started")
        await hold.reached.wait()  # the server has sent the first call and holds the rest
        server.armed = True  # the rest is never sent: the connection drops in the middle
        hold.release()
        await source.failed.wait()  # the client has seen the connection go
        moments.append("finished after the cut")
        return answer

    async def get_weather(city: str) -> str:
        return await across_the_cut(f"get_weather: {city}")

    async def read_file(path: str) -> str:
        return await across_the_cut(f"read_file: {path}")

    with anyio.fail_after(20):
        async with (
            serve(server, graceful_timeout=0.1) as url,
            httpx.AsyncClient(timeout=10) as client,
            client.stream("POST", url + path, json=request) as response,
        ):
            source = Watched(streamcalls.from_httpx(response))
            run = streamcalls.run_tools(source, [get_weather, read_file])
            with pytest.raises(streamcalls.StreamInterrupted):
                await consume(run, items)
    assert server.cut.is_set()
    assert moments == ["started", "finished after the cut"]
    [completed] = [item for item in items if isinstance(item, ToolCallCompleted)]
    assert items[-1] == ToolResult(completed.call.id, completed.call.name, expected)  # then the error
    assert [item.reason for item in items if isinstance(item, StreamFinished)] == ["error"]
    # The turn so far, ready for the next request: the call and its result.
    if path == "/v1/messages":
        assistant, results = plain(run.messages("anthropic"))
        assert [block["id"] for block in assistant["content"] if block["type"] == "tool_use"] == [
            completed.call.id
        ]
        assert results["content"] == [
            {"type": "tool_result", "tool_use_id": completed.call.id, "content": expected}
        ]
    else:
        assistant, result = plain(run.messages("openai"))
        assert [call["id"] for call in assistant["tool_calls"]] == [completed.call.id]
        assert result == {"role": "tool", "tool_call_id": completed.call.id, "content": expected}
