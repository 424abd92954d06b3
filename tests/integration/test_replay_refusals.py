"""The histories the replay server refuses, per provider, over real sockets.

Every test runs on asyncio and on trio.  The histories are written the way
a user writes them (``encode_call`` + ``encode_result``), with the mistakes
users make; the expected bodies are written out here in each provider's
error shape and wording and were reviewed by eye (the wording's sources are
in each ``streamcalls/providers/<name>/history_rules.py``).  OpenAI Chat's and Anthropic's
refusals are in tests/integration/test_replay_loop.py.
"""

from __future__ import annotations

from typing import Any, Final

import pytest

import streamcalls
from streamcalls import ProviderError, StreamFinished, ToolCall, ToolResult, encode_call, encode_result
from streamcalls.codec import CodecProviderName
from tests.support.replaying import prompt, provider_error, replay, request

pytestmark = pytest.mark.anyio

WEATHER = ToolCall("call_weather", "get_weather", {"city": "Paris"})
HOURS = ToolCall("call_hours", "get_opening_hours", {"place": "Louvre", "day": "Saturday"})
RESULTS = [ToolResult(call.id, call.name, f"{call.name} says: fine") for call in (WEATHER, HOURS)]
# The thoughtSignature of the bundled gemini_plan_day recording's first call: Gemini wants it back.
PLAN_DAY_SIGNATURE: Final = "CpUCAcu98PDkNn0cRuGf1xw5Zm2sT4dPqXvE7bWlJ8aK"
SIGNED_WEATHER = ToolCall(WEATHER.id, WEATHER.name, WEATHER.arguments, thought_signature=PLAN_DAY_SIGNATURE)


def calls(provider: CodecProviderName, *chosen: ToolCall, text: str | None = None) -> list[Any]:
    """The assistant's turn holding ``chosen``, as a list of messages (Responses' items are several)."""
    turn = encode_call(list(chosen or (WEATHER, HOURS)), provider, text=text)
    return turn if isinstance(turn, list) else [turn]


def results(provider: CodecProviderName, *chosen: ToolResult) -> list[Any]:
    return encode_result(list(chosen or RESULTS), provider)


def openai_error(message: str, param: str | None, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}


def gemini_error(message: str, field: str | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}
    if field is not None:
        violation = {"field": field, "description": message}
        error["details"] = [
            {"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": [violation]}
        ]
    return {"error": error}


GEMINI_COUNT = (
    "Please ensure that the number of function response parts is equal to the number of function call parts "
    "of the function call turn."
)
UNANSWERED = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
    "'tool_call_id'. The following tool_call_ids did not have response messages: "
)
ALTERNATE = (
    "A conversation must alternate between user and assistant roles. Make sure the conversation alternates "
    "between user and assistant roles and try again."
)
R: Final = "openai-responses"

# (provider, what, history, the error body; Bedrock's: (exception, message); Cohere's: its message)
REFUSED: list[tuple[CodecProviderName, str, list[Any], Any]] = [
    (
        R,
        "the results' list appended as one item",
        [prompt(R), *calls(R), results(R)],
        openai_error(
            "Invalid type for 'input[3]': expected an input item, but got an array instead.",
            "input[3]",
            "invalid_type",
        ),
    ),
    (
        R,
        "a result without its call",
        [prompt(R), *results(R, RESULTS[0])],
        openai_error("No tool call found for function call output with call_id call_weather.", "input"),
    ),
    (
        R,
        "a call left without its result",
        [prompt(R), *calls(R), *results(R, RESULTS[0])],
        openai_error("No tool output found for function call call_hours.", "input"),
    ),
    (
        R,
        "a call written for Ollama (object arguments)",
        [prompt(R), {"type": "function_call", "call_id": "c", "name": "f", "arguments": {}}],
        openai_error(
            "Invalid type for 'input[1].arguments': expected a string, but got an object instead.",
            "input[1].arguments",
            "invalid_type",
        ),
    ),
    (
        "ollama",
        "the results' list appended as one message",
        [prompt("ollama"), *calls("ollama"), results("ollama")],
        {"error": "json: cannot unmarshal array into Go struct field ChatRequest.messages of type api.Alias"},
    ),
    (
        "ollama",
        "a call written for OpenAI (string arguments)",
        [prompt("ollama"), *calls("openai"), *results("ollama")],
        {
            "error": "json: cannot unmarshal string into Go struct field "
            "ChatRequest.messages.tool_calls.function.arguments of type api.ToolCallFunctionArguments"
        },
    ),
    (
        "ollama",
        "content parts",
        [{"role": "user", "content": [{"type": "text", "text": "Plan my Saturday"}]}],
        {
            "error": "json: cannot unmarshal array into Go struct field ChatRequest.messages.content of type string"
        },
    ),
    (
        "gemini",
        "a result without its call",
        [prompt("gemini"), *results("gemini", RESULTS[0])],
        gemini_error(
            "Please ensure that function response turn comes immediately after a function call turn."
        ),
    ),
    (
        "gemini",
        "a call left without its result",
        [prompt("gemini"), *calls("gemini"), *results("gemini", RESULTS[0])],
        gemini_error(GEMINI_COUNT),
    ),
    (
        "gemini",
        "results after another message",
        [prompt("gemini"), *calls("gemini"), prompt("gemini", "And tomorrow?"), *results("gemini")],
        gemini_error(GEMINI_COUNT),
    ),
    (
        "gemini",
        "a history starting with a call",
        [*calls("gemini"), *results("gemini")],
        gemini_error(
            "Please ensure that function call turn comes immediately after a user turn or after a function "
            "response turn."
        ),
    ),
    (
        "gemini",
        "a role Gemini does not have",
        [prompt("gemini"), {"role": "assistant", "parts": [{"text": "Hi"}]}],
        gemini_error("Please use a valid role: user, model."),
    ),
    (
        "gemini",
        "a content that is a string",
        [prompt("gemini"), "Plan my Sunday too"],
        gemini_error(
            "Invalid value at 'contents[1]' (type.googleapis.com/google.ai.generativelanguage.v1beta.Content), "
            '"Plan my Sunday too"',
            "contents[1]",
        ),
    ),
    (
        "gemini",
        "a signed call sent back without its thought signature",
        [prompt("gemini"), *calls("gemini"), *results("gemini")],
        gemini_error(
            "Function call is missing a thought_signature in functionCall parts. This is required for tools to "
            "work correctly, and missing thought_signature may lead to degraded model performance. Additional "
            "data, function call `default_api:get_weather` , position 2. Please refer to "
            "https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
        ),
    ),
    (
        "gemini",
        "a signed call sent back with another signature",
        [
            prompt("gemini"),
            *calls(
                "gemini",
                ToolCall(WEATHER.id, WEATHER.name, WEATHER.arguments, thought_signature="b3RoZXI="),
                HOURS,
            ),
            *results("gemini"),
        ],
        gemini_error("Corrupted thought signature."),
    ),
    (
        "bedrock",
        "the results' list appended as one message",
        [prompt("bedrock"), *calls("bedrock"), results("bedrock")],
        ("SerializationException", "Start of list found where not expected"),
    ),
    (
        "bedrock",
        "a result without its call",
        [
            prompt("bedrock"),
            {"role": "assistant", "content": [{"text": "Hm."}]},
            *results("bedrock", RESULTS[0]),
        ],
        (
            "ValidationException",
            "The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of "
            "previous turn.",
        ),
    ),
    (
        "bedrock",
        "results after another message",
        [prompt("bedrock"), *calls("bedrock"), prompt("bedrock", "And tomorrow?"), *results("bedrock")],
        (
            "ValidationException",
            "Expected toolResult blocks at messages.2.content for the following Ids: call_weather, call_hours",
        ),
    ),
    (
        "bedrock",
        "a call left without its result",
        [prompt("bedrock"), *calls("bedrock"), *results("bedrock", RESULTS[0])],
        (
            "ValidationException",
            "Expected toolResult blocks at messages.2.content for the following Ids: call_hours",
        ),
    ),
    (
        "bedrock",
        "two user messages in a row",
        [prompt("bedrock"), *results("bedrock")],
        ("ValidationException", ALTERNATE),
    ),
    (
        "bedrock",
        "a history starting with the assistant",
        [*calls("bedrock"), *results("bedrock")],
        (
            "ValidationException",
            "A conversation must start with a user message. Try again with a conversation that starts with a "
            "user message.",
        ),
    ),
    (
        "bedrock",
        "a role Bedrock does not have",
        [{"role": "system", "content": [{"text": "Be brief."}]}, prompt("bedrock")],
        (
            "ValidationException",
            "1 validation error detected: Value 'system' at 'messages.1.member.role' failed to satisfy "
            "constraint: Member must satisfy enum value set: [user, assistant]",
        ),
    ),
    (
        "bedrock",
        "a call written for OpenAI (string input)",
        [
            prompt("bedrock"),
            {"role": "assistant", "content": [{"toolUse": {"toolUseId": "c", "name": "f", "input": "{}"}}]},
        ],
        (
            "ValidationException",
            "The format of the value at messages.1.content.0.toolUse.input is invalid. Provide a json object for "
            "the field and try again.",
        ),
    ),
    (
        "cohere",
        "the results' list appended as one message",
        [prompt("cohere"), *calls("cohere"), results("cohere")],
        "invalid request: Invalid type for 'messages[2]': expected an object, but got an array instead.",
    ),
    (
        "cohere",
        "a result without its call",
        [prompt("cohere"), *results("cohere", RESULTS[0])],
        "invalid request: Invalid parameter: messages with role 'tool' must be a response to a preceeding "
        "message with 'tool_calls'.",
    ),
    (
        "cohere",
        "results after another message",
        [prompt("cohere"), *calls("cohere"), prompt("cohere", "And tomorrow?"), *results("cohere")],
        "invalid request: " + UNANSWERED + "call_weather, call_hours",
    ),
    (
        "cohere",
        "a call left without its result",
        [prompt("cohere"), *calls("cohere"), *results("cohere", RESULTS[0])],
        "invalid request: " + UNANSWERED + "call_hours",
    ),
]


def cases(table: list[tuple[CodecProviderName, str, list[Any], Any]]) -> list[Any]:
    """A table's rows as test cases named by their provider and what their history does."""
    return [
        pytest.param(provider, history, then, id=f"{provider}: {what}")
        for provider, what, history, then in table
    ]


@pytest.mark.parametrize(("provider", "history", "error"), cases(REFUSED))
async def test_a_history_the_provider_would_refuse_gets_its_400(
    provider: CodecProviderName, history: list[Any], error: Any
) -> None:
    async with replay() as (app, client, _):
        path, body = request(provider, history, stream=False)
        response = await client.post(path, json=body)
        assert response.status_code == 400
        assert provider_error(provider, response) == error
        # ... and from_httpx reports it as the provider's error, for the streamed request too
        path, body = request(provider, history)
        async with client.stream("POST", path, json=body) as streamed:
            events = [e async for e in streamcalls.from_httpx(streamed, provider)]
    assert len(app.requests) == 2
    message = {"bedrock": lambda: error[1], "cohere": lambda: error}.get(provider, lambda: None)()
    if message is None:
        inner = error["error"]
        message = inner if isinstance(inner, str) else inner["message"]
    assert events == [
        ProviderError(f"HTTP 400 Bad Request: {message}", _code(provider, error), 400),
        StreamFinished("error", provider_reason="HTTP 400 Bad Request"),
    ]


def _code(provider: str, error: Any) -> str:
    if provider == "gemini":
        return "INVALID_ARGUMENT"
    if provider == R:
        return str(error["error"]["code"] or error["error"]["type"])
    if provider == "bedrock":
        return str(error[0])  # the exception's name, from the x-amzn-ErrorType header
    return "400"  # Ollama's and Cohere's bodies name no code


ACCEPTED: list[tuple[CodecProviderName, str, list[Any], Any]] = [
    # Responses pairs calls and outputs by call_id anywhere in input: the later prompt starts over.
    (R, "results after another message", [prompt(R), *calls(R), prompt(R, "And?"), *results(R)], 1),
    # Ollama checks no pairing at all: its chat template takes the messages as they are.
    ("ollama", "a result without its call", [prompt("ollama"), *results("ollama", RESULTS[0])], 1),
    (
        "ollama",
        "a call left without its result",
        [prompt("ollama"), *calls("ollama"), *results("ollama")[:1]],
        2,
    ),
    # Google's JSON reader takes a list nested in `contents` as more contents.
    (
        "gemini",
        "the results' list appended as one content",
        [prompt("gemini"), *calls("gemini", SIGNED_WEATHER, HOURS), results("gemini")],
        2,
    ),
]


@pytest.mark.parametrize(("provider", "history", "turn"), cases(ACCEPTED))
async def test_what_a_provider_does_not_check_is_accepted(
    provider: CodecProviderName, history: list[Any], turn: int
) -> None:
    async with replay() as (_, client, _url):
        path, body = request(provider, history)
        async with client.stream("POST", path, json=body) as response:
            assert response.status_code == 200
            assert response.headers["x-replay-turn"] == str(turn)


async def test_gemini_s_array_stream_answers_an_error_as_a_one_element_array() -> None:
    history = [prompt("gemini"), *results("gemini", RESULTS[0])]
    async with replay() as (_, client, _url):
        array = await client.post("/v1beta/models/plan_day:streamGenerateContent", json={"contents": history})
        sse = await client.post(
            "/v1beta/models/plan_day:streamGenerateContent?alt=sse", json={"contents": history}
        )
    error = gemini_error(
        "Please ensure that function response turn comes immediately after a function call turn."
    )
    assert (array.status_code, array.json()) == (400, [error])
    assert (sse.status_code, sse.json()) == (400, error)


async def test_bedrock_wants_the_tool_config_with_a_history_of_tool_blocks() -> None:
    history = [prompt("bedrock"), *calls("bedrock"), *results("bedrock")]
    async with replay() as (_, client, _url):
        response = await client.post("/model/plan_day/converse", json={"messages": history})
    assert response.status_code == 400
    assert provider_error("bedrock", response) == (
        "ValidationException",
        "The toolConfig field must be defined when using toolUse and toolResult content blocks.",
    )
