"""run_tools with from_function tools: arguments checked and converted before the call, typed
values delivered, return values encoded, timeouts, and what run_tools(tools=...) accepts."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import threading
import uuid
from collections.abc import AsyncIterator
from typing import Any

import anyio
import msgspec
import pytest

import streamcalls
from streamcalls import Tool, ToolCall, ToolResult, UsageError
from tests.support import tool_kinds as kinds
from tests.support.streams import openai_call_start, openai_finish
from tests.unit.test_tools import HangingTool

pytestmark = pytest.mark.anyio


def calls_stream(*calls: tuple[str, Any]) -> bytes:
    """One OpenAI stream with a call per (name, arguments); the ids are call_0, call_1, ..."""
    parts = [
        openai_call_start(i, f"call_{i}", name, msgspec.json.encode(arguments).decode())
        for i, (name, arguments) in enumerate(calls)
    ]
    return b"".join(parts) + openai_finish()


async def _chunks(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def results_of(tools: Any, *calls: tuple[str, Any], **options: Any) -> list[ToolResult]:
    """The results of running the calls, in call order."""
    events = streamcalls.aparse(_chunks(calls_stream(*calls)))
    async with streamcalls.run_tools(events, tools, **options) as run:
        results = [result async for result in run.results()]
    return sorted(results, key=lambda r: int(r.call_id.removeprefix("call_")))


STAMPS = {
    "at": "2025-03-01T09:30:00+01:00",
    "day": "2025-03-01",
    "clock": "09:30:00",
    "key": "4b5f6f1e-8a52-4f0e-9d4c-3f1b2a6c7d8e",
    "amount": "12.50",
}
RECORDS = {
    "where": {"lat": 48.85, "lon": 2.35},
    "window": {"start": "2025-03-01"},
    "address": {"street": "1 rue de Rivoli", "city": "Paris"},
    "span": [1, 5],
}
CHOICES = {"mode": "fast", "unit": "celsius", "either": 1, "maybe": None, "old": None}
SCALARS = {"text": "a", "count": 1, "ratio": 1.5, "flag": True, "nothing": None}

# (what is wrong, the tool, its arguments, the content of the error result)
MISTAKES = [
    ("wrong type", "constrained", {"days": "three", "code": "CDG"}, "Expected int, got str - at $.days"),
    ("float for int", "scalars", {**SCALARS, "count": 1.5}, "Expected int, got float - at $.count"),
    ("bool for int", "scalars", {**SCALARS, "count": True}, "Expected int, got bool - at $.count"),
    ("not null", "scalars", {**SCALARS, "nothing": 0}, "Expected null, got int - at $.nothing"),
    ("missing", "constrained", {"code": "CDG"}, "Object missing required field days"),
    ("unknown", "constrained", {"days": 2, "code": "CDG", "hours": 3}, "Object contains unknown field hours"),
    ("above maximum", "constrained", {"days": 9, "code": "CDG"}, "Expected int <= 7 - at $.days"),
    (
        "pattern",
        "constrained",
        {"days": 2, "code": "cdg"},
        "Expected str matching regex '^[A-Z]{3}$' - at $.code",
    ),
    ("literal", "choices", {**CHOICES, "mode": "slow"}, "Invalid enum value 'slow' - at $.mode"),
    ("enum", "choices", {**CHOICES, "unit": "kelvin"}, "Invalid enum value 'kelvin' - at $.unit"),
    ("union", "choices", {**CHOICES, "either": 1.5}, "Expected int | str, got float - at $.either"),
    ("datetime", "stamps", {**STAMPS, "at": "next tuesday"}, "Invalid RFC3339 encoded datetime - at $.at"),
    ("uuid", "stamps", {**STAMPS, "key": "nope"}, "Invalid UUID - at $.key"),
    ("decimal", "stamps", {**STAMPS, "amount": "a lot"}, "Invalid decimal string - at $.amount"),
    (
        "in a Struct",
        "records",
        {**RECORDS, "where": {"lat": "north", "lon": 1}},
        "Expected float, got str - at $.where.lat",
    ),
    (
        "in a dataclass",
        "records",
        {**RECORDS, "window": {"days": 2}},
        "Object missing required field start - at $.window",
    ),
    (
        "in a TypedDict",
        "records",
        {**RECORDS, "address": {"street": "x"}},
        "Object missing required field city - at $.address",
    ),
    (
        "NamedTuple length",
        "records",
        {**RECORDS, "span": [1]},
        "Expected array of length 2, got 1 - at $.span",
    ),
    (
        "in a list",
        "collections",
        {"items": [1, "2"], "pair": [1, "a"], "many": [], "tags": [], "scores": {}},
        "Expected int, got str - at $.items[1]",
    ),
    (
        "tuple length",
        "collections",
        {"items": [], "pair": [1, "a", 3], "many": [], "tags": [], "scores": {}},
        "Expected array of length 2, got 3 - at $.pair",
    ),
    (
        "in a dict",
        "collections",
        {"items": [], "pair": [1, "a"], "many": [], "tags": [], "scores": {"a": "high"}},
        "Expected float, got str - at $.scores[...]",
    ),
]


@pytest.mark.parametrize(
    ("tool", "arguments", "message"), [m[1:] for m in MISTAKES], ids=[m[0] for m in MISTAKES]
)
async def test_each_kind_of_mistake_is_an_error_result_and_the_function_is_not_called(
    tool: str, arguments: dict[str, Any], message: str
) -> None:
    kinds.RECEIVED.clear()
    [result] = await results_of(list(kinds.KINDS), (tool, arguments))
    assert result == ToolResult("call_0", tool, f"invalid arguments for {tool}: {message}", is_error=True)
    assert kinds.RECEIVED == []


async def test_the_issue_example() -> None:
    called: list[int] = []

    async def get_weather(city: str, days: int = 1) -> str:
        called.append(days)
        return "sunny"

    results = await results_of(
        [get_weather], ("get_weather", {"city": "Paris", "days": "three"}), ("get_weather", {"city": "Oslo"})
    )
    assert results == [
        ToolResult(
            "call_0",
            "get_weather",
            "invalid arguments for get_weather: Expected int, got str - at $.days",
            True,
        ),
        ToolResult("call_1", "get_weather", "sunny"),
    ]
    assert called == [1]  # the valid call ran, with the function's own default


# -- typed values delivered -----------------------------------------------------------------


async def test_typed_values_are_delivered() -> None:
    kinds.RECEIVED.clear()
    results = await results_of(
        list(kinds.KINDS),
        ("scalars", {"text": "é", "count": -3, "ratio": 2, "flag": False, "nothing": None}),
        (
            "collections",
            {"items": [1], "pair": [1, "a"], "many": [1.5, 2], "tags": ["x", "x"], "scores": {"a": 1}},
        ),
        ("choices", {"mode": "exact", "unit": "fahrenheit", "either": "three", "maybe": "m", "old": 4}),
        ("stamps", STAMPS),
        ("records", RECORDS),
        ("constrained", {"days": 7, "code": "NRT"}),
    )
    assert [r.content for r in results] == ["ok"] * 6
    paris = datetime.timezone(datetime.timedelta(hours=1))
    expected: list[dict[str, Any]] = [
        {"text": "é", "count": -3, "ratio": 2.0, "flag": False, "nothing": None},
        {"items": [1], "pair": (1, "a"), "many": (1.5, 2.0), "tags": {"x"}, "scores": {"a": 1.0}},
        {"mode": "exact", "unit": kinds.Unit.FAHRENHEIT, "either": "three", "maybe": "m", "old": 4},
        {
            "at": datetime.datetime(2025, 3, 1, 9, 30, tzinfo=paris),
            "day": datetime.date(2025, 3, 1),
            "clock": datetime.time(9, 30),
            "key": uuid.UUID("4b5f6f1e-8a52-4f0e-9d4c-3f1b2a6c7d8e"),
            "amount": decimal.Decimal("12.50"),
        },
        {
            "where": kinds.Location(48.85, 2.35),
            "window": kinds.Window(datetime.date(2025, 3, 1), 1),
            "address": {"street": "1 rue de Rivoli", "city": "Paris"},
            "span": kinds.Span(1, 5),
        },
        {"days": 7, "code": "NRT"},
    ]
    # Sorted by call, since the tools run concurrently; the types too, not only the values.
    received = sorted(kinds.RECEIVED, key=lambda r: [set(e) for e in expected].index(set(r)))
    assert received == expected
    for got, want in zip(received, expected, strict=True):
        assert {k: type(v) for k, v in got.items()} == {k: type(v) for k, v in want.items()}


async def test_left_out_arguments_get_the_function_defaults_and_a_tool_call_parameter_gets_the_call() -> None:
    kinds.RECEIVED.clear()
    await results_of([kinds.defaults], ("defaults", {"city": "Paris"}))
    [received] = kinds.RECEIVED
    assert received["tags"] is kinds.TAGS_DEFAULT  # the function's own default object, not a copy
    assert (received["unit"], received["days"], received["where"]) == (kinds.Unit.CELSIUS, 3, None)
    assert received["call"] == ToolCall("call_0", "defaults", {"city": "Paris"})


async def test_a_sync_function_is_checked_too_and_runs_in_a_thread() -> None:
    threads: list[bool] = []

    def add(a: int, b: int = 2) -> int:
        threads.append(threading.current_thread() is threading.main_thread())
        return a + b

    results = await results_of([add], ("add", {"a": 1}), ("add", {"a": "1"}))
    assert results == [
        ToolResult("call_0", "add", "3"),
        ToolResult("call_1", "add", "invalid arguments for add: Expected int, got str - at $.a", True),
    ]
    assert threads == [False]


# -- return values --------------------------------------------------------------------------


@dataclasses.dataclass
class Forecast:
    city: str
    at: datetime.datetime


async def test_return_values_of_any_msgspec_type_become_json_text() -> None:
    at = datetime.datetime(2025, 3, 1, 9, 30, tzinfo=datetime.timezone.utc)

    def struct() -> kinds.Location:
        return kinds.Location(1.5, 2.25)

    def dataclass() -> Forecast:
        return Forecast("Paris", at)

    def stamp() -> datetime.datetime:
        return at

    def enum() -> kinds.Unit:
        return kinds.Unit.CELSIUS

    def text() -> str:
        return '{"not": "re-encoded"}'

    def nothing() -> None:
        return None

    tools = [struct, dataclass, stamp, enum, text, nothing]
    results = await results_of(tools, *((fn.__name__, {}) for fn in tools))
    assert [r.content for r in results] == [
        '{"lat":1.5,"lon":2.25}',
        '{"city":"Paris","at":"2025-03-01T09:30:00Z"}',
        '"2025-03-01T09:30:00Z"',
        '"celsius"',
        '{"not": "re-encoded"}',
        "null",
    ]
    assert not any(r.is_error for r in results)


# -- what tools= takes ------------------------------------------------------------------------


async def test_a_mapping_of_plain_functions_keeps_calling_them_as_they_are() -> None:
    def add(a: int) -> int:
        return a

    [result] = await results_of({"add": add}, ("add", {"a": "1", "b": 2}))
    assert result.is_error
    assert "TypeError: " in result.content
    assert "unexpected keyword argument 'b'" in result.content


async def test_a_mapping_of_from_function_tools_checks_the_arguments() -> None:
    def add(a: int) -> int:
        return a

    tools = {"add": Tool.from_function(add), "plus": Tool.from_function(add, name="plus")}
    results = await results_of(tools, ("add", {"a": "1"}), ("plus", {"a": 2}))
    assert results == [
        ToolResult("call_0", "add", "invalid arguments for add: Expected int, got str - at $.a", True),
        ToolResult("call_1", "plus", "2"),
    ]


async def test_an_unknown_tool_in_a_list() -> None:
    def add(a: int) -> int:
        return a

    [result] = await results_of([add], ("sub", {"a": 1}))
    assert result == ToolResult("call_0", "sub", "unknown tool 'sub' (known: 'add')", True)


def test_tools_that_cannot_run_are_usage_errors_at_the_call() -> None:
    async def events() -> AsyncIterator[streamcalls.Event]:
        yield streamcalls.StreamFinished("stop")

    def add(a: int) -> int:
        return a

    def star(**kwargs: Any) -> None: ...

    cases: list[tuple[Any, str]] = [
        ({"add": Tool("add", "hand-written")}, "the tool 'add' has no function to run"),
        ([Tool("add")], "the tool 'add' has no function to run"),
        ({"sum": Tool.from_function(add)}, "tools['sum'] is the tool 'add': the names must match"),
        ({"add": "add"}, "tools['add'] must be a function or a Tool, not str"),
        ([add, Tool.from_function(add)], "two tools are named 'add'"),
        ([add, "add"], "a tool must be a function or a Tool, not str"),
        ("add", "tools must be a mapping {name: function} or a list of functions and Tools, not str"),
        ([star], "star cannot be a tool: **kwargs"),
    ]
    for tools, message in cases:
        with pytest.raises(UsageError) as caught:
            streamcalls.run_tools(events(), tools)
        assert str(caught.value).startswith(message), tools
    with pytest.raises(UsageError, match="timeout must be a positive number"):
        streamcalls.run_tools(events(), [add], timeout=-1)


# -- timeouts ---------------------------------------------------------------------------------


async def test_a_tool_past_its_time_is_an_error_and_the_others_go_on() -> None:
    hang = HangingTool()

    async def quick() -> str:
        return "done"

    with anyio.fail_after(10):
        results = await results_of(
            [Tool.from_function(hang, name="hang"), quick], ("hang", {}), ("quick", {}), timeout=0.05
        )
    assert results == [
        ToolResult("call_0", "hang", "tool 'hang' timed out after 0.05 s", True),
        ToolResult("call_1", "quick", "done"),
    ]
    assert hang.cancelled


async def test_a_tool_timeout_comes_before_the_run_timeout() -> None:
    async def patient() -> str:
        await anyio.sleep(0.2)
        return "waited"

    tools = [
        Tool.from_function(HangingTool(), name="hang", timeout=0.05),
        Tool.from_function(patient, timeout=30),
    ]
    with anyio.fail_after(10):
        results = await results_of(tools, ("hang", {}), ("patient", {}), timeout=0.1)
    assert results == [
        ToolResult("call_0", "hang", "tool 'hang' timed out after 0.05 s", True),
        ToolResult("call_1", "patient", "waited"),
    ]


async def test_a_sync_tool_past_its_time_is_abandoned() -> None:
    release = threading.Event()

    def block() -> str:
        release.wait(10)
        return "late"

    try:
        with anyio.fail_after(10):
            results = await results_of([block], ("block", {}), timeout=0.05)
    finally:
        release.set()
    assert results == [ToolResult("call_0", "block", "tool 'block' timed out after 0.05 s", True)]


async def test_a_timeout_error_the_tool_raises_is_its_own_error() -> None:
    async def fetch() -> str:
        raise TimeoutError("upstream took too long")

    results = await results_of([fetch], ("fetch", {}), timeout=30)
    assert results == [ToolResult("call_0", "fetch", "TimeoutError: upstream took too long", True)]
