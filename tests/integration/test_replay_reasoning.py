"""Reasoning state in the replay server's tool loops, over real sockets: what must come back, and how.

Every test runs on asyncio and on trio.  For each recording with reasoning,
the next request -- the assistant turn with its reasoning, then the tool
results -- is written out here by hand, as each provider's documentation
says to send it (Anthropic's thinking blocks with their signatures and the
redacted block, in order; Responses' reasoning item before its
function_call items; DeepSeek's and Kimi's ``reasoning_content``;
Bedrock's ``reasoningContent`` with its signature; Gemini's signed call;
Ollama's ``thinking``; Cohere's ``tool_plan``), with the values copied from
the recordings in ``streamcalls/replay/demo_streams``: not by streamcalls'
codec.  The server answers it with the recording's next turn; each broken
variant gets the provider's refusal, in its shape and words (the sources
are in ``streamcalls/providers/<name>/history_rules.py``), read back through the openai and
anthropic SDKs' error types where they apply.

The whole loop -- ``run_tools``, then ``run.messages(provider)`` sent back --
is here too, for every recording with reasoning; it waits for
``streamcalls.encode_turn`` (the codec that carries reasoning back), and is
skipped until it exists.
"""

from __future__ import annotations

import copy
from typing import Any, Final, cast

import anthropic
import openai
import pytest

import streamcalls
from streamcalls import ToolResult
from streamcalls.codec import CodecProviderName
from streamcalls.providers import PROVIDER_NAMES
from tests.support import counter_ids, normalize
from tests.support.replaying import ASK, BUNDLED, TOOLS, prompt, provider_error, replay, request

pytestmark = pytest.mark.anyio

USER: Final = {"role": "user", "content": ASK}
WEATHER: Final = {"city": "Paris", "unit": "celsius"}
HOURS: Final = {"place": "Musée du Louvre", "day": "Saturday", "lang": "en"}
# Arguments as the models wrote them, for the providers that take them as a string.
WEATHER_JSON: Final = '{"city": "Paris", "unit": "celsius"}'
HOURS_JSON: Final = '{"place": "Musée du Louvre", "day": "Saturday", "lang": "en"}'
SUNNY: Final = "sunny and 21 °C"
OPEN: Final = "open 09:00-18:00"

# -- Anthropic: anthropic_thinking_interleaved.sse -------------------------------------------------------

THINK_1: Final = {
    "type": "thinking",
    "thinking": "The user wants a plan for Saturday in Paris. I need the weather first.",
    "signature": "EqoBCkgIBxABGAIiQJ3v8mKf0Wd2sXQ1bN7cR4tYp9LzUe6HjA5oVg",
}
REDACTED: Final = {"type": "redacted_thinking", "data": "EmwKAhgBEgyDq3oZ8Lw1mRtPx2sYaJkVcN"}
SAID: Final = {"type": "text", "text": "I'll check the weather and the Louvre's hours."}
USE_WEATHER: Final = {
    "type": "tool_use",
    "id": "toolu_01WeatherParis",
    "name": "get_weather",
    "input": WEATHER,
}
THINK_2: Final = {
    "type": "thinking",
    "thinking": "Rain would change the plan; the Louvre's hours decide the morning.",
    "signature": "EpgBCkgIBxABGAIiQH7dKq2Lm9Vx4sZa1Rb8Nc3Te5Yf0Wg6Uh2Ji",
}
USE_HOURS: Final = {
    "type": "tool_use",
    "id": "toolu_01HoursLouvre",
    "name": "get_opening_hours",
    "input": HOURS,
}
CLAUDE_RESULTS: Final = {
    "role": "user",
    "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01WeatherParis", "content": SUNNY},
        {"type": "tool_result", "tool_use_id": "toolu_01HoursLouvre", "content": OPEN},
    ],
}
THINKING_ON: Final = {"type": "enabled", "budget_tokens": 1024}


def claude(*blocks: Any, thinking: Any = THINKING_ON, model: str = "thinking_interleaved") -> dict[str, Any]:
    """The request after the calls: the assistant turn holding ``blocks``, then the results."""
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": 2048,
        "stream": True,
        "messages": [USER, {"role": "assistant", "content": list(blocks)}, CLAUDE_RESULTS],
    }
    if thinking is not None:
        body["thinking"] = thinking
    return body


CLAUDE_TURN: Final = (THINK_1, REDACTED, SAID, USE_WEATHER, THINK_2, USE_HOURS)

# anthropic_thinking_then_call.sse: one call, to a calculator
CALC_BLOCKS: Final = (
    {
        "type": "thinking",
        "thinking": "The user asks for 27 * 453. I should use the calculator.",
        "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
    },
    {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},
    {"type": "text", "text": "Let me compute that."},
    {"type": "tool_use", "id": "toolu_calc", "name": "calculator", "input": {"expression": "27 * 453"}},
)


def calculator(*blocks: Any) -> dict[str, Any]:
    result = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_calc", "content": "12231"}],
    }
    return {
        "model": "thinking_then_call",
        "max_tokens": 2048,
        "thinking": THINKING_ON,
        "stream": True,
        "messages": [
            {"role": "user", "content": "What is 27 * 453?"},
            {"role": "assistant", "content": list(blocks)},
            result,
        ],
    }


# -- Bedrock: bedrock_thinking_plan_day.frames.jsonl ------------------------------------------------------

BEDROCK_REASONING: Final = {
    "reasoningContent": {
        "reasoningText": {
            "text": "The user wants a plan for Saturday in Paris. I need the weather and the Louvre's hours.",
            "signature": "EqoBCkgIBxABGAIiQBedrockSig1xQ2VuY3J5cHRlZA",
        }
    }
}
BEDROCK_SAID: Final = {"text": "I'll check both."}
BEDROCK_USES: Final = (
    {"toolUse": {"toolUseId": "tooluse_Th8kB2nRT0yXc4LmP7sJdA", "name": "get_weather", "input": WEATHER}},
    {"toolUse": {"toolUseId": "tooluse_Th5vN1eQZ9uKf3GtY6oMbC", "name": "get_opening_hours", "input": HOURS}},
)
BEDROCK_TOOLS: Final = [
    {"toolSpec": {"name": name, "inputSchema": {"json": {"type": "object"}}}}
    for name in ("get_weather", "get_opening_hours")
]


def converse(*blocks: Any, thinking: bool = True) -> dict[str, Any]:
    results = [
        {"toolResult": {"toolUseId": "tooluse_Th8kB2nRT0yXc4LmP7sJdA", "content": [{"text": SUNNY}]}},
        {"toolResult": {"toolUseId": "tooluse_Th5vN1eQZ9uKf3GtY6oMbC", "content": [{"text": OPEN}]}},
    ]
    body: dict[str, Any] = {
        "messages": [
            {"role": "user", "content": [{"text": ASK}]},
            {"role": "assistant", "content": list(blocks)},
            {"role": "user", "content": results},
        ],
        "toolConfig": {"tools": BEDROCK_TOOLS},
    }
    if thinking:
        body["additionalModelRequestFields"] = {"thinking": THINKING_ON}
    return body


# -- OpenAI Responses: openai-responses_thinking_plan_day.sse ----------------------------------------------

REASONING_ITEM: Final = {
    "type": "reasoning",
    "id": "rs_think1",
    "summary": [
        {
            "type": "summary_text",
            "text": "**Planning Saturday**\n\nThe user wants a day in Paris: check the weather and the Louvre's "
            "Saturday hours.",
        }
    ],
    "encrypted_content": "gAAAAABoK3x9Q2VuY3J5cHRlZC1yZWFzb25pbmctMQ==",
}
CALL_ITEMS: Final = (
    {
        "type": "function_call",
        "id": "fc_think_weather",
        "call_id": "call_weather",
        "name": "get_weather",
        "arguments": WEATHER_JSON,
    },
    {
        "type": "function_call",
        "id": "fc_think_hours",
        "call_id": "call_hours",
        "name": "get_opening_hours",
        "arguments": HOURS_JSON,
    },
)
OUTPUTS: Final = (
    {"type": "function_call_output", "call_id": "call_weather", "output": SUNNY},
    {"type": "function_call_output", "call_id": "call_hours", "output": OPEN},
)


def responses(*items: Any) -> dict[str, Any]:
    return {"model": "thinking_plan_day", "stream": True, "input": [USER, *items, *OUTPUTS]}


# -- DeepSeek and Kimi on the Chat Completions route: openai_thinking_{deepseek,kimi}.sse ------------------

CHAT_REASONING: Final = (
    "The user wants a Saturday plan in Paris. I should check the weather and the Louvre's hours."
)
CHAT_IDS: Final = {
    "thinking_deepseek": ("call_00_Wq8kB2nRT0yXc4LmP7sJdA9e", "call_01_Hr5vN1eQZ9uKf3GtY6oMbC2x"),
    "thinking_kimi": ("functions.get_weather:0", "functions.get_opening_hours:1"),
}


def chat(model: str, reasoning: str | None = CHAT_REASONING) -> dict[str, Any]:
    """DeepSeek's guide: the assistant message as it came (``content``, ``reasoning_content``, ``tool_calls``)."""
    weather, hours = CHAT_IDS[model]
    assistant: dict[str, Any] = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": weather,
                "type": "function",
                "function": {"name": "get_weather", "arguments": WEATHER_JSON},
            },
            {
                "id": hours,
                "type": "function",
                "function": {"name": "get_opening_hours", "arguments": HOURS_JSON},
            },
        ],
    }
    if reasoning is not None:
        assistant["reasoning_content"] = reasoning
    results = [
        {"role": "tool", "tool_call_id": weather, "content": SUNNY},
        {"role": "tool", "tool_call_id": hours, "content": OPEN},
    ]
    return {"model": model, "stream": True, "messages": [USER, assistant, *results]}


# -- Gemini: gemini_thinking_plan_day.sse ------------------------------------------------------------------

GEMINI_THOUGHT: Final = {
    "text": "**Planning the day**\n\nThe user wants Saturday in Paris: the weather and the Louvre's hours.",
    "thought": True,
}
GEMINI_SIGNATURE: Final = "CiQBcsjafD3kPbGh7mNq2vXw0yTzR1sU4oLe8aKc5jHn6iBd9fM="


def gemini(signature: str | None = GEMINI_SIGNATURE) -> dict[str, Any]:
    first: dict[str, Any] = {"functionCall": {"name": "get_weather", "args": WEATHER}}
    if signature is not None:
        first["thoughtSignature"] = signature
    calls = {
        "role": "model",
        "parts": [GEMINI_THOUGHT, first, {"functionCall": {"name": "get_opening_hours", "args": HOURS}}],
    }
    responses = {
        "role": "user",
        "parts": [
            {"functionResponse": {"name": "get_weather", "response": {"result": SUNNY}}},
            {"functionResponse": {"name": "get_opening_hours", "response": {"result": OPEN}}},
        ],
    }
    return {"contents": [{"role": "user", "parts": [{"text": ASK}]}, calls, responses]}


# -- Ollama: ollama_thinking_plan_day.ndjson ----------------------------------------------------------------


def ollama(thinking: Any = CHAT_REASONING) -> dict[str, Any]:
    """Ollama's thinking guide: the assistant message keeps its ``thinking``; a tool message names its tool."""
    assistant = {
        "role": "assistant",
        "content": "",
        "thinking": thinking,
        "tool_calls": [
            {"function": {"name": "get_weather", "arguments": WEATHER}},
            {"function": {"name": "get_opening_hours", "arguments": HOURS}},
        ],
    }
    results = [
        {"role": "tool", "tool_name": "get_weather", "content": SUNNY},
        {"role": "tool", "tool_name": "get_opening_hours", "content": OPEN},
    ]
    return {"model": "thinking_plan_day", "think": True, "messages": [USER, assistant, *results]}


# -- Cohere: cohere_plan_day.sse (its tool plan) ---------------------------------------------------------------

COHERE_NEXT: Final = {
    "model": "plan_day",
    "stream": True,
    "messages": [
        USER,
        {
            "role": "assistant",
            "tool_plan": "Let me check the weather in Paris and the Louvre's opening hours for Saturday.",
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
        {"role": "tool", "tool_call_id": "get_weather_x8k2m4p6q1r3", "content": SUNNY},
        {"role": "tool", "tool_call_id": "get_opening_hours_b7n5c3v1z9w2", "content": OPEN},
    ],
}

# (recording, what, path, the next request as the provider's documentation writes it)
ACCEPTED: list[tuple[str, str, str, dict[str, Any]]] = [
    ("anthropic/thinking_interleaved", "every block, in order", "/v1/messages", claude(*CLAUDE_TURN)),
    (
        "anthropic/thinking_interleaved",
        "thinking off: nothing to carry",
        "/v1/messages",
        claude(SAID, USE_WEATHER, USE_HOURS, thinking=None),
    ),
    ("anthropic/thinking_then_call", "every block, in order", "/v1/messages", calculator(*CALC_BLOCKS)),
    (
        "bedrock/thinking_plan_day",
        "reasoningContent with its signature",
        "/model/thinking_plan_day/converse-stream",
        converse(BEDROCK_REASONING, BEDROCK_SAID, *BEDROCK_USES),
    ),
    (
        "bedrock/thinking_plan_day",
        "thinking off: nothing to carry",
        "/model/thinking_plan_day/converse-stream",
        converse(BEDROCK_SAID, *BEDROCK_USES, thinking=False),
    ),
    (
        "openai-responses/thinking_plan_day",
        "the reasoning item before the calls",
        "/v1/responses",
        responses(REASONING_ITEM, *CALL_ITEMS),
    ),
    (
        "openai-responses/thinking_plan_day",
        "calls without their item ids: nothing links them to a reasoning item",
        "/v1/responses",
        responses(*[{k: v for k, v in item.items() if k != "id"} for item in CALL_ITEMS]),
    ),
    ("openai/thinking_deepseek", "reasoning_content", "/v1/chat/completions", chat("thinking_deepseek")),
    ("openai/thinking_kimi", "reasoning_content", "/v1/chat/completions", chat("thinking_kimi")),
    (
        "gemini/thinking_plan_day",
        "the thought and the signed call",
        "/v1beta/models/thinking_plan_day:streamGenerateContent?alt=sse",
        gemini(),
    ),
    ("ollama/thinking_plan_day", "thinking", "/api/chat", ollama()),
    ("ollama/thinking_plan_day", "no thinking: Ollama checks none", "/api/chat", ollama(thinking=None)),
    ("cohere/plan_day", "the tool plan", "/v2/chat", COHERE_NEXT),
]


def _events(key: str, body: bytes) -> list[streamcalls.Event]:
    provider = key.partition("/")[0]
    return normalize(streamcalls.parse(body, provider, id_factory=counter_ids()))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("key", "path", "body"),
    [pytest.param(key, path, body, id=f"{key}: {what}") for key, what, path, body in ACCEPTED],
)
async def test_the_next_request_the_documentation_writes_gets_the_next_turn(
    key: str, path: str, body: dict[str, Any]
) -> None:
    async with replay() as (app, client, _url), client.stream("POST", path, json=body) as response:
        streamed = await response.aread()
    assert response.status_code == 200, streamed
    assert response.headers["x-replay-recording"] == key
    assert response.headers["x-replay-turn"] == "2"
    second = BUNDLED[key].maybe_turn(2)
    assert second is not None
    assert _events(key, streamed) == _events(key, second.body)
    assert app.requests == [body]


def anthropic_error(message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}


def thinking_first(index: int, found: str) -> str:
    return (
        f"messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{found}`. When "
        "`thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the "
        "lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from "
        "previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at "
        "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
    )


def edited(block: dict[str, Any], **changes: str) -> dict[str, Any]:
    return {**block, **changes}


MODEL_ERRORS: Final = "The model returned the following errors: "
GEMINI_MISSING: Final = (
    "Function call is missing a thought_signature in functionCall parts. This is required for tools to work "
    "correctly, and missing thought_signature may lead to degraded model performance. Additional data, function "
    "call `default_api:get_weather` , position 2. Please refer to "
    "https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
)

# (recording's provider, what, path, the broken next request, the error as provider_error gives it)
REFUSED: list[tuple[str, str, str, dict[str, Any], Any]] = [
    (
        "anthropic",
        "the thinking blocks dropped",
        "/v1/messages",
        claude(SAID, USE_WEATHER, USE_HOURS),
        anthropic_error(thinking_first(1, "text")),
    ),
    (
        "anthropic",
        "only the calls sent back",
        "/v1/messages",
        claude(USE_WEATHER, USE_HOURS),
        anthropic_error(thinking_first(1, "tool_use")),
    ),
    (
        "anthropic",
        "the text moved before the thinking",
        "/v1/messages",
        claude(SAID, THINK_1, REDACTED, USE_WEATHER, THINK_2, USE_HOURS),
        anthropic_error(thinking_first(1, "text")),
    ),
    (
        "anthropic",
        "a signature changed",
        "/v1/messages",
        claude(edited(THINK_1, signature="EqoBforged"), REDACTED, SAID, USE_WEATHER, THINK_2, USE_HOURS),
        anthropic_error("messages.1.content.0: Invalid `signature` in `thinking` block"),
    ),
    (
        "anthropic",
        "the thinking text re-written",
        "/v1/messages",
        claude(
            edited(THINK_1, thinking="I need the weather."), REDACTED, SAID, USE_WEATHER, THINK_2, USE_HOURS
        ),
        anthropic_error("messages.1.content.0: Invalid `signature` in `thinking` block"),
    ),
    (
        "anthropic",
        "the redacted block dropped",
        "/v1/messages",
        claude(THINK_1, SAID, USE_WEATHER, THINK_2, USE_HOURS),
        anthropic_error("messages.1.content.3: Invalid `signature` in `thinking` block"),
    ),
    (
        "anthropic",
        "the signature left empty (a client that rebuilt the block)",
        "/v1/messages",
        calculator(edited(CALC_BLOCKS[0], signature=""), *CALC_BLOCKS[1:]),
        anthropic_error("messages.1.content.0: Invalid `signature` in `thinking` block"),
    ),
    (
        "bedrock",
        "the reasoning dropped",
        "/model/thinking_plan_day/converse",
        converse(BEDROCK_SAID, *BEDROCK_USES),
        ("ValidationException", MODEL_ERRORS + thinking_first(1, "text")),
    ),
    (
        "bedrock",
        "the signature dropped",
        "/model/thinking_plan_day/converse",
        converse(
            {
                "reasoningContent": {
                    "reasoningText": {"text": BEDROCK_REASONING["reasoningContent"]["reasoningText"]["text"]}
                }
            },
            BEDROCK_SAID,
            *BEDROCK_USES,
        ),
        (
            "ValidationException",
            MODEL_ERRORS + "messages.1.content.0: Invalid `signature` in `thinking` block",
        ),
    ),
    (
        "openai-responses",
        "the reasoning item dropped",
        "/v1/responses",
        responses(*CALL_ITEMS),
        {
            "error": {
                "message": "Item 'fc_think_weather' of type 'function_call' was provided without its required "
                "'reasoning' item: 'rs_think1'.",
                "type": "invalid_request_error",
                "param": "input",
                "code": None,
            }
        },
    ),
    (
        "openai",
        "DeepSeek without reasoning_content",
        "/v1/chat/completions",
        chat("thinking_deepseek", reasoning=None),
        {
            "error": {
                "message": "The reasoning_content in the thinking mode must be passed back to the API.",
                "type": "invalid_request_error",
                "param": None,
                "code": "invalid_request_error",
            }
        },
    ),
    (
        "openai",
        "Kimi without reasoning_content",
        "/v1/chat/completions",
        chat("thinking_kimi", reasoning=None),
        {
            "error": {
                "message": "thinking is enabled but reasoning_content is missing in assistant tool call message at "
                "index 1",
                "type": "invalid_request_error",
            }
        },
    ),
    (
        "gemini",
        "the signature dropped",
        "/v1beta/models/thinking_plan_day:generateContent",
        gemini(signature=None),
        {"error": {"code": 400, "message": GEMINI_MISSING, "status": "INVALID_ARGUMENT"}},
    ),
    (
        "gemini",
        "another signature",
        "/v1beta/models/thinking_plan_day:generateContent",
        gemini(signature="CiQBotherSignature"),
        {"error": {"code": 400, "message": "Corrupted thought signature.", "status": "INVALID_ARGUMENT"}},
    ),
    (
        "ollama",
        "thinking sent back as an object",
        "/api/chat",
        ollama(thinking={"text": CHAT_REASONING}),
        {
            "error": "json: cannot unmarshal object into Go struct field ChatRequest.messages.thinking of type string"
        },
    ),
]


@pytest.mark.parametrize(
    ("provider", "path", "body", "error"),
    [
        pytest.param(provider, path, body, error, id=f"{provider}: {what}")
        for provider, what, path, body, error in REFUSED
    ],
)
async def test_a_next_request_that_lost_its_reasoning_gets_the_provider_s_400(
    provider: str, path: str, body: dict[str, Any], error: Any
) -> None:
    async with replay() as (_, client, _url):
        response = await client.post(path, json=body)
    assert response.status_code == 400
    assert provider_error(provider, response) == error


async def test_the_sdks_read_the_reasoning_refusals_as_their_own_error_types() -> None:
    async with replay() as (_, _client, url):
        async with anthropic.AsyncAnthropic(base_url=url, api_key="sk-test", max_retries=0) as claude_sdk:
            for provider, _what, _path, body, error in REFUSED:
                if provider == "anthropic":
                    with pytest.raises(anthropic.BadRequestError) as caught:
                        await claude_sdk.post("/v1/messages", cast_to=object, body={**body, "stream": False})
                    assert caught.value.body == error
        async with openai.AsyncOpenAI(base_url=f"{url}/v1", api_key="sk-test", max_retries=0) as sdk:
            for provider, _what, path, body, error in REFUSED:
                if provider in ("openai", "openai-responses"):
                    with pytest.raises(openai.BadRequestError) as refused:
                        await sdk.post(
                            path.removeprefix("/v1"), cast_to=object, body={**body, "stream": False}
                        )
                    assert refused.value.body == error["error"]
                    assert refused.value.code == error["error"].get("code")


async def test_a_new_prompt_after_the_answer_needs_no_thinking_blocks_back() -> None:
    """The rule is the tool loop's: once the turn ended in an answer, a new prompt starts without it."""
    body = claude(SAID, USE_WEATHER, USE_HOURS)
    body["messages"] += [{"role": "assistant", "content": "Saturday looks good."}, USER]
    async with replay() as (_, client, _url), client.stream("POST", "/v1/messages", json=body) as response:
        await response.aread()
    assert response.status_code == 200
    assert response.headers["x-replay-turn"] == "1"


async def test_deepseek_without_thinking_mode_needs_no_reasoning_content() -> None:
    body = chat("thinking_deepseek", reasoning=None)
    async with replay() as (_, client, _url):
        refused = await client.post("/v1/chat/completions", json=body)
        accepted = await client.post(
            "/v1/chat/completions", json={**body, "thinking": {"type": "disabled"}, "stream": False}
        )
    assert refused.status_code == 400
    assert accepted.status_code == 200


async def test_the_complete_responses_carry_what_the_next_request_sends_back() -> None:
    """``stream: false`` answers hold the signed and encrypted reasoning, so a non-streaming loop can send it back."""
    async with replay() as (_, client, _url):
        claude_first = await client.post(
            "/v1/messages",
            json={
                "model": "thinking_interleaved",
                "max_tokens": 2048,
                "thinking": THINKING_ON,
                "messages": [USER],
            },
        )
        responses_first = await client.post(
            "/v1/responses", json={"model": "thinking_plan_day", "input": [USER]}
        )
        bedrock_first = await client.post(
            "/model/thinking_plan_day/converse",
            json={"messages": [{"role": "user", "content": [{"text": ASK}]}]},
        )
    assert claude_first.json()["content"] == list(CLAUDE_TURN)
    assert responses_first.json()["output"][0] == {**REASONING_ITEM, "type": "reasoning"}
    assert [item["id"] for item in responses_first.json()["output"]] == [
        "rs_think1",
        "fc_think_weather",
        "fc_think_hours",
    ]
    assert bedrock_first.json()["output"]["message"]["content"] == [
        BEDROCK_REASONING,
        BEDROCK_SAID,
        *BEDROCK_USES,
    ]


# -- the whole loop: run.messages(provider) is accepted for every recording with reasoning -------------------

ENCODE_TURN_MISSING: Final = not hasattr(streamcalls, "encode_turn")
KIMI: Final = cast(
    "CodecProviderName", next((name for name in ("kimi", "moonshot") if name in PROVIDER_NAMES), "openai")
)


def calculator_tool(expression: str) -> str:
    """Evaluate an arithmetic expression."""
    return "12231" if expression == "27 * 453" else "?"


# (recording, the codec's name for its server, the tools)
LOOPS: list[tuple[str, CodecProviderName, list[Any]]] = [
    ("anthropic/thinking_interleaved", "anthropic", TOOLS),
    ("anthropic/thinking_then_call", "anthropic", [calculator_tool]),
    ("openai-responses/thinking_plan_day", "openai-responses", TOOLS),
    ("openai/thinking_deepseek", "deepseek", TOOLS),
    ("openai/thinking_kimi", KIMI, TOOLS),
    ("bedrock/thinking_plan_day", "bedrock", TOOLS),
    ("gemini/thinking_plan_day", "gemini", TOOLS),
    ("ollama/thinking_plan_day", "ollama", TOOLS),
    ("cohere/plan_day", "cohere", TOOLS),
]


def with_thinking(provider: str, body: dict[str, Any]) -> dict[str, Any]:
    """A request with thinking on, where the provider has a switch for it."""
    body = copy.deepcopy(body)
    if provider == "anthropic":
        body.update(max_tokens=2048, thinking=THINKING_ON)
    elif provider == "bedrock":
        body["additionalModelRequestFields"] = {"thinking": THINKING_ON}
    elif provider == "ollama":
        body["think"] = True
    return body


@pytest.mark.skipif(
    ENCODE_TURN_MISSING,
    reason="waits for streamcalls.encode_turn: run.messages does not carry reasoning state back yet",
)
@pytest.mark.parametrize(("key", "codec", "tools"), LOOPS, ids=[key for key, _, _ in LOOPS])
async def test_run_messages_of_every_reasoning_recording_is_accepted(
    key: str, codec: CodecProviderName, tools: list[Any]
) -> None:
    provider, model = key.split("/")
    history: list[Any] = [prompt(provider)]
    async with replay() as (app, client, _):
        path, body = request(provider, history, model=model)
        async with client.stream("POST", path, json=with_thinking(provider, body)) as response:
            assert response.status_code == 200
            events = streamcalls.from_httpx(response, provider, id_factory=counter_ids())  # type: ignore[arg-type]
            async with streamcalls.run_tools(events, tools) as run:
                first = [item async for item in run]
        assert [item for item in first if isinstance(item, ToolResult)]
        history += run.messages(codec)
        path, body = request(provider, history, model=model)
        async with client.stream("POST", path, json=with_thinking(provider, body)) as response:
            answer = await response.aread()
            assert response.status_code == 200, answer
            assert response.headers["x-replay-turn"] == "2"
    second = BUNDLED[key].maybe_turn(2)
    assert second is not None
    assert _events(key, answer) == _events(key, second.body)
    assert len(app.requests) == 2
