"""The SDK fronts keep every front's contract, through the official SDKs over real HTTP, on asyncio and trio.

- Faults (issue 22, item 7): a connection that drops mid-call ends the events
  as ``aparse`` ends them -- the open call fails, ``StreamFinished("error")``
  -- then ``StreamInterrupted`` from the SDK's own error; ``run.messages``
  keeps the cut-off call, exactly as over ``aparse``.  An error event the SDK
  raises as its ``APIError`` is the ``ProviderError`` ``from_httpx`` gives.
- Misuse (item 6): a complete response, an un-awaited coroutine, a stream
  manager not entered: a ``UsageError`` saying what to do.
- The Responses stream helper (item 8): no pydantic serializer warnings.

The oracles are the recordings' reviewed events, ``aparse`` over the same
bytes, and the SDKs themselves (which error they raise).
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anthropic
import anyio
import openai
import pytest

import streamcalls
from streamcalls import ProviderError, StreamFinished, ToolCallFailed, ToolResult
from streamcalls.testing import ReplayApp, load_recordings, serve
from tests.support import DATA, Case, normalize
from tests.support.rawhttp import Connection, chunk, head, raw_server

pytestmark = pytest.mark.anyio

RECORDINGS = load_recordings(DATA)
MESSAGES: Any = [{"role": "user", "content": "What's the weather in Paris?"}]
SSE = [("content-type", "text/event-stream")]


def expected(key: str) -> list[streamcalls.Event]:
    provider, name = key.split("/")
    return Case(DATA / provider / f"{name}.sse", provider).expected()


@asynccontextmanager
async def replay() -> AsyncIterator[str]:
    async with serve(ReplayApp(RECORDINGS, seed=3, max_chunk=48), graceful_timeout=0.1) as url:
        yield url


# The first bytes of each recording, cut inside its call's arguments: then the connection drops.
CUTS = {
    "openai": (DATA / "openai" / "one_call.sse").read_bytes(),
    "anthropic": (DATA / "anthropic" / "one_call.sse").read_bytes(),
}


def cut_body(provider: str) -> bytes:
    """Up to the end of the first event that carries a piece of the call's arguments."""
    body = CUTS[provider]
    marker = b'"arguments":"' if provider == "openai" else b'"partial_json":"'
    return body[: body.index(b"\n\n", body.index(marker)) + 2]


async def collect(events: Any) -> tuple[list[streamcalls.Event], BaseException | None]:
    """The events, and the exception that ended them (None: they ended)."""
    got: list[streamcalls.Event] = []
    try:
        async for event in events:
            got.append(event)
    except Exception as exc:
        return got, exc
    return got, None


async def run_out(run: streamcalls.ToolRun) -> BaseException | None:
    """Iterate a run of tools to its end; the exception it raised, if any."""
    try:
        async with run:
            async for _ in run:
                pass
    except Exception as exc:
        return exc
    return None


@asynccontextmanager
async def dropping(provider: str) -> AsyncIterator[str]:
    """A server that sends the start of a recording, then drops the connection (no final chunk)."""

    async def respond(connection: Connection) -> None:
        await connection.send(head(headers=SSE), chunk(cut_body(provider)))
        await anyio.sleep(0.05)

    async with raw_server(respond) as url:
        yield url


def sdk_client(provider: str, url: str) -> Any:
    """The SDK's async client (``async with`` it: it closes its connections)."""
    if provider == "openai":
        return openai.AsyncOpenAI(base_url=url, api_key="sk-test", max_retries=0)
    return anthropic.AsyncAnthropic(base_url=url, api_key="sk-test", max_retries=0)


async def sdk_stream(provider: str, client: Any, model: str = "m") -> Any:
    if provider == "openai":
        return await client.chat.completions.create(model=model, messages=MESSAGES, stream=True)
    return await client.messages.create(model=model, max_tokens=100, messages=MESSAGES, stream=True)


def front(provider: str, stream: Any, **options: Any) -> Any:
    if provider == "openai":
        return streamcalls.from_openai_stream(stream, **options)
    return streamcalls.from_anthropic_stream(stream, **options)


async def sdk_error_alone(provider: str) -> type[BaseException]:
    """The exception the SDK itself raises, iterated alone, when the connection drops."""
    async with dropping(provider) as url, sdk_client(provider, url) as client:
        stream = await sdk_stream(provider, client)
        with pytest.raises(Exception) as info:  # noqa: PT011 - whatever the SDK raises is the oracle
            async for _ in stream:
                pass
    return type(info.value)


# -- faults ----------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_a_dropped_connection_ends_as_aparse_ends_it(provider: str) -> None:
    async with dropping(provider) as url, sdk_client(provider, url) as client:
        stream = await sdk_stream(provider, client)
        events, error = await collect(front(provider, stream))
    assert isinstance(error, streamcalls.StreamInterrupted)
    assert str(error).startswith("the stream broke off before its end")
    assert type(error.__cause__) is await sdk_error_alone(provider)

    async def cut() -> AsyncIterator[bytes]:
        yield cut_body(provider)
        raise ConnectionResetError("dropped")

    same, error = await collect(streamcalls.aparse(cut(), "openai" if provider == "openai" else "anthropic"))
    assert isinstance(error, streamcalls.StreamInterrupted)
    assert normalize(events) == normalize(same)
    assert [type(e) for e in events[-3:]] == [ToolCallFailed, streamcalls.ParseError, StreamFinished]
    assert events[-1] == StreamFinished("error")


async def test_run_messages_keep_the_cut_off_call_as_over_aparse() -> None:
    async with dropping("anthropic") as url, sdk_client("anthropic", url) as client:
        stream = await sdk_stream("anthropic", client)
        run = streamcalls.run_tools(streamcalls.from_anthropic_stream(stream), tools={})
        assert isinstance(await run_out(run), streamcalls.StreamInterrupted)

    async def cut() -> AsyncIterator[bytes]:
        yield cut_body("anthropic")
        raise ConnectionResetError("dropped")

    over_aparse = streamcalls.run_tools(streamcalls.aparse(cut(), "anthropic"), tools={})
    assert isinstance(await run_out(over_aparse), streamcalls.StreamInterrupted)
    messages = run.messages("anthropic")
    assert messages == over_aparse.messages("anthropic")
    assert [call.name for call in run.calls] == ["get_weather"]
    assert any(
        block.get("type") == "tool_use" and block.get("id") == run.calls[0].id
        for message in messages
        for block in (message["content"] if isinstance(message["content"], list) else [])
    )


async def test_the_sync_streams_keep_the_same_contract() -> None:
    async with dropping("openai") as url:

        def fetch() -> tuple[list[streamcalls.Event], BaseException | None]:
            events: list[streamcalls.Event] = []
            with openai.OpenAI(base_url=url, api_key="sk-test", max_retries=0) as client:
                stream = client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
                try:
                    for event in streamcalls.from_openai_stream(stream):
                        events.append(event)
                except streamcalls.StreamInterrupted as exc:
                    return events, exc
            return events, None

        events, error = await anyio.to_thread.run_sync(fetch)
    assert isinstance(error, streamcalls.StreamInterrupted)
    assert isinstance(error.__cause__, openai.APIConnectionError)  # what the SDK raises alone (see above)
    assert [type(e) for e in events[-3:]] == [ToolCallFailed, streamcalls.ParseError, StreamFinished]


@pytest.mark.parametrize("key", ["openai/error_midstream", "anthropic/error_midstream"])
async def test_an_error_event_the_sdk_raises_is_the_provider_error(key: str) -> None:
    """The SDK raises its APIError for the stream's error event; the events are the recording's."""
    provider, model = key.split("/")
    async with replay() as url, sdk_client(provider, f"{url}/v1" if provider == "openai" else url) as client:
        stream = await sdk_stream(provider, client, model)
        events = [e async for e in front(provider, stream)]
    assert normalize(events) == normalize(expected(key))


async def test_raise_provider_errors_through_the_sdk() -> None:
    async with replay() as url, sdk_client("anthropic", url) as client:
        stream = await sdk_stream("anthropic", client, "error_midstream")
        events, error = await collect(streamcalls.from_anthropic_stream(stream, raise_provider_errors=True))
    assert isinstance(error, streamcalls.ProviderFailure)
    assert str(error) == "the provider reported an error (HTTP 529): Overloaded"
    assert (error.status, error.retry_after) == (529, None)
    assert error.error == ProviderError("Overloaded", "overloaded_error", 529)
    assert isinstance(error.__cause__, anthropic.APIStatusError)
    # Everything before the error came, the cut-off call's failure included; nothing after it.
    wanted = expected("anthropic/error_midstream")
    assert normalize(events) == normalize(wanted[: wanted.index(error.error)])


# -- misuse ----------------------------------------------------------------------------------


async def test_a_complete_openai_response_is_refused_with_what_to_do() -> None:
    async with replay() as url, sdk_client("openai", f"{url}/v1") as client:
        completion = await client.chat.completions.create(model="one_call", messages=MESSAGES)
        response = await client.responses.create(model="one_call", input="Weather in Paris?")
    for complete, kind in [(completion, "ChatCompletion"), (response, "Response")]:
        with pytest.raises(streamcalls.UsageError) as info:
            streamcalls.from_openai_stream(complete)
        assert str(info.value) == (
            f"from_openai_stream() takes a stream, and this is a complete response ({kind}): create() was "
            "called without stream=True.  For the events as they come, call "
            "client.chat.completions.create(..., stream=True) or client.responses.stream(...); "
            "for the calls of a complete response, use streamcalls.extract(response)"
        )
    assert [call.name for call in streamcalls.extract(completion)] == ["get_weather"]  # the way it names


async def test_a_complete_anthropic_message_is_refused_with_what_to_do() -> None:
    async with replay() as url, sdk_client("anthropic", url) as client:
        message = await client.messages.create(model="one_call", max_tokens=100, messages=MESSAGES)
    with pytest.raises(streamcalls.UsageError, match=r"a complete response \(Message\).*stream=True") as info:
        streamcalls.from_anthropic_stream(message)
    assert "client.messages.create(..., stream=True) or client.messages.stream(...)" in str(info.value)
    with pytest.raises(streamcalls.UsageError, match=r"a complete response \(dict\)"):
        streamcalls.from_anthropic_stream(message.model_dump())


async def test_a_coroutine_and_an_unentered_stream_manager_are_refused() -> None:
    async with replay() as url, sdk_client("anthropic", url) as client:
        coroutine = client.messages.create(model="one_call", max_tokens=10, messages=MESSAGES, stream=True)
        try:
            with pytest.raises(streamcalls.UsageError, match="await it first") as info:
                streamcalls.from_anthropic_stream(coroutine)
            assert "stream = await client.messages.create(..., stream=True)" in str(info.value)
        finally:
            coroutine.close()
        manager = client.messages.stream(model="one_call", max_tokens=10, messages=MESSAGES)
        with pytest.raises(streamcalls.UsageError, match=r"async with \.\.\. as stream"):
            streamcalls.from_anthropic_stream(manager)
        async with manager as stream:  # what to do instead
            events = [e async for e in streamcalls.from_anthropic_stream(stream)]
    assert normalize(events) == normalize(expected("anthropic/one_call"))


def test_time_limits_need_an_async_stream() -> None:
    with pytest.raises(streamcalls.UsageError, match="idle_timeout and first_content_timeout need an async"):
        streamcalls.from_openai_stream(iter([]), idle_timeout=5)  # type: ignore[call-overload]
    with pytest.raises(streamcalls.UsageError, match=r"parse bytes or text with streamcalls\.parse\(\)"):
        streamcalls.from_openai_stream(b"data: {}\n\n")  # type: ignore[arg-type]
    with pytest.raises(streamcalls.UsageError, match="not int"):
        streamcalls.from_openai_stream(42)  # type: ignore[call-overload]


# -- the Responses stream helper -------------------------------------------------------------


@pytest.mark.parametrize("name", ["text_then_calls", "text_only", "builtin_tools_then_call"])
async def test_the_responses_stream_helper_gives_no_serializer_warnings(name: str) -> None:
    async with replay() as url, sdk_client("openai", f"{url}/v1") as client:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            async with client.responses.stream(model=name, input="hi") as stream:
                events = [e async for e in streamcalls.from_openai_stream(stream)]
    # (A socket left to the garbage collector elsewhere may warn here: not this code's.)
    assert [str(w.message) for w in caught if not issubclass(w.category, ResourceWarning)] == []
    assert normalize(events) == normalize(expected(f"openai-responses/{name}"))


async def test_tools_still_run_from_the_responses_helper() -> None:
    async with (
        replay() as url,
        sdk_client("openai", f"{url}/v1") as client,
        client.responses.stream(model="one_call", input="hi") as stream,
        streamcalls.run_tools(streamcalls.from_openai_stream(stream), tools={"get_weather": _weather}) as run,
    ):
        results = [item async for item in run if isinstance(item, ToolResult)]
    assert [result.content for result in results] == ["sunny in São Paulo"]


async def _weather(city: str, **_: Any) -> str:
    return f"sunny in {city}"


async def test_the_sync_sdk_reads_an_error_event_too() -> None:
    async with replay() as url:

        def fetch() -> list[streamcalls.Event]:
            with openai.OpenAI(base_url=f"{url}/v1", api_key="sk-test", max_retries=0) as client:
                stream = client.chat.completions.create(
                    model="error_midstream", messages=MESSAGES, stream=True
                )
                return list(streamcalls.from_openai_stream(stream))

        events = await anyio.to_thread.run_sync(fetch)
    assert normalize(events) == normalize(expected("openai/error_midstream"))
