"""Stall detection over real HTTP, on asyncio and trio: a server that sends only keep-alives is caught.

The server (tests/support/rawhttp.py) sends some content, then keep-alives for as long
as the client stays: SSE comments, or Anthropic ``ping`` events, which the
anthropic SDK reads itself.  The limits are short real times; the tests
assert only that the stall is caught, which holds however slow the machine.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anthropic
import anyio
import httpx
import openai
import pytest

import streamcalls
from streamcalls import StreamFinished, TextDelta
from tests.support.rawhttp import Connection, chunk, head, raw_server
from tests.unit.test_stalls import COMMENT, HI, MESSAGE_START, PING, ROLE, anthropic_event, without_start

pytestmark = pytest.mark.anyio

SSE = [("content-type", "text/event-stream")]
TEXT_START = anthropic_event("content_block_start", index=0, content_block={"type": "text", "text": ""})
TEXT = anthropic_event("content_block_delta", index=0, delta={"type": "text_delta", "text": "Hello"})
MESSAGES: Any = [{"role": "user", "content": "hi"}]


def then_forever(first: bytes, keepalive: bytes) -> Callable[[Connection], Awaitable[None]]:
    """A response: ``first``, then ``keepalive`` every 20 ms until the client leaves."""

    async def respond(connection: Connection) -> None:
        await connection.send(head(headers=SSE), chunk(first))
        while True:
            await anyio.sleep(0.02)
            await connection.send(chunk(keepalive))

    return respond


async def collect(events: Any) -> tuple[list[streamcalls.Event], BaseException | None]:
    got: list[streamcalls.Event] = []
    with anyio.fail_after(60):
        try:
            async for event in events:
                got.append(event)
        except Exception as exc:
            return got, exc
    return got, None


async def test_from_httpx_catches_a_stream_of_comments() -> None:
    async with (
        raw_server(then_forever(ROLE + HI, COMMENT)) as url,
        httpx.AsyncClient() as client,
        client.stream("POST", url, json={}) as response,
    ):
        events, error = await collect(streamcalls.from_httpx(response, idle_timeout=0.3))
    assert isinstance(error, streamcalls.StreamStalled)
    assert str(error).startswith("no content for 0.3 s")
    assert without_start(events)[0] == TextDelta("hi")
    assert events[-1] == StreamFinished("error")


async def test_the_anthropic_sdk_front_catches_a_stream_of_pings() -> None:
    async with (
        raw_server(then_forever(MESSAGE_START + TEXT_START + TEXT, PING)) as url,
        anthropic.AsyncAnthropic(base_url=url, api_key="sk-test", max_retries=0) as client,
    ):
        stream = await client.messages.create(model="m", max_tokens=10, messages=MESSAGES, stream=True)
        events, error = await collect(streamcalls.from_anthropic_stream(stream, idle_timeout=0.3))
    assert isinstance(error, streamcalls.StreamStalled)
    assert without_start(events)[0] == TextDelta("Hello")
    assert events[-1] == StreamFinished("error")


async def test_the_openai_sdk_front_catches_a_stream_of_empty_chunks() -> None:
    async with (
        raw_server(then_forever(ROLE + HI, ROLE)) as url,
        openai.AsyncOpenAI(base_url=url, api_key="sk-test", max_retries=0) as client,
    ):
        stream = await client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
        events, error = await collect(streamcalls.from_openai_stream(stream, idle_timeout=0.3))
    assert isinstance(error, streamcalls.StreamStalled)
    assert without_start(events)[0] == TextDelta("hi")


async def test_the_first_content_limit_over_http() -> None:
    async with (
        raw_server(then_forever(MESSAGE_START, PING)) as url,
        httpx.AsyncClient() as client,
        client.stream("POST", url, json={}) as response,
    ):
        events, error = await collect(
            streamcalls.from_httpx(response, idle_timeout=30, first_content_timeout=0.3)
        )
    assert isinstance(error, streamcalls.StreamStalled)
    assert str(error) == "no content within first_content_timeout=0.3 s; the stream was abandoned"
    assert events[-1] == StreamFinished("error")
