"""Types as a user's ``mypy --strict`` sees them: provider names, and the codec in the SDKs' typed parameters.

The checks run mypy in a subprocess over temporary files (tests/support/typecheck.py),
with the official SDKs installed and without them.  The SDK script is what a
user writes: the codec's output passed straight to ``tools=``, ``messages=``
and ``input=`` of the openai and anthropic clients, and appended to or
extending lists typed with the SDKs' own message types.
"""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import streamcalls
from streamcalls.codec import CODEC_PROVIDERS, CodecProviderName
from streamcalls.providers import ALIASES, PROVIDER_NAMES
from tests.support.typecheck import run_mypy

SDK_SCRIPT = '''\
"""The codec's output where the official SDKs' typed parameters expect it."""

from __future__ import annotations

import anthropic
import openai
from anthropic.types import MessageParam
from openai.types.chat import ChatCompletionMessageParam
from openai.types.responses import ResponseInputParam

import streamcalls
from streamcalls import Tool, ToolCall, ToolResult

TOOLS = [Tool("get_weather", "Current weather", {"type": "object", "properties": {"city": {"type": "string"}}})]
CALLS = [ToolCall("call_1", "get_weather", {"city": "Paris"})]
RESULTS = [ToolResult("call_1", "get_weather", "21 C")]


def openai_chat(client: openai.OpenAI) -> None:
    messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": "Weather in Paris?"}]
    messages.append(streamcalls.encode_call(CALLS, "openai", text="Checking."))
    messages.extend(streamcalls.encode_result(RESULTS, "openai"))
    messages.append(streamcalls.encode_result(RESULTS[0], "openrouter"))
    client.chat.completions.create(model="gpt-4o", messages=messages, tools=streamcalls.encode_tools(TOOLS, "openai"))
    stream = client.chat.completions.create(
        model="gpt-4o",
        messages=[*messages, streamcalls.encode_call(CALLS[0], "groq")],
        tools=streamcalls.encode_tools(TOOLS, "groq"),
        stream=True,
    )
    for event in streamcalls.from_openai_stream(stream):
        print(event)


async def openai_async(client: openai.AsyncOpenAI) -> None:
    stream = await client.chat.completions.create(
        model="gpt-4o",
        messages=[streamcalls.encode_call(CALLS, "openai"), *streamcalls.encode_result(RESULTS, "openai")],
        tools=streamcalls.encode_tools(TOOLS, "openai"),
        stream=True,
    )
    # The SDK's overloads stay resolved, so its stream goes on to run_tools.
    async with streamcalls.run_tools(streamcalls.from_openai_stream(stream), tools={}) as run:
        async for item in run:
            print(item)


def openai_responses(client: openai.OpenAI) -> None:
    items: ResponseInputParam = [{"role": "user", "content": "Weather in Paris?"}]
    items.extend(streamcalls.encode_call(CALLS, "openai-responses", text="Checking."))
    items.extend(streamcalls.encode_result(RESULTS, "openai-responses"))
    items.append(streamcalls.encode_result(RESULTS[0], "openai-responses"))
    tools = streamcalls.encode_tools(TOOLS, "openai-responses")
    client.responses.create(model="gpt-4o", input=items, tools=tools)
    client.responses.create(model="gpt-4o", input=streamcalls.encode_call(CALLS, "openai-responses"))


async def anthropic_messages(client: anthropic.AsyncAnthropic) -> None:
    messages: list[MessageParam] = [{"role": "user", "content": "Weather in Paris?"}]
    messages.append(streamcalls.encode_call(CALLS, "anthropic", text="Checking."))
    messages.extend(streamcalls.encode_result(RESULTS, "anthropic"))
    stream = await client.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=100,
        messages=[*messages, streamcalls.encode_result(RESULTS[0], "anthropic")],
        tools=streamcalls.encode_tools(TOOLS, "anthropic"),
        stream=True,
    )
    async for event in streamcalls.from_anthropic_stream(stream):
        print(event)
'''

# Each line must fail, and only these: misspelt names, a name held in a plain str (the codec and
# run.messages take the provider Literal, with no catch-all str), and the codec's typed results misused.
WRONG_SCRIPT = """\
import streamcalls
from streamcalls import ToolResult

RESULTS = [ToolResult("call_1", "get_weather", "21 C")]
streamcalls.StreamParser("opnai")
streamcalls.parse(b"", provider="anthropc")
streamcalls.extract({}, provider="gemeni")
messages = [streamcalls.encode_call([], "anthropic")]
messages.append(streamcalls.encode_result(RESULTS, "anthropic"))
streamcalls.encode_tools([], "OpenAI")


def generic(name: str, run: streamcalls.ToolRun) -> None:
    streamcalls.encode_tools([], name)
    streamcalls.encode_call([], name)
    streamcalls.encode_result(RESULTS, name)
    streamcalls.encode_result(RESULTS[0], name)
    run.messages(name)
"""
WRONG_LINES = (5, 6, 7, 9, 10, 14, 15, 16, 17, 18)

# Without the SDKs the typed results fall back to Any, and nothing breaks.
BARE_SCRIPT = """\
from collections.abc import AsyncIterable
from typing import Any, cast

import msgspec
from typing_extensions import assert_type

import streamcalls
from streamcalls import Tool, ToolCall, ToolResult
from streamcalls.codec import CodecProviderName

TOOLS = [Tool("now")]
CALLS = [ToolCall("call_1", "now", {})]
RESULTS = [ToolResult("call_1", "now", "12:00")]

tools = streamcalls.encode_tools(TOOLS, "openai")
assert_type(tools, list[Any])
assert_type(streamcalls.encode_call(CALLS, "anthropic"), Any)
assert_type(streamcalls.encode_result(RESULTS, "openai-responses"), list[Any])
assert_type(streamcalls.encode_call(CALLS, "gemini"), dict[str, Any])
body = msgspec.json.encode({"messages": [streamcalls.encode_call(CALLS, "openai")], "tools": tools})


def generic(name: CodecProviderName, run: streamcalls.ToolRun) -> None:
    # A name read at run time, typed as one of the codec's: plain dicts.
    assert_type(streamcalls.encode_tools(TOOLS, name), list[dict[str, Any]])
    assert_type(streamcalls.encode_result(RESULTS[0], name), dict[str, Any])
    assert_type(streamcalls.encode_result(RESULTS, name), list[dict[str, Any]])
    assert_type(run.messages(name), list[dict[str, Any]])
    configured: str = "openai"  # from a config file
    assert_type(streamcalls.encode_tools(TOOLS, cast(CodecProviderName, configured)), list[dict[str, Any]])


class Shop:
    user = "ada"


async def whoami(ctx: streamcalls.ToolContext[Shop], loud: bool = False) -> str:
    assert_type(ctx.deps, Shop)
    assert_type(ctx.call, ToolCall)
    return ctx.deps.user


async def loop(events: AsyncIterable[streamcalls.Event]) -> None:
    async with streamcalls.run_tools(events, [whoami], context=Shop()) as run:
        async for item in run:
            print(item)
"""


def flat(literal: object) -> set[str]:
    return set(get_args(literal))


def test_the_literals_name_what_the_registry_accepts() -> None:
    assert flat(streamcalls.ProviderName) == set(PROVIDER_NAMES)
    assert flat(CodecProviderName) == {*CODEC_PROVIDERS, *ALIASES}


def test_codec_results_fit_the_sdks_typed_parameters(tmp_path: Path) -> None:
    status, lines = run_mypy({"sdk_params.py": SDK_SCRIPT, "wrong.py": WRONG_SCRIPT}, tmp_path)
    assert [line for line in lines if not line.startswith("wrong.py:")] == []
    failed = sorted({int(line.split(":")[1]) for line in lines if ": error:" in line})
    assert failed == list(WRONG_LINES), "\n".join(lines)
    assert status == 1
    by_line = {int(line.split(":")[1]): line for line in lines if ": error:" in line}
    assert "Literal['opnai']" in by_line[5]
    assert "[arg-type]" in by_line[5]
    assert '"append" of "list"' in by_line[9]
    for number in (10, 14, 15, 16, 17, 18):
        assert "[call-overload]" in by_line[number], by_line[number]
    assert '"str"' in by_line[14]


def test_without_the_sdks_typed_results_are_any(tmp_path: Path) -> None:
    status, lines = run_mypy({"bare.py": BARE_SCRIPT}, tmp_path, sdks=False)
    assert lines == []
    assert status == 0
