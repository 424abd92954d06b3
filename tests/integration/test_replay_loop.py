"""The replay server in a real loop, over real sockets: next turns, provider 400s and 404s, complete responses.

Every test runs on asyncio and on trio.  Histories are written the way a user
writes them, with ``encode_call`` + ``encode_result``; the expected error
bodies are the providers' own wording (OpenAI's ``param`` and ``code``,
Anthropic's ``messages.N...`` paths), written out here and reviewed by eye.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anthropic
import httpx
import openai
import pytest

import streamcalls
from streamcalls import (
    ProviderError,
    StreamFinished,
    StreamStarted,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolResult,
    encode_call,
    encode_result,
    extract,
)
from streamcalls.codec import CodecProviderName
from streamcalls.testing import ReplayApp, bundled_recordings, load_recordings, serve
from tests.support import DATA, normalize

pytestmark = pytest.mark.anyio

BUNDLED = bundled_recordings()
ENDPOINT = {"openai": "/v1/chat/completions", "anthropic": "/v1/messages"}
PROMPT = {"role": "user", "content": "Plan my Saturday"}
CONVERSATIONS = [
    "openai/plan_day",
    "openai/parallel_calls",
    "anthropic/plan_day",
    "anthropic/thinking_then_call",
]


@asynccontextmanager
async def replay(recordings: Any = None) -> AsyncIterator[tuple[ReplayApp, httpx.AsyncClient, str]]:
    app = ReplayApp(BUNDLED if recordings is None else recordings, seed=3, max_chunk=40)
    async with serve(app, graceful_timeout=0.1) as url, httpx.AsyncClient(base_url=url, timeout=10) as client:
        yield app, client, url


async def stream(
    client: httpx.AsyncClient, provider: str, request: dict[str, Any]
) -> list[streamcalls.Event]:
    async with client.stream("POST", ENDPOINT[provider], json={**request, "stream": True}) as response:
        assert response.status_code == 200, await response.aread()
        return [event async for event in streamcalls.from_httpx(response)]


def turn_events(key: str, turn: int) -> list[streamcalls.Event]:
    recording = BUNDLED[key].maybe_turn(turn)
    assert recording is not None
    return normalize(streamcalls.parse(recording.body))


def results_for(calls: list[ToolCall]) -> list[ToolResult]:
    return [ToolResult(call.id, call.name, f"{call.name} says: fine") for call in calls]


def first_turn(events: list[streamcalls.Event]) -> tuple[str, list[ToolCall]]:
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    return text, [e.call for e in events if isinstance(e, ToolCallCompleted)]


def history(provider: CodecProviderName, text: str, calls: list[ToolCall]) -> list[Any]:
    """The next request's messages, as a user writes them: append the call, extend with the results."""
    messages: list[Any] = [PROMPT]
    messages.append(encode_call(calls, provider, text=text))
    messages.extend(encode_result(results_for(calls), provider))
    return messages


# -- the next turn -----------------------------------------------------------------------------


@pytest.mark.parametrize("key", CONVERSATIONS)
async def test_tool_results_get_the_recordings_next_turn(key: str) -> None:
    provider, model = key.split("/")
    assert provider in ("openai", "anthropic")
    async with replay() as (app, client, _):
        first = await stream(client, provider, {"model": model, "max_tokens": 100, "messages": [PROMPT]})
        assert normalize(first) == turn_events(key, 1)
        text, calls = first_turn(first)
        assert calls
        messages = history(provider, text, calls)  # type: ignore[arg-type]
        second = await stream(client, provider, {"model": model, "max_tokens": 100, "messages": messages})
        assert normalize(second) == turn_events(key, 2)
        assert [type(e) for e in normalize(second)] == [StreamStarted, TextDelta, StreamFinished]
        assert isinstance(second[-1], StreamFinished)
        assert second[-1].reason == "stop"
        # A new prompt after the answer starts the conversation over: turn 1 again.
        answer = {"role": "assistant", "content": "".join(e.text for e in second if isinstance(e, TextDelta))}
        again = await stream(
            client, provider, {"model": model, "max_tokens": 100, "messages": [*messages, answer, PROMPT]}
        )
        assert normalize(again) == turn_events(key, 1)
    assert [len(r["messages"]) for r in app.requests] == [1, len(messages), len(messages) + 2]


async def test_the_openai_sdk_sends_the_history_and_gets_the_final_answer() -> None:
    async with replay() as (_, _client, url):
        client = openai.AsyncOpenAI(base_url=f"{url}/v1", api_key="sk-test", max_retries=0)
        async with client:
            first = await client.chat.completions.create(
                model="plan_day", messages=[{"role": "user", "content": "Plan my Saturday"}], stream=True
            )
            text, calls = first_turn([e async for e in streamcalls.from_openai_stream(first)])
            results = results_for(calls)
            second = await client.chat.completions.create(
                model="plan_day",
                messages=[
                    {"role": "user", "content": "Plan my Saturday"},
                    encode_call(calls, "openai", text=text),
                    *encode_result(results, "openai"),
                ],
                stream=True,
            )
            events = [e async for e in streamcalls.from_openai_stream(second)]
    assert normalize(events) == turn_events("openai/plan_day", 2)


async def test_the_anthropic_sdk_sends_the_history_and_gets_the_final_answer() -> None:
    async with replay() as (_, _client, url):
        client = anthropic.AsyncAnthropic(base_url=url, api_key="sk-test", max_retries=0)
        async with client:
            first = await client.messages.create(
                model="thinking_then_call",
                max_tokens=100,
                messages=[{"role": "user", "content": "What is 27 * 453?"}],
                stream=True,
            )
            text, calls = first_turn([e async for e in streamcalls.from_anthropic_stream(first)])
            second = await client.messages.create(
                model="thinking_then_call",
                max_tokens=100,
                messages=[
                    {"role": "user", "content": "What is 27 * 453?"},
                    encode_call(calls, "anthropic", text=text),
                    *encode_result([ToolResult(calls[0].id, calls[0].name, "12231")], "anthropic"),
                ],
                stream=True,
            )
            events = [e async for e in streamcalls.from_anthropic_stream(second)]
    assert normalize(events) == turn_events("anthropic/thinking_then_call", 2)


async def test_a_turn_that_was_not_recorded_is_a_404_saying_what_to_record() -> None:
    recordings = load_recordings(DATA)  # the tests' recordings have a first turn only
    calls = first_turn(streamcalls.parse(recordings["openai/one_call"].body))[1]
    async with replay(recordings) as (_, client, _url):
        request = {"model": "one_call", "messages": history("openai", "", calls)}
        response = await client.post(ENDPOINT["openai"], json=request)
    assert response.status_code == 404
    assert response.json()["error"]["message"] == (
        "recording 'openai/one_call' has 1 turn(s), and these messages ask for turn 2 (one more than the "
        "model's turns since the last user prompt): record it as one_call.turn2.<ext> beside the first"
    )


async def test_get_replay_serves_any_turn_as_it_is() -> None:
    async with replay() as (_, client, _url):
        second = await client.get("/replay/anthropic/plan_day.turn2")
        missing = await client.get("/replay/anthropic/plan_day.turn3")
        index = (await client.get("/")).json()
    assert second.status_code == 200
    assert second.headers["x-replay-turn"] == "2"
    assert second.content == BUNDLED["anthropic/plan_day"].next_turns[0].body
    assert missing.status_code == 404
    assert index["turns"] == dict.fromkeys(sorted(BUNDLED), 2)


# -- histories the provider would reject -----------------------------------------------------------

WEATHER = ToolCall("call_weather", "get_weather", {"city": "Paris"})
HOURS = ToolCall("call_hours", "get_opening_hours", {"place": "Louvre", "day": "Saturday"})
RESULTS = results_for([WEATHER, HOURS])
LATER = {"role": "user", "content": "And tomorrow?"}


def openai_error(message: str, param: str | None, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}


def anthropic_error(message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}


UNANSWERED = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
    "'tool_call_id'. The following tool_call_ids did not have response messages: "
)
REJECTED: list[tuple[str, str, list[Any], dict[str, Any]]] = [
    (
        "openai",
        "the results' list appended as one message",
        [PROMPT, encode_call([WEATHER, HOURS], "openai"), encode_result(RESULTS, "openai")],
        openai_error(
            "Invalid type for 'messages[2]': expected an object, but got an array instead.",
            "messages[2]",
            "invalid_type",
        ),
    ),
    (
        "openai",
        "a result without its call",
        [PROMPT, encode_result(RESULTS[0], "openai")],
        openai_error(
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
            "with 'tool_calls'.",
            "messages.[1].role",
        ),
    ),
    (
        "openai",
        "results after another message",
        [PROMPT, encode_call([WEATHER, HOURS], "openai"), LATER, *encode_result(RESULTS, "openai")],
        openai_error(UNANSWERED + "call_weather, call_hours", "messages.[1].role"),
    ),
    (
        "openai",
        "a call left without its result",
        [PROMPT, encode_call([WEATHER, HOURS], "openai"), encode_result(RESULTS[0], "openai")],
        openai_error(UNANSWERED + "call_hours", "messages.[1].role"),
    ),
    (
        "openai",
        "a result for another call",
        [PROMPT, encode_call(WEATHER, "openai"), encode_result(RESULTS[1], "openai")],
        openai_error(
            "Invalid parameter: 'tool_call_id' of 'call_hours' not found in 'tool_calls' of previous message.",
            "messages.[2].tool_call_id",
        ),
    ),
    (
        "openai",
        "a call written for Ollama (object arguments)",
        [PROMPT, encode_call(WEATHER, "ollama"), encode_result(RESULTS[0], "openai")],
        openai_error(
            "Invalid type for 'messages[1].tool_calls[0].function.arguments': expected a string, "
            "but got an object instead.",
            "messages[1].tool_calls[0].function.arguments",
            "invalid_type",
        ),
    ),
    (
        "openai",
        "an unknown role",
        [{"role": "model", "content": "hi"}],
        openai_error(
            "Invalid value: 'model'. Supported values are: 'system', 'assistant', 'user', 'function', "
            "'tool', and 'developer'.",
            "messages[0].role",
            "invalid_value",
        ),
    ),
    (
        "anthropic",
        "the results' list appended as one message",
        [PROMPT, encode_call([WEATHER, HOURS], "anthropic"), encode_result(RESULTS, "anthropic")],
        anthropic_error("messages.2: Input should be a valid dictionary"),
    ),
    (
        "anthropic",
        "a result without its call",
        [PROMPT, encode_result(RESULTS[0], "anthropic")],
        anthropic_error(
            "messages.1.content.0: unexpected `tool_use_id` found in `tool_result` blocks: call_weather. "
            "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
        ),
    ),
    (
        "anthropic",
        "results after another message",
        [PROMPT, encode_call([WEATHER, HOURS], "anthropic"), LATER, *encode_result(RESULTS, "anthropic")],
        anthropic_error(
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
            "call_weather, call_hours. Each `tool_use` block must have a corresponding `tool_result` block "
            "in the next message."
        ),
    ),
    (
        "anthropic",
        "a call left without its result",
        [PROMPT, encode_call([WEATHER, HOURS], "anthropic"), encode_result(RESULTS[0], "anthropic")],
        anthropic_error(
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
            "call_hours. Each `tool_use` block must have a corresponding `tool_result` block in the next "
            "message."
        ),
    ),
    (
        "anthropic",
        "a call written for Bedrock",
        [PROMPT, encode_call(WEATHER, "bedrock"), encode_result(RESULTS[0], "anthropic")],
        anthropic_error(
            "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: call_weather. "
            "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
        ),
    ),
    (
        "anthropic",
        "a role Anthropic does not have",
        [{"role": "system", "content": "Be brief."}, PROMPT],
        anthropic_error("messages.0.role: Input should be 'user' or 'assistant'"),
    ),
]


@pytest.mark.parametrize(
    ("provider", "messages", "error"),
    [(provider, messages, error) for provider, _, messages, error in REJECTED],
    ids=[f"{provider}: {what}" for provider, what, _, _ in REJECTED],
)
async def test_a_history_the_provider_would_reject_gets_its_400(
    provider: str, messages: list[Any], error: dict[str, Any]
) -> None:
    async with replay() as (_, client, _url):
        request = {"model": "plan_day", "max_tokens": 100, "messages": messages}
        response = await client.post(ENDPOINT[provider], json=request)
        assert response.status_code == 400
        assert response.json() == error
        # ... and from_httpx reports it as the provider's error, for the streamed request too
        request = {**request, "stream": True}
        async with client.stream("POST", ENDPOINT[provider], json=request) as streamed:
            events = [e async for e in streamcalls.from_httpx(streamed)]
    message = error["error"]["message"]
    code = error["error"]["code"] if provider == "openai" else "invalid_request_error"
    assert events == [
        ProviderError(f"HTTP 400 Bad Request: {message}", code or "invalid_request_error", 400),
        StreamFinished("error", provider_reason="HTTP 400 Bad Request"),
    ]


# -- unknown models ----------------------------------------------------------------------------------


async def test_an_unknown_model_is_a_404_listing_the_recordings() -> None:
    async with replay() as (_, client, _url):
        chat = await client.post(ENDPOINT["openai"], json={"model": "gpt-4o", "messages": [PROMPT]})
        messages = await client.post(
            ENDPOINT["anthropic"], json={"model": "claude-x", "max_tokens": 100, "messages": [PROMPT]}
        )
        unnamed = await client.post(ENDPOINT["openai"], json={"messages": [PROMPT], "stream": True})
    assert chat.status_code == 404
    assert chat.json() == {
        "error": {
            "message": "The model `gpt-4o` does not exist or you do not have access to it. "
            "This replay server has: parallel_calls, plan_and_write, plan_day, thinking_deepseek, thinking_kimi",
            "type": "invalid_request_error",
            "param": None,
            "code": "model_not_found",
        }
    }
    assert messages.status_code == 404
    assert messages.json() == {
        "type": "error",
        "error": {
            "type": "not_found_error",
            "message": "model: claude-x (this replay server has: plan_day, thinking_interleaved, thinking_then_call)",
        },
    }
    assert unnamed.status_code == 200  # no model at all: the provider's first recording
    assert unnamed.headers["x-replay-recording"] == "openai/parallel_calls"


# -- "stream": false ------------------------------------------------------------------------------------


async def test_stream_false_gives_a_chat_completion() -> None:
    async with replay() as (_, client, _url):
        response = await client.post(ENDPOINT["openai"], json={"model": "plan_day", "messages": [PROMPT]})
    assert response.status_code == 200
    weather = '{"city":"Paris","unit":"celsius"}'
    hours = '{"place":"Musée du Louvre","day":"Saturday","lang":"en"}'
    assert response.json() == {
        "id": "chatcmpl-replay-plan_day-1",
        "object": "chat.completion",
        "created": 0,
        "model": "plan_day",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "Let me check the weather in Paris and the Louvre's opening hours for Saturday.",
                    "refusal": None,
                    "tool_calls": [
                        {
                            "id": "call_weather",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": weather},
                        },
                        {
                            "id": "call_hours",
                            "type": "function",
                            "function": {"name": "get_opening_hours", "arguments": hours},
                        },
                    ],
                },
                "logprobs": None,
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 84, "completion_tokens": 61, "total_tokens": 145},
    }


async def test_stream_false_gives_an_anthropic_message() -> None:
    async with replay() as (_, client, _url):
        response = await client.post(
            ENDPOINT["anthropic"],
            json={"model": "thinking_then_call", "max_tokens": 100, "messages": [PROMPT]},
        )
    assert response.status_code == 200
    assert response.json() == {
        "id": "msg_replay_thinking_then_call_1",
        "type": "message",
        "role": "assistant",
        "model": "thinking_then_call",
        "content": [
            {  # with its signature, and the redacted block after it: what the next request sends back
                "type": "thinking",
                "thinking": "The user asks for 27 * 453. I should use the calculator.",
                "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
            },
            {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},
            {"type": "text", "text": "Let me compute that."},
            {
                "type": "tool_use",
                "id": "toolu_calc",
                "name": "calculator",
                "input": {"expression": "27 * 453"},
            },
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 50, "output_tokens": 70},
    }


@pytest.mark.parametrize("key", CONVERSATIONS)
async def test_extract_reads_the_complete_response_of_every_turn(key: str) -> None:
    provider, model = key.split("/")
    async with replay() as (_, client, _url):
        first = await client.post(
            ENDPOINT[provider], json={"model": model, "max_tokens": 100, "messages": [PROMPT]}
        )
        calls = extract(first.json())
        assert calls == first_turn(streamcalls.parse(BUNDLED[key].body))[1]
        messages = history(provider, "", calls)  # type: ignore[arg-type]
        second = await client.post(
            ENDPOINT[provider], json={"model": model, "max_tokens": 100, "messages": messages}
        )
    assert extract(second.json()) == []
    answer = second.json()
    text = (
        answer["choices"][0]["message"]["content"] if provider == "openai" else answer["content"][0]["text"]
    )
    assert [TextDelta(text)] == [e for e in turn_events(key, 2) if isinstance(e, TextDelta)]


async def test_the_sdks_read_the_complete_responses() -> None:
    async with replay() as (_, _client, url):
        async with openai.AsyncOpenAI(base_url=f"{url}/v1", api_key="sk-test", max_retries=0) as chat:
            completion = await chat.chat.completions.create(
                model="parallel_calls", messages=[{"role": "user", "content": "Weather in Paris and Tokyo?"}]
            )
        async with anthropic.AsyncAnthropic(base_url=url, api_key="sk-test", max_retries=0) as claude:
            message = await claude.messages.create(
                model="plan_day", max_tokens=100, messages=[{"role": "user", "content": "Plan my Saturday"}]
            )
    assert [c.id for c in extract(completion)] == ["call_paris", "call_tokyo", "call_time"]
    assert completion.choices[0].finish_reason == "tool_calls"
    assert [c.name for c in extract(message)] == ["get_weather", "get_opening_hours"]
    assert message.stop_reason == "tool_use"
