"""The SDK fronts' types as a user's ``mypy --strict`` sees them: streams accepted, complete responses refused.

A complete response (``create()`` without ``stream=True``) is a pydantic
model, and pydantic models iterate -- over ``(field, value)`` pairs -- so a
front typed ``Iterable[Any]`` let it through.  The fronts take iterables of
SDK objects or mappings, which a pair is not: mypy refuses the mistake at
the line that makes it, as the fronts do at run time.  Checked with the
official SDKs' own types (tests/support/typecheck.py).
"""

from __future__ import annotations

from pathlib import Path

from tests.support.typecheck import run_mypy

STREAMS = '''\
"""Every stream the SDKs give goes in, async or sync, with the fronts' options."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Generator
from typing import Any

import anthropic
import openai
from typing_extensions import assert_type

import streamcalls
from streamcalls import Event

MESSAGES: Any = [{"role": "user", "content": "hi"}]


async def openai_async(client: openai.AsyncOpenAI) -> None:
    stream = await client.chat.completions.create(model="gpt-4o", messages=MESSAGES, stream=True)
    events = streamcalls.from_openai_stream(stream, idle_timeout=30, first_content_timeout=300)
    assert_type(events, AsyncGenerator[Event, None])
    async with client.chat.completions.stream(model="gpt-4o", messages=MESSAGES) as helper:
        assert_type(streamcalls.from_openai_stream(helper), AsyncGenerator[Event, None])
    async with client.responses.stream(model="gpt-4o", input="hi") as responses:
        assert_type(streamcalls.from_openai_stream(responses), AsyncGenerator[Event, None])
    raw = await client.responses.create(model="gpt-4o", input="hi", stream=True)
    assert_type(streamcalls.from_openai_stream(raw, raise_provider_errors=True), AsyncGenerator[Event, None])


def openai_sync(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(model="gpt-4o", messages=MESSAGES, stream=True)
    assert_type(streamcalls.from_openai_stream(stream), Generator[Event, None, None])
    chunks: list[dict[str, Any]] = []
    assert_type(streamcalls.from_openai_stream(chunks), Generator[Event, None, None])


async def anthropic_async(client: anthropic.AsyncAnthropic) -> None:
    stream = await client.messages.create(model="claude-sonnet-4-5", max_tokens=10, messages=MESSAGES, stream=True)
    assert_type(streamcalls.from_anthropic_stream(stream, idle_timeout=30), AsyncGenerator[Event, None])
    async with client.messages.stream(model="claude-sonnet-4-5", max_tokens=10, messages=MESSAGES) as helper:
        assert_type(streamcalls.from_anthropic_stream(helper), AsyncGenerator[Event, None])


def anthropic_sync(client: anthropic.Anthropic) -> None:
    with client.messages.stream(model="claude-sonnet-4-5", max_tokens=10, messages=MESSAGES) as helper:
        assert_type(streamcalls.from_anthropic_stream(helper), Generator[Event, None, None])
'''

# Each marked line must fail, and only these.
COMPLETE = """\
from typing import Any

import anthropic
import openai

import streamcalls

MESSAGES: Any = [{"role": "user", "content": "hi"}]


async def forgot_stream(client: openai.AsyncOpenAI, claude: anthropic.AsyncAnthropic) -> None:
    completion = await client.chat.completions.create(model="gpt-4o", messages=MESSAGES)
    streamcalls.from_openai_stream(completion)  # line 13
    response = await client.responses.create(model="gpt-4o", input="hi")
    streamcalls.from_openai_stream(response)  # line 15
    message = await claude.messages.create(model="claude-sonnet-4-5", max_tokens=10, messages=MESSAGES)
    streamcalls.from_anthropic_stream(message)  # line 17


def forgot_stream_sync(client: openai.OpenAI) -> None:
    streamcalls.from_openai_stream(client.chat.completions.create(model="gpt-4o", messages=MESSAGES))  # line 21


def sync_with_a_time_limit(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(model="gpt-4o", messages=MESSAGES, stream=True)
    streamcalls.from_openai_stream(stream, idle_timeout=30)  # line 26
"""
COMPLETE_LINES = (13, 15, 17, 21, 26)


def test_the_sdk_streams_are_accepted(tmp_path: Path) -> None:
    status, lines = run_mypy({"streams.py": STREAMS}, tmp_path)
    assert lines == []
    assert status == 0


def test_a_complete_response_is_refused(tmp_path: Path) -> None:
    status, lines = run_mypy({"complete.py": COMPLETE}, tmp_path)
    failed = sorted({int(line.split(":")[1]) for line in lines if ": error:" in line})
    assert failed == list(COMPLETE_LINES), "\n".join(lines)
    assert status == 1
    by_line = {int(line.split(":")[1]): line for line in lines if ": error:" in line}
    for number in (13, 15, 17, 21):
        assert "has incompatible type" in by_line[number], by_line[number]
