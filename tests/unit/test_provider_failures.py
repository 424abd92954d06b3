"""Provider errors a loop can act on: ``status``, ``retry_after``, and ``raise_provider_errors=True``.

The status and the delay are read where the provider puts them: the HTTP
response (``from_httpx``: its status, ``Retry-After`` in seconds or as a date,
``retry-after-ms``), the error body (Google's ``code`` and
``RetryInfo.retryDelay``), or the status the provider documents for its error
code.  The option turns a ProviderError into ``ProviderFailure`` at every
front: the parser, ``aparse``, ``from_httpx`` (also for a refused request) and
``run_tools``; the events before it always come first.  Over real HTTP on
asyncio and trio, plus the pure functions.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
import msgspec
import pytest

import streamcalls
from streamcalls import ProviderError, StreamFinished, ToolCallCompleted, ToolCallFailed, ToolResult
from streamcalls._statuses import documented_status
from streamcalls.aio._http import retry_after_in
from streamcalls.framing._error_bodies import error_in
from streamcalls.testing import ReplayApp, load_recordings, serve
from tests.support import DATA
from tests.support.rawhttp import Connection, chunk, head, raw_server

pytestmark = pytest.mark.anyio

ANTHROPIC_MIDSTREAM = (DATA / "anthropic" / "error_midstream.sse").read_bytes()
OVERLOADED = ProviderError("Overloaded", "overloaded_error", 529)


# -- the JSON of an event ------------------------------------------------------------------------


def test_an_error_without_status_or_delay_encodes_as_before() -> None:
    assert (
        msgspec.json.encode(ProviderError("m", "c")) == b'{"type":"provider_error","message":"m","code":"c"}'
    )
    assert msgspec.json.encode(ProviderError("m", "c", 429, 1.5)) == (
        b'{"type":"provider_error","message":"m","code":"c","status":429,"retry_after":1.5}'
    )
    line = b'{"type":"provider_error","message":"m","code":null}'  # as older expected files have it
    assert msgspec.json.decode(line, type=streamcalls.Event) == ProviderError("m")


# -- what the body and the headers say -----------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after": "7"}, 7.0),
        ({"retry-after": " 2.5 "}, 2.5),
        ({"retry-after-ms": "1500", "retry-after": "7"}, 1.5),  # OpenAI's milliseconds come first
        ({"retry-after-ms": "soon", "retry-after": "7"}, 7.0),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:30 GMT"}, 30.0),  # a date: from now
        ({"retry-after": "Wed, 21 Oct 2015 07:27:00 GMT"}, 0.0),  # a date already past
        ({"retry-after": "-3"}, None),
        ({"retry-after": "nan"}, None),
        ({"retry-after": "inf"}, None),
        ({"retry-after": "tomorrow"}, None),
        ({}, None),
    ],
)
def test_retry_after_headers(headers: dict[str, str], seconds: float | None) -> None:
    now = email.utils.parsedate_to_datetime("Wed, 21 Oct 2015 07:28:00 GMT").timestamp()
    assert retry_after_in(headers.get("retry-after"), headers.get("retry-after-ms"), now) == seconds


def test_the_status_and_delay_in_error_bodies() -> None:
    gemini = msgspec.json.decode((DATA / "gemini" / "rate_limited_retry_info.json").read_bytes())
    body = error_in(gemini)
    assert body is not None
    assert (body.code, body.status, body.retry_after) == ("RESOURCE_EXHAUSTED", 429, 37.5)
    vllm = {"object": "error", "message": "too long", "type": "BadRequestError", "param": None, "code": 400}
    assert error_in(vllm) == ("too long", "400", 400, None)
    assert error_in({"error": {"message": "m", "code": True}}) == (
        "m",
        "True",
        None,
        None,
    )  # a bool is no status
    assert error_in({"error": {"message": "m", "code": 1500}}) == ("m", "1500", None, None)  # nor is 1500
    anthropic = {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}
    assert error_in(anthropic) == ("slow down", "rate_limit_error", 429, None)
    aws = {"__type": "com.amazon.coral.service#ThrottlingException", "message": "slow down"}
    assert error_in(aws) == ("slow down", "ThrottlingException", 429, None)
    odd_delay = {
        "error": {"message": "m", "details": [{"@type": "x/google.rpc.RetryInfo", "retryDelay": "1m"}]}
    }
    assert error_in(odd_delay) == ("m", None, None, None)


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("overloaded_error", 529),
        ("rate_limit_error", 429),
        ("request_too_large", 413),
        ("RESOURCE_EXHAUSTED", 429),
        ("UNAVAILABLE", 503),
        ("DEADLINE_EXCEEDED", 504),
        ("throttlingException", 429),
        ("ThrottlingException", 429),
        ("modelStreamErrorException", 424),
        ("server_error", None),  # OpenAI documents no status for its codes
        (None, None),
    ],
)
def test_documented_statuses(code: str | None, status: int | None) -> None:
    assert documented_status(code) == status


# -- from_httpx over real HTTP -------------------------------------------------------------------


def refusing(status: int, reason: str, headers: list[tuple[str, str]], body: bytes) -> Any:
    async def respond(connection: Connection) -> None:
        await connection.send(head(status, reason, headers), chunk(body), chunk(b""))

    return respond


RATE_LIMITED = (
    b'{"type": "error", "error": {"type": "rate_limit_error", "message": "Number of requests exceeded"}}'
)


@pytest.mark.parametrize(
    ("retry_after", "expected"),
    [("20", 20.0), (None, None)],
)
async def test_a_refused_request_carries_its_status_and_delay(
    retry_after: str | None, expected: float | None
) -> None:
    headers = [("content-type", "application/json")]
    if retry_after is not None:
        headers.append(("retry-after", retry_after))
    async with (
        raw_server(refusing(429, "Too Many Requests", headers, RATE_LIMITED)) as url,
        httpx.AsyncClient() as client,
        client.stream("POST", url, json={}) as response,
    ):
        events = [e async for e in streamcalls.from_httpx(response)]
    assert events == [
        ProviderError(
            "HTTP 429 Too Many Requests: Number of requests exceeded", "rate_limit_error", 429, expected
        ),
        StreamFinished("error", provider_reason="HTTP 429 Too Many Requests"),
    ]


async def test_a_retry_date_counts_from_now() -> None:
    later = email.utils.formatdate(time.time() + 120, usegmt=True)
    headers = [("content-type", "application/json"), ("retry-after", later)]
    async with (
        raw_server(refusing(503, "Service Unavailable", headers, b'{"error": {"message": "down"}}')) as url,
        httpx.AsyncClient() as client,
        client.stream("POST", url, json={}) as response,
    ):
        [error, _] = [e async for e in streamcalls.from_httpx(response)]
    assert isinstance(error, ProviderError)
    assert error.status == 503
    assert error.retry_after is not None
    assert 60 < error.retry_after <= 120  # whole seconds in the date; the rest is how long the test took


async def test_a_body_delay_reaches_from_httpx() -> None:
    body = (DATA / "gemini" / "rate_limited_retry_info.json").read_bytes()
    async with (
        raw_server(refusing(429, "Too Many Requests", [("content-type", "application/json")], body)) as url,
        httpx.AsyncClient() as client,
        client.stream("POST", url, json={}) as response,
    ):
        [error, _] = [e async for e in streamcalls.from_httpx(response)]
    assert isinstance(error, ProviderError)
    assert (error.code, error.status, error.retry_after) == ("RESOURCE_EXHAUSTED", 429, 37.5)


async def test_raise_provider_errors_for_a_refused_request() -> None:
    headers = [("content-type", "application/json"), ("retry-after", "20")]
    async with (
        raw_server(refusing(429, "Too Many Requests", headers, RATE_LIMITED)) as url,
        httpx.AsyncClient() as client,
        client.stream("POST", url, json={}) as response,
    ):
        events = streamcalls.from_httpx(response, raise_provider_errors=True)
        with pytest.raises(streamcalls.ProviderFailure) as info:
            await events.__anext__()
        assert response.is_closed
    assert (info.value.status, info.value.retry_after) == (429, 20.0)
    assert str(info.value) == (
        "the provider reported an error (HTTP 429): HTTP 429 Too Many Requests: Number of requests exceeded"
    )


async def test_raise_provider_errors_mid_stream_over_http() -> None:
    async def respond(connection: Connection) -> None:
        await connection.send(
            head(headers=[("content-type", "text/event-stream")]), chunk(ANTHROPIC_MIDSTREAM)
        )
        await connection.send(chunk(b""))

    async with (
        raw_server(respond) as url,
        httpx.AsyncClient() as client,
        client.stream("POST", url, json={}) as response,
    ):
        events: list[streamcalls.Event] = []
        failure = None
        try:
            async for event in streamcalls.from_httpx(response, raise_provider_errors=True):
                events.append(event)
        except streamcalls.ProviderFailure as exc:
            failure = exc
    assert failure is not None
    assert failure.error == OVERLOADED
    # Every event before it, the call the error cut off included; none after it.
    assert [type(e) for e in events[-2:]] == [streamcalls.ToolCallDelta, ToolCallFailed]
    assert events[-len(failure.events) :] == failure.events  # what the same feed gave before it: yielded


# -- the parser, aparse, run_tools ----------------------------------------------------------------


def test_the_parser_raises_with_the_events_before() -> None:
    parser = streamcalls.StreamParser("anthropic", raise_provider_errors=True)
    with pytest.raises(streamcalls.ProviderFailure) as info:
        parser.feed(ANTHROPIC_MIDSTREAM)
    assert info.value.error == OVERLOADED
    assert [type(e) for e in info.value.events][-1] is ToolCallFailed
    assert streamcalls.parse(ANTHROPIC_MIDSTREAM)[: len(info.value.events) + 1] == [
        *info.value.events,
        OVERLOADED,
    ]


def test_the_sync_iteration_yields_the_events_before() -> None:
    chunks = [ANTHROPIC_MIDSTREAM[i : i + 40] for i in range(0, len(ANTHROPIC_MIDSTREAM), 40)]
    events: list[streamcalls.Event] = []
    with pytest.raises(streamcalls.ProviderFailure):
        events.extend(streamcalls.parse_iter(chunks, raise_provider_errors=True))
    assert streamcalls.parse(ANTHROPIC_MIDSTREAM)[: len(events) + 1] == [*events, OVERLOADED]


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_the_option_takes_a_bool(value: object) -> None:
    message = f"raise_provider_errors must be True or False, not {value!r}"
    with pytest.raises(streamcalls.UsageError) as info:
        streamcalls.StreamParser(raise_provider_errors=value)  # type: ignore[arg-type]
    assert str(info.value) == message

    async def nothing() -> AsyncIterator[streamcalls.Event]:
        return
        yield

    with pytest.raises(streamcalls.UsageError) as info:
        streamcalls.run_tools(nothing(), tools={}, raise_provider_errors=value)  # type: ignore[call-overload]
    assert str(info.value) == message


async def test_aparse_yields_the_events_before_then_raises() -> None:
    async def source() -> AsyncIterator[bytes]:
        yield ANTHROPIC_MIDSTREAM

    events: list[streamcalls.Event] = []
    failure = None
    try:
        async for event in streamcalls.aparse(source(), raise_provider_errors=True):
            events.append(event)
    except streamcalls.ProviderFailure as exc:
        failure = exc
    assert failure is not None
    assert failure.error == OVERLOADED
    assert streamcalls.parse(ANTHROPIC_MIDSTREAM)[: len(events) + 1] == [*events, OVERLOADED]


async def test_run_tools_finishes_the_tools_then_raises() -> None:
    """The completed call's tool runs to its end and its result comes; then the failure, not the event."""
    ran = anyio.Event()

    async def get_time(tz: str) -> str:
        await anyio.sleep(0.01)
        ran.set()
        return "12:00"

    async def source() -> AsyncIterator[bytes]:
        yield ANTHROPIC_MIDSTREAM

    items: list[Any] = []
    run = streamcalls.run_tools(
        streamcalls.aparse(source(), "anthropic"), tools={"get_time": get_time}, raise_provider_errors=True
    )
    failure = None
    try:
        async with run:
            async for item in run:
                items.append(item)
    except streamcalls.ProviderFailure as exc:
        failure = exc
    assert ran.is_set()
    assert failure is not None
    assert failure.error == OVERLOADED
    assert not any(isinstance(item, ProviderError) for item in items)
    assert [r.content for r in items if isinstance(r, ToolResult)] == ["12:00"]
    assert [type(i) for i in items if isinstance(i, ToolCallCompleted | ToolCallFailed)] == [
        ToolCallCompleted,
        ToolCallFailed,
    ]
    assert [call.name for call in run.calls] == ["get_time", "get_time"]  # the turn is still there to send


async def test_the_replay_servers_errors_carry_their_status() -> None:
    """The replay server's refusals, as each provider answers: the status is the response's."""
    async with (
        serve(ReplayApp(load_recordings(DATA)), graceful_timeout=0.1) as url,
        httpx.AsyncClient() as client,
    ):
        request = {"model": "http-429", "messages": [], "stream": True, "max_tokens": 10}
        async with client.stream("POST", f"{url}/v1/messages", json=request) as response:
            [error, _] = [e async for e in streamcalls.from_httpx(response)]
    assert isinstance(error, ProviderError)
    assert error.status == 429


async def test_the_sync_twin_raises_for_a_refused_request_too() -> None:
    headers = [("content-type", "application/json"), ("retry-after", "20")]
    async with raw_server(refusing(429, "Too Many Requests", headers, RATE_LIMITED)) as url:

        def fetch() -> BaseException | None:
            with httpx.Client() as client, client.stream("POST", url, json={}) as response:
                try:
                    list(streamcalls.from_httpx_sync(response, raise_provider_errors=True))
                except streamcalls.ProviderFailure as exc:
                    return exc
            return None

        failure = await anyio.to_thread.run_sync(fetch)
    assert isinstance(failure, streamcalls.ProviderFailure)
    assert (failure.status, failure.retry_after) == (429, 20.0)
