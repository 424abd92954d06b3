"""run_tools: tools start as their calls complete; results, errors, limits, cancellation."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

import streamcalls
from streamcalls import (
    StreamFinished,
    TextDelta,
    ToolCallCompleted,
    ToolCallStarted,
    ToolResult,
)
from tests.support import DATA, counter_ids
from tests.support.streams import (
    OPENAI_DONE,
    openai_args,
    openai_call_start,
    openai_chunk,
    openai_finish,
)

pytestmark = pytest.mark.anyio

PARALLEL = (DATA / "openai" / "parallel_calls.sse").read_bytes()


class Gate:
    """An async source of SSE events whose reading the test releases step by step."""

    def __init__(self, parts: list[bytes]) -> None:
        self.parts = parts
        self.sent = 0
        self.closed = False
        self.allowed = 0
        self._more = anyio.Event()

    def allow(self, count: int) -> None:
        self.allowed = count
        self._more.set()

    async def chunks(self) -> AsyncIterator[bytes]:
        try:
            for part in self.parts:
                while self.sent >= self.allowed:
                    await self._more.wait()
                    self._more = anyio.Event()
                self.sent += 1
                yield part
        finally:
            self.closed = True


async def source_of(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        await anyio.sleep(0)
        yield part


def events_of(*parts: bytes) -> AsyncIterator[streamcalls.Event]:
    return streamcalls.aparse(source_of(*parts), id_factory=counter_ids())


TWO_CALLS = (
    openai_chunk({"content": "Let me look."}),
    openai_call_start(0, "call_a", "add", '{"a": 1, "b": 2}'),
    openai_call_start(1, "call_b", "echo", '{"text": "hi"}'),
    openai_finish(),
)


class HangingTool:
    """A tool that runs until it is cancelled, and records both."""

    def __init__(self) -> None:
        self.started = anyio.Event()
        self.cancelled = False

    async def __call__(self) -> str:
        self.started.set()
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            self.cancelled = True
            raise
        return "never"


async def collect(run: streamcalls.ToolRun) -> list[Any]:
    return [item async for item in run]


async def test_results_follow_their_calls_and_carry_the_return_values() -> None:
    async def add(a: int, b: int) -> int:
        return a + b

    def echo(text: str) -> dict[str, str]:  # sync: runs in a worker thread
        assert threading.current_thread() is not threading.main_thread()
        return {"echo": text}

    async with streamcalls.run_tools(events_of(*TWO_CALLS), tools={"add": add, "echo": echo}) as run:
        items = await collect(run)
    results = [i for i in items if isinstance(i, ToolResult)]
    assert sorted(results, key=lambda r: r.call_id) == [
        ToolResult("call_a", "add", "3"),
        ToolResult("call_b", "echo", '{"echo":"hi"}'),
    ]
    events = [i for i in items if not isinstance(i, ToolResult)]
    assert events == [e async for e in events_of(*TWO_CALLS)]  # every event, in stream order
    for result in results:  # each result comes after its call's ToolCallCompleted
        completed = next(
            n for n, i in enumerate(items) if isinstance(i, ToolCallCompleted) and i.call.id == result.call_id
        )
        assert items.index(result) > completed
    assert isinstance(items[0], streamcalls.StreamStarted)
    assert isinstance(items[1], TextDelta)


async def test_results_come_in_completion_order() -> None:
    """The first call's tool is still running when the second's finishes: its result comes second."""
    fast_seen = anyio.Event()

    async def slow(**_: Any) -> str:
        await fast_seen.wait()
        return "slow"

    async def fast(**_: Any) -> str:
        return "fast"

    results = []
    async with streamcalls.run_tools(events_of(*TWO_CALLS), tools={"add": slow, "echo": fast}) as run:
        async for result in run.results():
            results.append(result)
            if result.content == "fast":
                fast_seen.set()
    assert results == [ToolResult("call_b", "echo", "fast"), ToolResult("call_a", "add", "slow")]


async def test_a_tool_that_raises_and_an_unknown_tool_give_error_results() -> None:
    async def add(a: int, b: int) -> int:
        raise ValueError(f"cannot add {a} and {b}")

    async with streamcalls.run_tools(events_of(*TWO_CALLS), tools={"add": add}) as run:
        results = sorted([r async for r in run.results()], key=lambda r: r.call_id)
    assert results == [
        ToolResult("call_a", "add", "ValueError: cannot add 1 and 2", is_error=True),
        ToolResult("call_b", "echo", "unknown tool 'echo' (known: 'add')", is_error=True),
    ]


async def test_wrong_arguments_and_unencodable_values_are_error_results() -> None:
    def add(a: int) -> object:  # the call also passes b
        return a

    async def echo(text: str) -> object:
        return object()

    async with streamcalls.run_tools(events_of(*TWO_CALLS), tools={"add": add, "echo": echo}) as run:
        results = {r.call_id: r async for r in run.results()}
    assert results["call_a"].is_error
    assert results["call_a"].content.startswith("TypeError: ")
    assert "unexpected keyword argument 'b'" in results["call_a"].content
    assert results["call_b"] == ToolResult(
        "call_b",
        "echo",
        "tool 'echo' returned a value that cannot be JSON-encoded: "
        "TypeError: Encoding objects of type object is unsupported",
        is_error=True,
    )


async def test_a_tool_starts_before_the_stream_goes_on() -> None:
    """The first tool runs to its end while the source is held after the first call."""
    parts = [
        openai_call_start(0, "call_a", "add", '{"a": 1, "b": 2}'),
        openai_call_start(1, "call_b", "echo", '{"text": "hi"}'),
        openai_finish(),
    ]
    gate = Gate(parts)
    gate.allow(1)  # call_a's arguments close in the first event; then the source waits
    seen_by_tool: list[int] = []

    async def add(a: int, b: int) -> int:
        seen_by_tool.append(gate.sent)
        return a + b

    async def echo(text: str) -> str:
        return text

    items: list[Any] = []
    async with streamcalls.run_tools(
        streamcalls.aparse(gate.chunks()), tools={"add": add, "echo": echo}
    ) as run:
        async for item in run:
            items.append(item)
            if isinstance(item, ToolResult) and item.call_id == "call_a":
                assert gate.sent == 1  # nothing more was read while the tool ran
                gate.allow(3)
    assert seen_by_tool == [1]
    names = [type(i).__name__ for i in items]
    assert names[:6] == [
        "StreamStarted",
        "ToolCallStarted",
        "ToolCallDelta",
        "ToolCallCompleted",
        "ToolResult",
        "ToolCallStarted",
    ]
    assert items[4] == ToolResult("call_a", "add", "3")
    assert ToolResult("call_b", "echo", "hi") in items


async def test_concurrency_is_limited() -> None:
    calls = b"".join(openai_call_start(i, f"call_{i}", "work", "{}") for i in range(5)) + openai_finish()
    running = 0
    peak = 0
    release = anyio.Event()

    async def work() -> str:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await release.wait()
        running -= 1
        return "done"

    results = []
    async with streamcalls.run_tools(events_of(calls), tools={"work": work}, max_concurrency=2) as run:
        async for item in run:
            if isinstance(item, StreamFinished):  # every call has completed; two tools hold the slots
                release.set()
            elif isinstance(item, ToolResult):
                results.append(item)
    assert peak == 2
    assert sorted(r.call_id for r in results) == [f"call_{i}" for i in range(5)]
    assert {r.content for r in results} == {"done"}


async def test_breaking_out_cancels_running_tools_and_closes_the_source() -> None:
    parts = [
        openai_call_start(0, "call_a", "hang", "{}"),
        openai_call_start(1, "call_b", "hang", "{}"),
        openai_finish(),
    ]
    gate = Gate(parts)
    gate.allow(1)  # then the source blocks
    hang = HangingTool()

    with anyio.fail_after(5):  # it did not hang
        async with streamcalls.run_tools(streamcalls.aparse(gate.chunks()), tools={"hang": hang}) as run:
            async for item in run:
                if isinstance(item, ToolCallCompleted):
                    await hang.started.wait()
                    break
    assert hang.cancelled
    assert gate.closed
    assert gate.sent == 1


async def test_a_bare_async_for_runs_the_tools_too() -> None:
    async def add(a: int, b: int) -> int:
        return a + b

    items = [item async for item in streamcalls.run_tools(events_of(*TWO_CALLS), tools={"add": add})]
    results = {i.call_id: i for i in items if isinstance(i, ToolResult)}
    assert results["call_a"] == ToolResult("call_a", "add", "3")
    assert results["call_b"].is_error  # "echo" is not a tool here
    assert [i for i in items if not isinstance(i, ToolResult)] == [e async for e in events_of(*TWO_CALLS)]


async def test_a_bare_loop_left_early_under_aclosing_cancels_tools_and_closes_the_source() -> None:
    parts = [openai_call_start(0, "call_a", "hang", "{}"), openai_finish()]
    gate = Gate(parts)
    gate.allow(1)  # then the source blocks
    hang = HangingTool()

    with anyio.fail_after(5):  # it did not hang
        run = streamcalls.run_tools(streamcalls.aparse(gate.chunks()), tools={"hang": hang})
        async with contextlib.aclosing(run):
            async for item in run:
                if isinstance(item, ToolCallCompleted):
                    await hang.started.wait()
                    break
    assert hang.cancelled
    assert gate.closed


async def test_cancelling_the_enclosing_scope_cancels_tools_and_closes_the_source() -> None:
    gate = Gate([openai_call_start(0, "call_a", "hang", "{}"), openai_call_start(1, "b", "x", "{}")])
    gate.allow(2)
    hang = HangingTool()

    def hang_sync() -> str:  # a sync tool: its thread is abandoned on cancellation
        threading.Event().wait(0.2)
        return "late"

    with anyio.fail_after(5):
        with anyio.CancelScope() as scope:
            async with streamcalls.run_tools(
                streamcalls.aparse(gate.chunks()), tools={"hang": hang, "x": hang_sync}
            ) as run:
                async for item in run:
                    if isinstance(item, ToolCallStarted) and item.id == "b":
                        await hang.started.wait()
                        scope.cancel()
    assert scope.cancelled_caught
    assert hang.cancelled
    assert gate.closed


async def test_a_broken_source_fails_the_open_call_and_raises_stream_interrupted() -> None:
    async def failing() -> AsyncIterator[bytes]:
        yield openai_call_start(0, "call_a", "add", '{"a": 1, "b": 2}')
        yield openai_call_start(1, "call_b", "add", "{")
        raise ConnectionResetError("peer went away")

    async def add(a: int, b: int) -> int:
        return a + b

    items: list[Any] = []

    async def consume() -> None:
        async with streamcalls.run_tools(streamcalls.aparse(failing()), tools={"add": add}) as run:
            async for item in run:
                items.append(item)

    with pytest.raises(streamcalls.StreamInterrupted, match="peer went away") as info:
        await consume()
    assert isinstance(info.value.__cause__, ConnectionResetError)
    assert any(isinstance(i, ToolCallCompleted) for i in items)  # call_a completed and ran
    assert [i.name for i in items if isinstance(i, streamcalls.ToolCallFailed)] == [
        "add"
    ]  # call_b was cut off


async def test_an_error_in_the_block_is_not_wrapped() -> None:
    async def consume() -> None:
        async with streamcalls.run_tools(events_of(*TWO_CALLS), tools={}) as run:
            async for _ in run:
                raise KeyError("mine")

    with pytest.raises(KeyError, match="mine") as caught:
        await consume()
    assert type(caught.value) is KeyError


async def test_misuse_is_reported() -> None:
    run = streamcalls.run_tools(events_of(OPENAI_DONE), tools={})
    with pytest.raises(streamcalls.UsageError, match="iterate a ToolRun with async for"):
        await run.__anext__()
    with pytest.raises(streamcalls.UsageError, match="async iterable"):
        streamcalls.run_tools([], tools={})  # type: ignore[call-overload]
    with pytest.raises(streamcalls.UsageError, match="max_concurrency"):
        streamcalls.run_tools(events_of(OPENAI_DONE), tools={}, max_concurrency=0)
    async with run:
        assert [i async for i in run] == [StreamFinished("stop", provider_reason=None)]
    with pytest.raises(streamcalls.UsageError, match="entered once"):
        async with run:
            pass


async def test_no_arguments_and_a_callable_object() -> None:
    class Clock:
        async def __call__(self) -> str:
            return "12:00"

    parts = [openai_call_start(0, "call_t", "clock", ""), openai_args(0, ""), openai_finish()]
    async with streamcalls.run_tools(events_of(*parts), tools={"clock": Clock()}) as run:
        assert [r async for r in run.results()] == [ToolResult("call_t", "clock", "12:00")]


def test_tool_result_encoding() -> None:
    from streamcalls._results import error_result, tool_result

    assert tool_result("c", "n", "plain") == ToolResult("c", "n", "plain")
    assert tool_result("c", "n", None) == ToolResult("c", "n", "null")
    assert tool_result("c", "n", {"é": [1, 2.5]}) == ToolResult("c", "n", '{"é":[1,2.5]}')
    assert error_result("c", "n", RuntimeError()) == ToolResult("c", "n", "RuntimeError", True)
    assert ToolResult("c", "n", "x") == ToolResult(call_id="c", name="n", content="x", is_error=False)
