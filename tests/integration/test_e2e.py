"""End to end over real sockets: the replay server on 127.0.0.1, httpx and the official SDKs.

Every test runs on asyncio and on trio.  The server cuts each response at
random points and pauses at random between pieces; the events must be the
recording's expected events all the same.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anthropic
import anyio
import httpx
import openai
import pytest

import streamcalls
from streamcalls import (
    ProviderError,
    StreamFinished,
    StreamParser,
    ToolCallCompleted,
    ToolCallStarted,
    ToolResult,
)
from streamcalls.testing import ReplayApp, load_recordings, serve
from tests.support import DATA, Case, corpus, counter_ids, normalize

pytestmark = pytest.mark.anyio

RECORDINGS = load_recordings(DATA)
MESSAGES: Any = [{"role": "user", "content": "What's the weather in Paris and Tokyo?"}]


@asynccontextmanager
async def replay(seed: int = 7, **options: Any) -> AsyncIterator[tuple[ReplayApp, str]]:
    options.setdefault("max_chunk", 48)
    options.setdefault("max_delay", 0.001)
    app = ReplayApp(RECORDINGS, seed=seed, **options)
    async with serve(app, graceful_timeout=0.1) as url:
        yield app, url


def http_client() -> httpx.AsyncClient:
    return httpx.AsyncClient(timeout=10, verify=False)


def expected(key: str) -> list[streamcalls.Event]:
    provider, name = key.split("/")
    return Case(DATA / provider / f"{name}.sse", provider).expected()


def events_until_first_call(key: str) -> int:
    """How many SSE events of a recording it takes to complete its first call."""
    parser = StreamParser()
    body = RECORDINGS[key].body
    start = 0
    for count, end in enumerate(RECORDINGS[key].event_ends(), 1):
        if any(isinstance(e, ToolCallCompleted) for e in parser.feed(body[start:end])):
            return count
        start = end
    raise AssertionError(f"{key} has no call")


async def test_every_recording_over_http_gives_its_expected_events() -> None:
    cases = corpus()
    assert len(cases) >= 20
    async with replay(max_delay=0.0) as (_, url), http_client() as client:  # random cuts, no pauses
        for case in cases:
            if case.path.suffix == ".html":
                continue  # a proxy's page, not a provider's body: see test_documents.py
            key = f"{case.provider}/{case.path.stem}"
            async with client.stream("GET", f"{url}/replay/{key}") as response:
                assert response.headers["x-replay-recording"] == key
                events = [
                    e
                    async for e in streamcalls.from_httpx(
                        response, id_factory=counter_ids(), **case.options()
                    )
                ]
            assert normalize(events) == normalize(case.expected()), key


@pytest.mark.parametrize(
    ("path", "key"),
    [("/v1/chat/completions", "openai/parallel_calls"), ("/v1/messages", "anthropic/parallel_calls")],
)
async def test_tools_run_before_the_stream_ends(path: str, key: str) -> None:
    """The server holds the stream after the first call's end; that call's tool runs and finishes
    before the server sends one more byte, and the test only then lets it go on."""
    first_call = events_until_first_call(key)
    async with replay() as (app, url):
        hold = app.hold(after_events=first_call)
        ran: list[tuple[str, bool]] = []  # (moment, had the server sent the rest?)

        async def tool(**arguments: Any) -> dict[str, Any]:
            ran.append(("start", hold.resumed))
            await anyio.sleep(0)
            ran.append(("end", hold.resumed))
            return arguments

        tools = {"get_weather": tool, "get_time": tool, "read_file": tool, "list_dir": tool}
        request = {"model": key.split("/")[1], "stream": True, "max_tokens": 100, "messages": MESSAGES}
        items: list[Any] = []
        async with (
            http_client() as client,
            client.stream("POST", url + path, json=request) as response,
            streamcalls.run_tools(streamcalls.from_httpx(response), tools=tools) as run,
        ):
            async for item in run:
                items.append(item)
                if isinstance(item, ToolResult) and not hold.resumed:
                    await hold.reached.wait()  # the server holds the rest until released
                    hold.release()
        assert ran[:2] == [("start", False), ("end", False)]
        first_result = next(i for i, item in enumerate(items) if isinstance(item, ToolResult))
        later_call = next(
            i for i, item in enumerate(items) if isinstance(item, ToolCallStarted) and item.index == 1
        )
        assert first_result < later_call
        calls = [i.call for i in items if isinstance(i, ToolCallCompleted)]
        results = {r.call_id: r for r in items if isinstance(r, ToolResult)}
        assert sorted(results) == sorted(c.id for c in calls)
        assert results[calls[0].id] == ToolResult(calls[0].id, calls[0].name, calls[0].arguments_json)
        assert normalize([i for i in items if not isinstance(i, ToolResult)]) == normalize(expected(key))
        assert app.requests == [request]


async def test_breaking_out_closes_the_connection() -> None:
    async with replay() as (app, url):
        hold = app.hold(after_events=events_until_first_call("openai/parallel_calls"))
        request = {"model": "parallel_calls", "stream": True, "messages": MESSAGES}
        cancelled = anyio.Event()

        async def hang(**_: Any) -> str:
            try:
                await anyio.sleep_forever()
            finally:
                cancelled.set()
            return "never"

        async with (
            http_client() as client,
            client.stream("POST", f"{url}/v1/chat/completions", json=request) as r,
        ):
            async with streamcalls.run_tools(streamcalls.from_httpx(r), tools={"get_weather": hang}) as run:
                async for item in run:
                    if isinstance(item, ToolCallCompleted):
                        await hold.reached.wait()
                        break
            assert cancelled.is_set()
            assert r.is_closed
        with anyio.fail_after(5):  # the server notices the client left, while it still held the stream
            while not hold.disconnected:
                await anyio.sleep(0.005)
        assert not hold.resumed
        assert app.disconnects == 1


@pytest.mark.parametrize(
    ("path", "model", "message", "code"),
    [
        (
            "/v1/chat/completions",
            "http-401",
            "HTTP 401 Unauthorized: simulated error 401",
            "authentication_error",
        ),
        ("/v1/messages", "http-529", "HTTP 529: simulated error 529", "api_error"),
        ("/v1/chat/completions", "html-502", "HTTP 502 Bad Gateway: 502 Bad Gateway", "502"),
    ],
)
async def test_http_errors_become_provider_errors(path: str, model: str, message: str, code: str) -> None:
    request: dict[str, Any] = {"model": model, "messages": MESSAGES, "stream": True}
    async with (
        replay() as (_, url),
        http_client() as client,
        client.stream("POST", url + path, json=request) as response,
    ):
        events = [e async for e in streamcalls.from_httpx(response)]
    assert events == [
        ProviderError(
            message, code, int(model.split("-")[1])
        ),  # the response's status, whatever the code says
        StreamFinished("error", provider_reason=message.split(":", maxsplit=1)[0]),
    ]


async def test_sync_httpx_client_in_a_thread() -> None:
    async with replay() as (_, url):

        def fetch() -> list[streamcalls.Event]:
            with httpx.Client(timeout=10) as client:
                request = {"model": "parallel_calls", "stream": True, "messages": MESSAGES}
                with client.stream("POST", f"{url}/v1/chat/completions", json=request) as response:
                    return list(streamcalls.from_httpx_sync(response))

        events = await anyio.to_thread.run_sync(fetch)
    assert normalize(events) == normalize(expected("openai/parallel_calls"))


# -- the official SDKs, pointed at the replay server ------------------------------------------


async def test_openai_sdk_async_stream() -> None:
    async with replay() as (app, url):
        client = openai.AsyncOpenAI(base_url=f"{url}/v1", api_key="sk-test", max_retries=0)
        async with client:
            stream = await client.chat.completions.create(
                model="parallel_calls", messages=MESSAGES, stream=True
            )
            async with streamcalls.run_tools(
                streamcalls.from_openai_stream(stream), tools={"get_weather": _city, "get_time": _now}
            ) as run:
                items = [item async for item in run]
    events = [i for i in items if not isinstance(i, ToolResult)]
    assert normalize(events) == normalize(expected("openai/parallel_calls"))
    assert sorted((r.call_id, r.content) for r in items if isinstance(r, ToolResult)) == [
        ("call_paris", "weather in Paris"),
        ("call_time", "12:00"),
        ("call_tokyo", "weather in Tokyo"),
    ]
    assert app.requests[0]["stream"] is True


async def test_openai_sdk_chat_completion_stream_helper() -> None:
    async with replay() as (_, url):
        client = openai.AsyncOpenAI(base_url=f"{url}/v1", api_key="sk-test", max_retries=0)
        async with client, client.chat.completions.stream(model="one_call", messages=MESSAGES) as stream:
            events = [e async for e in streamcalls.from_openai_stream(stream)]
    assert normalize(events) == normalize(expected("openai/one_call"))


async def test_openai_sdk_sync_stream_in_a_thread() -> None:
    async with replay() as (_, url):

        def fetch() -> list[streamcalls.Event]:
            with openai.OpenAI(base_url=f"{url}/v1", api_key="sk-test", max_retries=0) as client:
                stream = client.chat.completions.create(
                    model="parallel_calls", messages=MESSAGES, stream=True
                )
                return list(streamcalls.from_openai_stream(stream))

        events = await anyio.to_thread.run_sync(fetch)
    assert normalize(events) == normalize(expected("openai/parallel_calls"))


@pytest.mark.parametrize("name", ["parallel_calls", "thinking_then_call"])
async def test_anthropic_sdk_raw_stream(name: str) -> None:
    async with replay() as (_, url):
        client = anthropic.AsyncAnthropic(base_url=url, api_key="sk-test", max_retries=0)
        async with client:
            stream = await client.messages.create(model=name, max_tokens=100, messages=MESSAGES, stream=True)
            events = [e async for e in streamcalls.from_anthropic_stream(stream)]
    assert normalize(events) == normalize(expected(f"anthropic/{name}"))


async def test_anthropic_sdk_message_stream_helper() -> None:
    async with replay() as (app, url):
        client = anthropic.AsyncAnthropic(base_url=url, api_key="sk-test", max_retries=0)
        async with (
            client,
            client.messages.stream(model="thinking_then_call", max_tokens=100, messages=MESSAGES) as stream,
            streamcalls.run_tools(streamcalls.from_anthropic_stream(stream), tools={}) as run,
        ):
            items = [item async for item in run]
    events = [i for i in items if not isinstance(i, ToolResult)]
    assert normalize(events) == normalize(expected("anthropic/thinking_then_call"))
    [result] = [i for i in items if isinstance(i, ToolResult)]
    assert result.is_error
    assert result.content.startswith("unknown tool")
    assert app.requests[0]["stream"] is True


async def _city(city: str, **_: Any) -> str:
    return f"weather in {city}"


def _now() -> str:
    return "12:00"
