"""The request fields the replay server refuses as each provider does, over real sockets.

Every test runs on asyncio and on trio.  Each request below is written by
hand with one mistake clients make (a missing ``max_tokens``, tools in
another provider's shape, ``"stream": "yes"``, a call id the provider does
not take); the expected bodies are written out here in each provider's
error shape and wording, reviewed by eye against the sources quoted in
``streamcalls/providers/<name>/request_rules.py`` and ``history_rules.py``.  OpenAI's
and Anthropic's refusals are also read back through their official SDKs'
error types.  Each refused request has a twin, fixed, that is accepted.
"""

from __future__ import annotations

import typing
from typing import Any, Final

import anthropic
import openai
import pytest

from streamcalls.providers.anthropic.request_rules import SERVER_TOOLS
from streamcalls.testing import ReplayApp, load_recordings, serve
from tests.support import DATA
from tests.support.replaying import ASK, BUNDLED, provider_error, replay

pytestmark = pytest.mark.anyio

WEATHER_SCHEMA: Final = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
CHAT_TOOL: Final[dict[str, Any]] = {
    "type": "function",
    "function": {"name": "get_weather", "parameters": WEATHER_SCHEMA},
}
FLAT_TOOL: Final = {"type": "function", "name": "get_weather", "parameters": WEATHER_SCHEMA}
CLAUDE_TOOL: Final = {"name": "get_weather", "input_schema": WEATHER_SCHEMA}
GEMINI_DECLARATION: Final = {"name": "get_weather", "parametersJsonSchema": WEATHER_SCHEMA}
BEDROCK_TOOL: Final = {"toolSpec": {"name": "get_weather", "inputSchema": {"json": WEATHER_SCHEMA}}}
USER: Final = {"role": "user", "content": ASK}


def openai_error(message: str, param: str | None, code: str | None) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}


def anthropic_error(message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}


def gemini_error(*violations: tuple[str | None, str]) -> dict[str, Any]:
    shown = [
        {"description": text} if field is None else {"field": field, "description": text}
        for field, text in violations
    ]
    error = {
        "code": 400,
        "message": "\n".join(text for _, text in violations),
        "status": "INVALID_ARGUMENT",
        "details": [{"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": shown}],
    }
    return {"error": error}


def claude(**fields: Any) -> dict[str, Any]:
    return {"model": "plan_day", "max_tokens": 1024, "messages": [USER], **fields}


def chat(**fields: Any) -> dict[str, Any]:
    return {"model": "plan_day", "messages": [USER], **fields}


def responses(**fields: Any) -> dict[str, Any]:
    return {"model": "plan_day", "input": ASK, **fields}


def ollama(**fields: Any) -> dict[str, Any]:
    return {"model": "plan_day", "messages": [USER], "stream": False, **fields}


def gemini(**fields: Any) -> dict[str, Any]:
    return {"contents": [{"role": "user", "parts": [{"text": ASK}]}], **fields}


def converse(*tools: Any, messages: list[Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"messages": messages or [{"role": "user", "content": [{"text": ASK}]}]}
    if tools:
        body["toolConfig"] = {"tools": list(tools)}
    return body


def cohere(**fields: Any) -> dict[str, Any]:
    return {"model": "plan_day", "messages": [USER], **fields}


PATHS = {
    "openai": "/v1/chat/completions",
    "openai-responses": "/v1/responses",
    "anthropic": "/v1/messages",
    "ollama": "/api/chat",
    "gemini": "/v1beta/models/plan_day:generateContent",
    "bedrock": "/model/plan_day/converse",
    "cohere": "/v2/chat",
}
LONG_ID: Final = "call_" + "x" * 36  # 41 characters
BEDROCK_ID_PATH: Final = "messages.2.member.content.1.member.toolUse.toolUseId"
TAGS: Final = ", ".join(f"'{tag}'" for tag in sorted((*SERVER_TOOLS, "custom")))
UNKNOWN: Final = 'Invalid JSON payload received. Unknown name "{name}"{at}: Cannot find field.'

# (provider, what, refused request, its fix, status, the error: a body, Bedrock's (exception, message), Cohere's message)
CASES: list[tuple[str, str, dict[str, Any], dict[str, Any], int, Any]] = [
    (
        "anthropic",
        "no max_tokens",
        {"model": "plan_day", "messages": [USER]},
        claude(),
        400,
        anthropic_error("max_tokens: Field required"),
    ),
    (
        "anthropic",
        "tools that are not a list",
        claude(tools="nonsense"),
        claude(tools=[CLAUDE_TOOL]),
        400,
        anthropic_error("tools: Input should be a valid list"),
    ),
    (
        "anthropic",
        "an OpenAI tool",
        claude(tools=[CHAT_TOOL]),
        claude(tools=[CLAUDE_TOOL]),
        400,
        anthropic_error(
            f"tools.0: Input tag 'function' found using 'type' does not match any of the expected tags: {TAGS}"
        ),
    ),
    (
        "anthropic",
        "a tool without its input_schema",
        claude(tools=[{"name": "get_weather", "parameters": WEATHER_SCHEMA}]),
        claude(tools=[{"type": "custom", **CLAUDE_TOOL}]),
        400,
        anthropic_error("tools.0.custom.input_schema: Field required"),
    ),
    (
        "anthropic",
        "an input_schema without a type",
        claude(tools=[{"name": "get_weather", "input_schema": {"properties": {}}}]),
        claude(tools=[{"name": "get_weather", "input_schema": {"type": "object"}}]),
        400,
        anthropic_error("tools.0.custom.input_schema.type: Field required"),
    ),
    (
        "anthropic",
        "a tool name with a dot",
        claude(tools=[{**CLAUDE_TOOL, "name": "weather.get"}]),
        claude(tools=[{**CLAUDE_TOOL, "name": "weather_get"}]),
        400,
        anthropic_error("tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"),
    ),
    (
        "anthropic",
        "a tool_use id with a colon",
        claude(
            messages=[
                USER,
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "functions.get_weather:0",
                            "name": "get_weather",
                            "input": {},
                        }
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "functions.get_weather:0", "content": "sunny"}
                    ],
                },
            ]
        ),
        claude(
            messages=[
                USER,
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "functions_get_weather_0",
                            "name": "get_weather",
                            "input": {},
                        }
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "functions_get_weather_0", "content": "sunny"}
                    ],
                },
            ]
        ),
        400,
        anthropic_error("messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"),
    ),
    (
        "anthropic",
        "a thinking budget as large as max_tokens",
        claude(thinking={"type": "enabled", "budget_tokens": 1024}),
        claude(thinking={"type": "enabled", "budget_tokens": 1023}),
        400,
        anthropic_error(
            "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at "
            "https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size"
        ),
    ),
    (
        "openai",
        "stream that is not a boolean",
        chat(stream="yes"),
        chat(stream=False),
        400,
        openai_error(
            "Invalid type for 'stream': expected a boolean, but got a string instead.",
            "stream",
            "invalid_type",
        ),
    ),
    (
        "openai",
        "tools that are not a list",
        chat(tools="nonsense"),
        chat(tools=[CHAT_TOOL]),
        400,
        openai_error(
            "Invalid type for 'tools': expected an array, but got a string instead.", "tools", "invalid_type"
        ),
    ),
    (
        "openai",
        "a tool without its type",
        chat(tools=[{"function": CHAT_TOOL["function"]}]),
        chat(tools=[CHAT_TOOL]),
        400,
        openai_error(
            "Missing required parameter: 'tools[0].type'.", "tools[0].type", "missing_required_parameter"
        ),
    ),
    (
        "openai",
        "a Responses tool",
        chat(tools=[FLAT_TOOL]),
        chat(tools=[CHAT_TOOL]),
        400,
        openai_error(
            "Missing required parameter: 'tools[0].function'.",
            "tools[0].function",
            "missing_required_parameter",
        ),
    ),
    (
        "openai",
        "a call id of 41 characters",
        chat(
            messages=[
                USER,
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": LONG_ID,
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": "{}"},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": LONG_ID, "content": "sunny"},
                {"role": "assistant", "content": "Sunny."},
                USER,
            ]
        ),
        chat(
            messages=[
                USER,
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": LONG_ID[:40],
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": "{}"},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": LONG_ID[:40], "content": "sunny"},
                {"role": "assistant", "content": "Sunny."},
                USER,
            ]
        ),
        400,
        openai_error(
            "Invalid 'messages[1].tool_calls[0].id': string too long. Expected a string with maximum length 40, "
            "but got a string with length 41 instead.",
            "messages[1].tool_calls[0].id",
            "string_above_max_length",
        ),
    ),
    (
        "openai-responses",
        "stream that is not a boolean",
        responses(stream=1),
        responses(stream=False),
        400,
        openai_error(
            "Invalid type for 'stream': expected a boolean, but got a number instead.",
            "stream",
            "invalid_type",
        ),
    ),
    (
        "openai-responses",
        "a Chat Completions tool",
        responses(tools=[CHAT_TOOL]),
        responses(tools=[FLAT_TOOL]),
        400,
        openai_error(
            "Missing required parameter: 'tools[0].name'.", "tools[0].name", "missing_required_parameter"
        ),
    ),
    (
        "gemini",
        "a stream field",
        gemini(stream=True),
        gemini(),
        400,
        gemini_error((None, UNKNOWN.format(name="stream", at=""))),
    ),
    (
        "gemini",
        "declarations wrapped twice in functionDeclarations",
        gemini(tools=[{"functionDeclarations": [{"functionDeclarations": [GEMINI_DECLARATION]}]}]),
        gemini(tools=[{"functionDeclarations": [GEMINI_DECLARATION]}]),
        400,
        gemini_error(
            (
                "tools[0].function_declarations[0]",
                UNKNOWN.format(name="functionDeclarations", at=" at 'tools[0].function_declarations[0]'"),
            )
        ),
    ),
    (
        "gemini",
        "an OpenAI tool",
        gemini(tools=[CHAT_TOOL]),
        gemini(tools=[{"function_declarations": [GEMINI_DECLARATION]}]),
        400,
        gemini_error(
            ("tools[0]", UNKNOWN.format(name="type", at=" at 'tools[0]'")),
            ("tools[0]", UNKNOWN.format(name="function", at=" at 'tools[0]'")),
        ),
    ),
    (
        "gemini",
        "tools that are a string",
        gemini(tools="nonsense"),
        gemini(tools={"functionDeclarations": [GEMINI_DECLARATION]}),  # one object reads as a list of one
        400,
        gemini_error(
            (
                "tools",
                "Invalid value at 'tools' (type.googleapis.com/google.ai.generativelanguage.v1beta.Tool), "
                '"nonsense"',
            )
        ),
    ),
    (
        "ollama",
        "stream that is not a boolean",
        ollama(stream="yes"),
        ollama(stream=False),
        400,
        {"error": "json: cannot unmarshal string into Go struct field ChatRequest.stream of type bool"},
    ),
    (
        "ollama",
        "tools that are a string",
        ollama(tools="nonsense"),
        ollama(tools=[CHAT_TOOL]),
        400,
        {"error": "json: cannot unmarshal string into Go struct field ChatRequest.tools of type api.Tools"},
    ),
    (
        "ollama",
        "a tool whose function is its name",
        ollama(tools=[{"type": "function", "function": "get_weather"}]),
        ollama(tools=[{"type": "function", "function": {"name": "get_weather"}}]),
        400,
        {
            "error": "json: cannot unmarshal string into Go struct field ChatRequest.tools.function of type "
            "api.ToolFunction"
        },
    ),
    (
        "ollama",
        "a think level Ollama does not have",
        ollama(think="very"),
        ollama(think="high"),
        400,
        {"error": 'invalid think value: "very" (must be "high", "medium", "low", "max", true, or false)'},
    ),
    (
        "ollama",
        "thinking sent back as a list",
        ollama(messages=[USER, {"role": "assistant", "content": "", "thinking": ["plan"]}, USER]),
        ollama(messages=[USER, {"role": "assistant", "content": "", "thinking": "plan"}, USER]),
        400,
        {
            "error": "json: cannot unmarshal array into Go struct field ChatRequest.messages.thinking of type string"
        },
    ),
    (
        "bedrock",
        "a tool name with a space and no input schema",
        converse({"toolSpec": {"name": "get weather"}}),
        converse(BEDROCK_TOOL),
        400,
        (
            "ValidationException",
            "2 validation errors detected: Value null at 'toolConfig.tools.1.member.toolSpec.inputSchema' failed "
            "to satisfy constraint: Member must not be null; Value 'get weather' at "
            "'toolConfig.tools.1.member.toolSpec.name' failed to satisfy constraint: Member must satisfy regular "
            "expression pattern: [a-zA-Z0-9_-]+",
        ),
    ),
    (
        "bedrock",
        "a toolUseId of 65 characters with a slash",
        converse(
            BEDROCK_TOOL,
            messages=[
                {"role": "user", "content": [{"text": ASK}]},
                {
                    "role": "assistant",
                    "content": [
                        {"toolUse": {"toolUseId": "a/" + "b" * 63, "name": "get_weather", "input": {}}}
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"toolResult": {"toolUseId": "a/" + "b" * 63, "content": [{"text": "sunny"}]}}
                    ],
                },
                {"role": "assistant", "content": [{"text": "Sunny."}]},
                {"role": "user", "content": [{"text": ASK}]},
            ],
        ),
        converse(
            BEDROCK_TOOL,
            messages=[
                {"role": "user", "content": [{"text": ASK}]},
                {
                    "role": "assistant",
                    "content": [
                        {"toolUse": {"toolUseId": "a:" + "b" * 62, "name": "get_weather", "input": {}}}
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"toolResult": {"toolUseId": "a:" + "b" * 62, "content": [{"text": "sunny"}]}}
                    ],
                },
                {"role": "assistant", "content": [{"text": "Sunny."}]},
                {"role": "user", "content": [{"text": ASK}]},
            ],
        ),
        400,
        (
            "ValidationException",
            f"4 validation errors detected: Value '{'a/' + 'b' * 63}' at '{BEDROCK_ID_PATH}' failed to satisfy "
            "constraint: Member must have length less than or equal to 64; "
            f"Value '{'a/' + 'b' * 63}' at '{BEDROCK_ID_PATH}' failed to satisfy constraint: Member must satisfy "
            "regular expression pattern: [a-zA-Z0-9_.:-]+; "
            f"Value '{'a/' + 'b' * 63}' at 'messages.3.member.content.1.member.toolResult.toolUseId' failed to "
            "satisfy constraint: Member must have length less than or equal to 64; "
            f"Value '{'a/' + 'b' * 63}' at 'messages.3.member.content.1.member.toolResult.toolUseId' failed to "
            "satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.:-]+",
        ),
    ),
    (
        "cohere",
        "an OpenAI tool's strict",
        cohere(tools=[{"type": "function", "function": {**CHAT_TOOL["function"], "strict": True}}]),
        cohere(tools=[CHAT_TOOL]),
        422,
        "unknown field: parameter 'strict' is not a valid field. For proper usage, please refer to "
        "https://docs.cohere.com/reference/chat",
    ),
    (
        "cohere",
        "a field Cohere does not have",
        cohere(stream_options={"include_usage": True}),
        cohere(),
        422,
        "unknown field: parameter 'stream_options' is not a valid field. For proper usage, please refer to "
        "https://docs.cohere.com/reference/chat",
    ),
]


def cases() -> list[Any]:
    return [
        pytest.param(provider, refused, fixed, status, error, id=f"{provider}: {what}")
        for provider, what, refused, fixed, status, error in CASES
    ]


@pytest.mark.parametrize(("provider", "refused", "fixed", "status", "error"), cases())
async def test_a_request_the_provider_refuses_gets_its_error_and_its_fix_is_answered(
    provider: str, refused: dict[str, Any], fixed: dict[str, Any], status: int, error: Any
) -> None:
    async with replay() as (app, client, _):
        response = await client.post(PATHS[provider], json=refused)
        answered = await client.post(PATHS[provider], json=fixed)
    assert response.status_code == status
    assert provider_error(provider, response) == error
    assert answered.status_code == 200, answered.text
    assert app.requests == [refused, fixed]


async def test_the_sdks_read_the_refusals_as_their_own_error_types() -> None:
    async with replay() as (_, _client, url):
        async with openai.AsyncOpenAI(base_url=f"{url}/v1", api_key="sk-test", max_retries=0) as sdk:
            for provider, _what, refused, _fixed, _status, error in CASES:
                if provider not in ("openai", "openai-responses"):
                    continue
                with pytest.raises(openai.BadRequestError) as caught:
                    await sdk.post(PATHS[provider].removeprefix("/v1"), cast_to=object, body=refused)
                assert caught.value.body == error["error"]
                assert (caught.value.code, caught.value.param, caught.value.type) == (
                    error["error"]["code"],
                    error["error"]["param"],
                    "invalid_request_error",
                )
        async with anthropic.AsyncAnthropic(base_url=url, api_key="sk-test", max_retries=0) as claude_sdk:
            for provider, _what, refused, _fixed, _status, error in CASES:
                if provider != "anthropic":
                    continue
                with pytest.raises(anthropic.BadRequestError) as refused_by:
                    await claude_sdk.post("/v1/messages", cast_to=object, body=refused)
                assert refused_by.value.body == error
                assert refused_by.value.status_code == 400


async def test_the_interleaved_thinking_beta_lets_the_budget_exceed_max_tokens() -> None:
    body = claude(thinking={"type": "enabled", "budget_tokens": 4096})
    async with replay() as (_, client, _url):
        plain = await client.post("/v1/messages", json=body)
        beta = await client.post(
            "/v1/messages", json=body, headers={"anthropic-beta": "interleaved-thinking-2025-05-14"}
        )
    assert plain.status_code == 400
    assert beta.status_code == 200


def test_the_server_tools_are_the_anthropic_sdk_s() -> None:
    """The tags the tool rule lists are the ``type`` literals of the installed SDK's ``ToolUnionParam``."""
    from anthropic.types.tool_union_param import ToolUnionParam

    tags: set[str] = set()
    for member in typing.get_args(ToolUnionParam):
        kind = typing.get_type_hints(member, include_extras=True).get("type")
        literal = next((a for a in typing.get_args(kind) if typing.get_args(a)), kind)
        tags.update(typing.get_args(literal))
    assert sorted(tags) == sorted((*SERVER_TOOLS, "custom"))


# -- the servers that speak OpenAI Chat, each with its own rules ------------------------------------------


def _history_with_call(call_id: str) -> list[Any]:
    """A finished tool loop, then a new prompt: the request asks for the recording's first turn."""
    return [
        USER,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": call_id, "content": "done"},
        {"role": "assistant", "content": "Done."},
        USER,
    ]


async def test_mistral_takes_only_nine_letters_and_digits_as_a_call_id() -> None:
    recordings = load_recordings(DATA)  # openai/mistral_whole_calls names mistral-large-latest
    app = ReplayApp(recordings, seed=1)
    async with (
        serve(app, graceful_timeout=0.1) as url,
        openai.AsyncOpenAI(base_url=f"{url}/v1", api_key="k", max_retries=0) as sdk,
    ):
        with pytest.raises(openai.BadRequestError) as caught:
            await sdk.post(
                "/chat/completions",
                cast_to=object,
                body={"model": "mistral_whole_calls", "messages": _history_with_call("call_weather")},
            )
        accepted = await sdk.post(
            "/chat/completions",
            cast_to=object,
            body={"model": "mistral_whole_calls", "messages": _history_with_call("gSIMJiOkT")},
        )
    assert caught.value.response.json() == {
        "object": "error",
        "message": "Tool call id was call_weather but must be a-z, A-Z, 0-9, with a length of 9.",
        "type": "invalid_request_error",
        "param": None,
        "code": None,
    }
    assert isinstance(accepted, dict)
    assert accepted["object"] == "chat.completion"


async def test_openai_s_40_characters_are_openai_s_alone() -> None:
    """A vLLM-style id of 46 characters is refused by OpenAI's recordings and taken by another server's."""
    long_id = "chatcmpl-tool-f227417118b24070b61554cc4416aba9"
    app = ReplayApp({**load_recordings(DATA), **BUNDLED}, seed=1)
    assert "openai/qwen_hermes_no_arguments" in app.recordings  # its chunks name a Qwen model
    async with (
        serve(app, graceful_timeout=0.1) as url,
        openai.AsyncOpenAI(base_url=f"{url}/v1", api_key="k", max_retries=0) as sdk,
    ):
        with pytest.raises(openai.BadRequestError) as caught:
            await sdk.post(
                "/chat/completions",
                cast_to=object,
                body={"model": "plan_day", "messages": _history_with_call(long_id)},
            )
        other = await sdk.post(
            "/chat/completions",
            cast_to=object,
            body={"model": "qwen_hermes_no_arguments", "messages": _history_with_call(long_id)},
        )
    assert caught.value.code == "string_above_max_length"
    assert isinstance(other, dict)
