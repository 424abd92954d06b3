"""The replay server's Bedrock InvokeModel routes, over real sockets, read by the anthropic SDK's Bedrock client.

``/model/{modelId}/invoke-with-response-stream`` serves a ``bedrock-invoke``
recording's event stream as it is (the model's own events in ``chunk``
frames: Claude's Messages events for the Claude recordings), and
``/model/{modelId}/invoke`` Claude's complete ``message``.  The anthropic
SDK's ``AsyncAnthropicBedrock``, given a bearer token instead of AWS
credentials and the server's URL, reads both (its stream through botocore's
event-stream decoder); the expected messages are written out here from the
recordings' readable ``.frames.jsonl``, not by streamcalls.  A body Bedrock
refuses gets its ``ValidationException`` in its words: the schema's keys,
then Anthropic's own checks relayed behind "The model returned the
following errors: ".  Every test runs on asyncio and on trio.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final, cast

import anthropic
import httpx
import pytest
from anthropic.lib.bedrock import AsyncAnthropicBedrock
from anthropic.types import MessageParam

import streamcalls
from streamcalls.testing import ReplayApp, load_recordings, serve
from tests.support.replaying import BEDROCK_TYPE

pytestmark = pytest.mark.anyio

DATA: Final = Path(__file__).parent.parent / "data"
VERSION: Final = "bedrock-2023-05-31"
USER: Final[MessageParam] = {"role": "user", "content": "Weather in Bergen and Oslo?"}
THINKING: Final = {
    "type": "thinking",
    "thinking": "Two cities: one call each.",
    "signature": "EqQBCkYIBxgCKkDq",
}
SAID: Final = {"type": "text", "text": "Checking both."}
USE_BERGEN: Final = {
    "type": "tool_use",
    "id": "toolu_bdrk_01A",
    "name": "get_weather",
    "input": {"city": "Bergen"},
}
USE_OSLO: Final = {
    "type": "tool_use",
    "id": "toolu_bdrk_01B",
    "name": "get_weather",
    "input": {"city": "Oslo", "days": 2},
}
RESULTS: Final = {
    "role": "user",
    "content": [
        {"type": "tool_result", "tool_use_id": "toolu_bdrk_01A", "content": "rain"},
        {"type": "tool_result", "tool_use_id": "toolu_bdrk_01B", "content": "sun"},
    ],
}
RAIN: Final = "Bergen gets about 2,250 mm of rain a year."
PREFIX: Final = "The model returned the following errors: "


def body(*messages: Any, **fields: Any) -> dict[str, Any]:
    """A Claude InvokeModel body, as the anthropic SDK's Bedrock client writes it."""
    return {"anthropic_version": VERSION, "max_tokens": 256, "messages": list(messages or [USER]), **fields}


@asynccontextmanager
async def invoke_server(
    folder: Path = DATA,
) -> AsyncIterator[tuple[httpx.AsyncClient, AsyncAnthropicBedrock]]:
    app = ReplayApp(load_recordings(folder), seed=3, max_chunk=23)
    async with serve(app, graceful_timeout=0.1) as url, httpx.AsyncClient(base_url=url, timeout=10) as client:
        bedrock = AsyncAnthropicBedrock(api_key="replay", base_url=url, aws_region="us-east-1", max_retries=0)
        async with bedrock:  # closed on the loop it ran on
            yield client, bedrock


def refusal(response: Any) -> tuple[int, str, str]:
    """Bedrock's error: its status, its exception's name (from its header) and its message."""
    kind = response.headers["x-amzn-errortype"]
    assert kind.endswith(BEDROCK_TYPE)
    assert list(response.json()) == ["message"]
    return response.status_code, kind.removesuffix(BEDROCK_TYPE), response.json()["message"]


async def test_the_sdk_streams_claude_through_invoke_with_response_stream() -> None:
    async with (
        invoke_server() as (_, bedrock),
        bedrock.messages.stream(model="claude_thinking_calls", max_tokens=256, messages=[USER]) as stream,
    ):
        message = await stream.get_final_message()
    assert [block.model_dump(exclude_none=True) for block in message.content] == [
        THINKING,
        SAID,
        USE_BERGEN,
        USE_OSLO,
    ]
    assert message.stop_reason == "tool_use"
    assert (message.usage.input_tokens, message.usage.output_tokens) == (640, 96)


async def test_the_sdk_reads_claude_s_complete_message_from_invoke() -> None:
    async with invoke_server() as (_, bedrock):
        message = await bedrock.messages.create(model="claude_text", max_tokens=256, messages=[USER])
    assert [block.model_dump(exclude_none=True) for block in message.content] == [
        {"type": "text", "text": RAIN}
    ]
    assert message.stop_reason == "end_turn"
    async with invoke_server() as (_, bedrock):
        message = await bedrock.messages.create(
            model="claude_thinking_calls", max_tokens=256, messages=[USER]
        )
    assert [block.model_dump(exclude_none=True) for block in message.content] == [
        THINKING,
        SAID,
        USE_BERGEN,
        USE_OSLO,
    ]


async def test_the_stream_is_the_recording_and_the_parser_reads_every_family() -> None:
    async with invoke_server() as (client, _):
        claude = await client.post("/model/claude_text/invoke-with-response-stream", json=body())
        llama = await client.post("/model/llama_text/invoke-with-response-stream", json={"prompt": "Hi"})
    assert claude.headers["content-type"] == "application/vnd.amazon.eventstream"
    assert claude.content == (DATA / "bedrock-invoke" / "claude_text.bin").read_bytes()
    turn = streamcalls.accumulate(streamcalls.parse(claude.content, "bedrock-invoke"))
    assert (turn.text, turn.provider) == (RAIN, "anthropic")
    assert llama.content == (DATA / "bedrock-invoke" / "llama_text.bin").read_bytes()


async def test_a_claude_body_with_the_messages_api_s_keys_is_refused_by_bedrock_s_schema() -> None:
    async with invoke_server() as (client, _):
        extra = await client.post("/model/claude_text/invoke", json=body(stream=True, model="claude"))
        missing = await client.post(
            "/model/claude_text/invoke", json={"anthropic_version": VERSION, "messages": []}
        )
    assert refusal(extra) == (
        400,
        "ValidationException",
        PREFIX + "Malformed input request: #: extraneous key [stream] is not permitted, "
        "#: extraneous key [model] is not permitted, please reformat your input and try again.",
    )
    assert refusal(missing) == (
        400,
        "ValidationException",
        PREFIX
        + "Malformed input request: #: required key [max_tokens] not found, please reformat your input "
        "and try again.",
    )


async def test_anthropic_s_own_checks_are_relayed_behind_bedrock_s_prefix() -> None:
    async with invoke_server() as (client, _):
        tool = await client.post("/model/claude_text/invoke", json=body(tools=[{"type": "function"}]))
        orphan = await client.post("/model/claude_text/invoke-with-response-stream", json=body(USER, RESULTS))
    status, kind, message = refusal(tool)
    assert (status, kind) == (400, "ValidationException")
    assert message.startswith(PREFIX + "tools.0: Input tag 'function' found using 'type' does not match")
    assert refusal(orphan) == (
        400,
        "ValidationException",
        PREFIX
        + "messages.1.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_bdrk_01A. "
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
    )


async def test_an_unknown_model_and_a_complete_answer_of_another_family() -> None:
    async with invoke_server() as (client, _):
        unknown = await client.post("/model/anthropic.claude-x/invoke", json=body())
        llama = await client.post("/model/llama_text/invoke", json={"prompt": "Hi"})
    status, kind, message = refusal(unknown)
    assert (status, kind) == (404, "ResourceNotFoundException")
    assert message.startswith("The provided model identifier is invalid. This replay server has: ")
    assert "claude_thinking_calls" in message
    status, kind, message = refusal(llama)
    assert status == 500
    assert "complete InvokeModel response for Claude's recordings only" in message


@pytest.fixture
def conversation(tmp_path: Path) -> Path:
    """A recorded conversation: Claude's thinking and calls, then its answer (turn 2)."""
    folder = tmp_path / "bedrock-invoke"
    folder.mkdir()
    shutil.copy(DATA / "bedrock-invoke" / "claude_thinking_calls.bin", folder / "weather.bin")
    shutil.copy(DATA / "bedrock-invoke" / "claude_text.bin", folder / "weather.turn2.bin")
    return tmp_path


async def test_the_tool_loop_needs_claude_s_thinking_back_unchanged(conversation: Path) -> None:
    turn = {"role": "assistant", "content": [THINKING, SAID, USE_BERGEN, USE_OSLO]}
    changed = {
        "role": "assistant",
        "content": [{**THINKING, "signature": "forged"}, SAID, USE_BERGEN, USE_OSLO],
    }
    dropped = {"role": "assistant", "content": [SAID, USE_BERGEN, USE_OSLO]}
    thinking: Any = {"type": "enabled", "budget_tokens": 128}
    async with invoke_server(conversation) as (client, bedrock):
        answer = await bedrock.messages.create(
            model="weather", max_tokens=256, messages=cast(Any, [USER, turn, RESULTS]), thinking=thinking
        )
        with pytest.raises(anthropic.BadRequestError) as forged:
            await bedrock.messages.create(
                model="weather",
                max_tokens=256,
                messages=cast(Any, [USER, changed, RESULTS]),
                thinking=thinking,
            )
        lost = await client.post(
            "/model/weather/invoke", json=body(USER, dropped, RESULTS, thinking=thinking)
        )
    assert [block.model_dump(exclude_none=True) for block in answer.content] == [
        {"type": "text", "text": RAIN}
    ]
    assert forged.value.status_code == 400
    assert forged.value.body == {
        "message": PREFIX + "messages.1.content.0: Invalid `signature` in `thinking` block"
    }
    assert refusal(forged.value.response) == (
        400,
        "ValidationException",
        PREFIX + "messages.1.content.0: Invalid `signature` in `thinking` block",
    )
    status, kind, message = refusal(lost)
    assert (status, kind) == (400, "ValidationException")
    assert message.startswith(
        PREFIX + "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`"
    )
