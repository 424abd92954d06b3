"""Every provider's endpoints on the replay server, over real sockets: the loop, complete answers, 404s.

Every test runs on asyncio and on trio.  For each provider the loop is the
one a user writes: the first request, ``from_httpx(response, provider)``
under ``run_tools`` with typed function tools, ``run.messages(provider)``
appended to the history, the second request -- which the server accepts
and answers with the recording's final answer.  The complete responses
(``stream: false``) are read back with ``extract`` and compared with ones
written out here; refused histories are in tests/integration/test_replay_refusals.py.
"""

from __future__ import annotations

from typing import Any

import msgspec
import openai
import pytest

import streamcalls
from streamcalls import StreamFinished, StreamStarted, TextDelta, ToolCallCompleted, ToolResult, extract
from streamcalls.codec import CodecProviderName
from tests.support import counter_ids, normalize
from tests.support.replaying import (
    ASK,
    BUNDLED,
    PROVIDERS,
    TOOLS,
    complete_text,
    prompt,
    provider_error,
    replay,
    request,
)

pytestmark = pytest.mark.anyio


def expected(provider: str, turn: int) -> list[streamcalls.Event]:
    recording = BUNDLED[f"{provider}/plan_day"].maybe_turn(turn)
    assert recording is not None
    return normalize(streamcalls.parse(recording.body, provider, id_factory=counter_ids()))  # type: ignore[arg-type]


# -- the loop ----------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_tool_loop_runs_to_the_final_answer(provider: CodecProviderName) -> None:
    history: list[Any] = [prompt(provider)]
    async with replay() as (app, client, _):
        path, body = request(provider, history)
        async with client.stream("POST", path, json=body) as response:
            assert response.status_code == 200
            events = streamcalls.from_httpx(response, provider, id_factory=counter_ids())
            async with streamcalls.run_tools(events, TOOLS) as run:
                first = [item async for item in run]
        turn = run.messages(provider)
        history += turn
        path, body = request(provider, history)
        async with client.stream("POST", path, json=body) as response:
            assert response.status_code == 200, await response.aread()
            assert response.headers["x-replay-turn"] == "2"
            second = [e async for e in streamcalls.from_httpx(response, provider, id_factory=counter_ids())]
    assert normalize([e for e in first if not isinstance(e, ToolResult)]) == expected(provider, 1)
    results = sorted((r.name, r.content, r.is_error) for r in first if isinstance(r, ToolResult))
    assert results == [
        ("get_opening_hours", "Musée du Louvre is open 09:00-18:00 on Saturday (en)", False),
        ("get_weather", "sunny and 21 °C in Paris (celsius)", False),
    ]
    assert normalize(second) == expected(provider, 2)
    assert [type(e) for e in normalize(second)] == [StreamStarted, TextDelta, StreamFinished]
    assert isinstance(second[-1], StreamFinished)
    assert second[-1].reason == "stop"
    # The server was sent exactly what run.messages wrote, after the prompt.
    field = {"openai-responses": "input", "gemini": "contents"}.get(provider, "messages")
    assert app.requests[1][field] == [prompt(provider), *turn]


async def test_gemini_without_alt_sse_streams_the_json_array() -> None:
    gemini = BUNDLED["gemini/plan_day"]
    history: list[Any] = [prompt("gemini")]
    async with replay() as (_, client, _url):
        path = "/v1beta/models/plan_day:streamGenerateContent"
        async with client.stream("POST", path, json={"contents": history}) as response:
            assert response.headers["content-type"] == "application/json"
            body = await response.aread()
        async with (
            client.stream("POST", path, json={"contents": history}) as response,
            streamcalls.run_tools(streamcalls.from_httpx(response, "gemini"), TOOLS) as run,
        ):
            [_ async for _ in run]
        history += run.messages("gemini")
        async with client.stream("POST", path, json={"contents": history}) as response:
            answer = [e async for e in streamcalls.from_httpx(response, "gemini")]
    # One JSON array, each element on lines of its own; element for element the SSE recording's chunks.
    assert body.startswith(b"[{\n")
    assert body.count(b"\n,\r\n{") == 5
    assert body.endswith(b"}\n]")
    elements = msgspec.json.decode(body)
    assert [msgspec.json.encode(e) for e in elements] == [
        msgspec.json.encode(msgspec.json.decode(line.removeprefix(b"data: ")))
        for line in gemini.body.splitlines()
        if line.startswith(b"data: ")
    ]
    assert normalize(streamcalls.parse(body, "gemini", id_factory=counter_ids())) == expected("gemini", 1)
    assert normalize(answer) == expected("gemini", 2)


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_stream_false_answers_every_turn_completely_and_extract_reads_it(
    provider: CodecProviderName,
) -> None:
    recording = BUNDLED[f"{provider}/plan_day"]
    async with replay() as (_, client, _url):
        path, body = request(provider, [prompt(provider)], stream=False)
        first = await client.post(path, json=body)
        assert first.status_code == 200
        assert first.headers["content-type"] == "application/json"
        calls = extract(first.json())
        results = [ToolResult(call.id, call.name, f"{call.name}: done") for call in calls]
        sent = [prompt(provider), *_turn(provider, first.json(), calls, results)]
        path, body = request(provider, sent, stream=False)
        second = await client.post(path, json=body)
        assert second.status_code == 200, second.json()
    streamed = [e.call for e in expected(provider, 1) if isinstance(e, ToolCallCompleted)]
    assert [(c.name, c.arguments) for c in calls] == [(c.name, c.arguments) for c in streamed]
    if provider != "gemini":  # Gemini sends no call ids: extract makes its own, as the parser does
        assert [c.id for c in calls] == [c.id for c in streamed]
    assert extract(second.json()) == []
    texts = [e.text for e in expected(provider, 2) if isinstance(e, TextDelta)]
    assert complete_text(second.json(), provider) == "".join(texts)
    assert recording.turns == 2


def _turn(
    provider: CodecProviderName, body: Any, calls: list[streamcalls.ToolCall], results: list[ToolResult]
) -> list[Any]:
    """The next request's messages from a complete response: its text and calls, then the results."""
    text = complete_text(body, provider)
    call = streamcalls.encode_call(calls, provider, text=text or None)
    return [*(call if isinstance(call, list) else [call]), *streamcalls.encode_result(results, provider)]


async def test_ollama_streams_unless_told_not_to() -> None:
    async with replay() as (_, client, _url):
        streamed = await client.post("/api/chat", json={"model": "plan_day", "messages": [prompt("ollama")]})
        complete = await client.post(
            "/api/chat", json={"model": "plan_day", "messages": [prompt("ollama")], "stream": False}
        )
    assert streamed.headers["content-type"] == "application/x-ndjson"
    assert streamed.content == BUNDLED["ollama/plan_day"].body
    assert complete.headers["content-type"] == "application/json"
    assert complete.json()["done"] is True


async def test_a_hold_pauses_a_bedrock_stream_between_two_of_its_messages() -> None:
    body = BUNDLED["bedrock/plan_day"].body
    ends = BUNDLED["bedrock/plan_day"].event_ends()
    async with replay() as (app, client, _url):
        hold = app.hold(10)
        path, sent = request("bedrock", [prompt("bedrock")])
        async with client.stream("POST", path, json=sent) as response:
            received = b""
            chunks = response.aiter_raw()
            while len(received) < ends[9]:
                received += await chunks.__anext__()
            assert received == body[: ends[9]]  # nothing past the tenth message until the release
            hold.release()
            received += b"".join([chunk async for chunk in chunks])
    assert hold.resumed
    assert received == body


# -- complete responses, as each provider shapes them -----------------------------------------------

TEXT = "Let me check the weather in Paris and the Louvre's opening hours for Saturday."
WEATHER = {"city": "Paris", "unit": "celsius"}
HOURS = {"place": "Musée du Louvre", "day": "Saturday", "lang": "en"}
WEATHER_JSON = '{"city":"Paris","unit":"celsius"}'
HOURS_JSON = '{"place":"Musée du Louvre","day":"Saturday","lang":"en"}'
COMPLETE = {
    "openai-responses": {
        "id": "resp_replay_plan_day_1",
        "object": "response",
        "created_at": 0,
        "status": "completed",
        "error": None,
        "incomplete_details": None,
        "model": "plan_day",
        "output": [  # under the ids the stream gave its items
            {
                "id": "msg_demo1",
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "annotations": [], "text": TEXT}],
            },
            {
                "id": "fc_demo_weather",
                "type": "function_call",
                "status": "completed",
                "call_id": "call_weather",
                "name": "get_weather",
                "arguments": WEATHER_JSON,
            },
            {
                "id": "fc_demo_hours",
                "type": "function_call",
                "status": "completed",
                "call_id": "call_hours",
                "name": "get_opening_hours",
                "arguments": HOURS_JSON,
            },
        ],
        "usage": {"input_tokens": 84, "output_tokens": 61, "total_tokens": 145},
    },
    "ollama": {
        "model": "plan_day",
        "created_at": "1970-01-01T00:00:00Z",
        "message": {
            "role": "assistant",
            "content": TEXT,
            "tool_calls": [
                {"id": "call_weather", "function": {"index": 0, "name": "get_weather", "arguments": WEATHER}},
                {
                    "id": "call_hours",
                    "function": {"index": 1, "name": "get_opening_hours", "arguments": HOURS},
                },
            ],
        },
        "done_reason": "stop",
        "done": True,
        "total_duration": 0,
        "load_duration": 0,
        "prompt_eval_count": 84,
        "prompt_eval_duration": 0,
        "eval_count": 61,
        "eval_duration": 0,
    },
    "gemini": {
        "candidates": [
            {
                "content": {
                    "parts": [
                        {"text": TEXT},
                        {  # no id: none was sent; the signature is the stream's, for the next request
                            "functionCall": {"name": "get_weather", "args": WEATHER},
                            "thoughtSignature": "CpUCAcu98PDkNn0cRuGf1xw5Zm2sT4dPqXvE7bWlJ8aK",
                        },
                        {"functionCall": {"name": "get_opening_hours", "args": HOURS}},
                    ],
                    "role": "model",
                },
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {"promptTokenCount": 84, "candidatesTokenCount": 61, "totalTokenCount": 145},
        "modelVersion": "plan_day",
        "responseId": "replay-plan_day-1",
    },
    "bedrock": {
        "output": {
            "message": {
                "role": "assistant",
                "content": [
                    {"text": TEXT},
                    {
                        "toolUse": {
                            "toolUseId": "tooluse_Wq8kB2nRT0yXc4LmP7sJdA",
                            "name": "get_weather",
                            "input": WEATHER,
                        }
                    },
                    {
                        "toolUse": {
                            "toolUseId": "tooluse_Hr5vN1eQZ9uKf3GtY6oMbC",
                            "name": "get_opening_hours",
                            "input": HOURS,
                        }
                    },
                ],
            }
        },
        "stopReason": "tool_use",
        "usage": {"inputTokens": 84, "outputTokens": 61, "totalTokens": 145},
        "metrics": {"latencyMs": 0},
    },
    "cohere": {
        "id": "replay-plan_day-1",
        "finish_reason": "TOOL_CALL",
        "message": {
            "role": "assistant",
            "tool_plan": TEXT,  # Cohere writes its text before calls as the plan
            "tool_calls": [
                {
                    "id": "get_weather_x8k2m4p6q1r3",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": WEATHER_JSON},
                },
                {
                    "id": "get_opening_hours_b7n5c3v1z9w2",
                    "type": "function",
                    "function": {"name": "get_opening_hours", "arguments": HOURS_JSON},
                },
            ],
        },
        "usage": {
            "billed_units": {"input_tokens": 1294, "output_tokens": 73},
            "tokens": {"input_tokens": 1294, "output_tokens": 73},
        },
    },
}


async def test_a_complete_first_turn_in_each_provider_s_shape() -> None:
    async with replay() as (_, client, _url):
        for provider, body in COMPLETE.items():
            path, sent = request(provider, [prompt(provider)], stream=False)
            response = await client.post(path, json=sent)
            assert (response.status_code, response.json()) == (200, body), provider


# -- unknown models -----------------------------------------------------------------------------


async def test_an_unknown_model_is_the_provider_s_404_listing_its_recordings() -> None:
    answers = {}
    async with replay() as (_, client, _url):
        for provider in ("openai-responses", "ollama", "gemini", "bedrock", "cohere"):
            path, body = request(provider, [prompt(provider)], stream=False, model="gpt-9")
            answers[provider] = await client.post(path, json=body)
        path, body = request("gemini", [prompt("gemini")], model="gemini-9")
        streamed = await client.post(path, json=body)
    assert {provider: answer.status_code for provider, answer in answers.items()} == dict.fromkeys(
        answers, 404
    )
    assert answers["openai-responses"].json() == {
        "error": {
            "message": "The model `gpt-9` does not exist or you do not have access to it. "
            "This replay server has: plan_day, thinking_plan_day",
            "type": "invalid_request_error",
            "param": None,
            "code": "model_not_found",
        }
    }
    assert answers["ollama"].json() == {
        "error": "model 'gpt-9' not found (this replay server has: plan_day, thinking_plan_day)"
    }
    assert answers["gemini"].json() == {
        "error": {
            "code": 404,
            "message": "models/gpt-9 is not found for API version v1beta, or is not supported for generateContent. "
            "Call ListModels to see the list of available models and their supported methods. "
            "This replay server has: plan_day, thinking_plan_day",
            "status": "NOT_FOUND",
        }
    }
    assert streamed.json()["error"]["message"].startswith(
        "models/gemini-9 is not found for API version v1beta, or is not supported for streamGenerateContent."
    )
    assert provider_error("bedrock", answers["bedrock"]) == (
        "ResourceNotFoundException",
        "The provided model identifier is invalid. This replay server has: plan_day, thinking_plan_day",
    )
    assert provider_error("cohere", answers["cohere"]) == (
        "model 'gpt-9' not found, make sure the correct model ID was used and that you have access to the model. "
        "This replay server has: plan_day"
    )


async def test_a_bedrock_model_arn_is_read_from_its_percent_encoded_path() -> None:
    arn = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.plan_day"
    async with replay() as (app, client, _url):
        response = await client.post(
            f"/model/{arn.replace(':', '%3A').replace('/', '%2F')}/converse",
            json={"messages": [prompt("bedrock")]},
        )
    assert response.status_code == 404
    assert len(app.requests) == 1
    assert response.headers["x-amzn-errortype"].startswith("ResourceNotFoundException:")


# -- the openai SDK on the Responses endpoint --------------------------------------------------


async def test_the_openai_sdk_runs_the_responses_loop() -> None:
    async with replay() as (_, _client, url):
        sdk = openai.AsyncOpenAI(base_url=f"{url}/v1", api_key="sk-test", max_retries=0)
        async with sdk:
            async with sdk.responses.stream(
                model="plan_day", input=[{"role": "user", "content": ASK}]
            ) as stream:
                kinds = [event.type async for event in stream]
                first = await stream.get_final_response()
            calls = extract(first)
            results = [ToolResult(call.id, call.name, f"{call.name}: done") for call in calls]
            items = [
                {"role": "user", "content": ASK},
                *streamcalls.encode_call(calls, "openai-responses", text=first.output_text),
                *streamcalls.encode_result(results, "openai-responses"),
            ]
            complete = await sdk.responses.create(model="plan_day", input=items)  # type: ignore[arg-type]
    # The SDK's own accumulator rebuilt the response from the events, in its types.
    assert kinds[0] == "response.created"
    assert kinds[-1] == "response.completed"
    assert (
        first.output_text == "Let me check the weather in Paris and the Louvre's opening hours for Saturday."
    )
    assert [(c.id, c.name) for c in calls] == [
        ("call_weather", "get_weather"),
        ("call_hours", "get_opening_hours"),
    ]
    assert complete.status == "completed"
    assert complete.output_text.startswith("Saturday looks good: sunny and 21 °C in Paris.")
    assert extract(complete) == []
