"""extract: complete responses of every provider, the fallback cascade, ToolCallError, round trips."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcalls import ToolCall, ToolCallError, UsageError, encode_call, extract
from streamcalls.codec import CodecProviderName
from tests.support import counter_ids

PROVIDERS: tuple[CodecProviderName, ...] = (
    "openai",
    "openai-responses",
    "anthropic",
    "ollama",
    "gemini",
    "bedrock",
    "cohere",
)

# -- complete responses, written from each provider's documented response shape ----------------------

OPENAI = {  # chat.completion (openai-python types/chat/chat_completion.py)
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1731000000,
    "model": "gpt-4o",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": None,
                "refusal": None,
                "tool_calls": [
                    {
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                    },
                    {"id": "call_b", "type": "function", "function": {"name": "now", "arguments": ""}},
                ],
            },
            "finish_reason": "tool_calls",
        }
    ],
    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
}

RESPONSES = {  # response (openai-python types/responses/response.py)
    "id": "resp_1",
    "object": "response",
    "status": "completed",
    "output": [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_a",
            "name": "get_weather",
            "arguments": '{"city":"Paris"}',
            "status": "completed",
        },
        {"type": "function_call", "id": "fc_2", "call_id": "call_b", "name": "now", "arguments": "{}"},
    ],
    "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
}

ANTHROPIC = {  # message (anthropic-sdk types/message.py)
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [
        {"type": "thinking", "thinking": "They want weather.", "signature": "sig"},
        {"type": "text", "text": "Let me check."},
        {"type": "tool_use", "id": "toolu_a", "name": "get_weather", "input": {"city": "Paris"}},
        {"type": "tool_use", "id": "toolu_b", "name": "now", "input": {}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 10, "output_tokens": 5},
}

OLLAMA = {  # /api/chat with "stream": false (ollama docs/api.md): calls without ids
    "model": "llama3.2",
    "created_at": "2025-07-07T20:43:37.688511Z",
    "message": {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"function": {"index": 0, "name": "get_weather", "arguments": {"city": "Paris"}}},
            {"function": {"index": 1, "name": "now", "arguments": {}}},
        ],
    },
    "done_reason": "stop",
    "done": True,
    "total_duration": 890771750,
    "eval_count": 11,
}

GEMINI = {  # GenerateContentResponse (python-genai types.py): no ids; a call without args has no "args"
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"text": "Planning the call", "thought": True},
                    {
                        "functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
                        "thoughtSignature": "c2ln",
                    },
                    {"functionCall": {"name": "now"}},
                ],
            },
            "finishReason": "STOP",
            "index": 0,
        }
    ],
    "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
    "modelVersion": "gemini-2.5-flash",
}

BEDROCK = {  # Converse response (AWS API_runtime_Converse): {output: {message}}, stopReason, usage
    "output": {
        "message": {
            "role": "assistant",
            "content": [
                {"text": "Let me check."},
                {"toolUse": {"toolUseId": "tooluse_a", "name": "get_weather", "input": {"city": "Paris"}}},
                {"toolUse": {"toolUseId": "tooluse_b", "name": "now", "input": {}}},
            ],
        }
    },
    "stopReason": "tool_use",
    "usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15},
    "metrics": {"latencyMs": 100},
}

COHERE = {  # V2ChatResponse (cohere-python v2/types/v2chat_response.py)
    "id": "c-1",
    "finish_reason": "TOOL_CALL",
    "message": {
        "role": "assistant",
        "tool_plan": "I will look up the weather.",
        "tool_calls": [
            {
                "id": "get_weather_a",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
            },
            {"id": "now_b", "type": "function", "function": {"name": "now", "arguments": "{}"}},
        ],
    },
    "usage": {"billed_units": {"input_tokens": 10, "output_tokens": 5}},
}

RESPONSES_BY_PROVIDER = {
    "openai": (OPENAI, ("call_a", "call_b")),
    "openai-responses": (RESPONSES, ("call_a", "call_b")),
    "anthropic": (ANTHROPIC, ("toolu_a", "toolu_b")),
    "ollama": (OLLAMA, ("call_gen_0", "call_gen_1")),
    "gemini": (GEMINI, ("call_gen_0", "call_gen_1")),
    "bedrock": (BEDROCK, ("tooluse_a", "tooluse_b")),
    "cohere": (COHERE, ("get_weather_a", "now_b")),
}


def expected(ids: tuple[str, str], source: str = "native", signature: str | None = None) -> list[ToolCall]:
    return [
        ToolCall(ids[0], "get_weather", {"city": "Paris"}, 0, source, signature),
        ToolCall(ids[1], "now", {}, 1, source),
    ]


SIGNATURES = {"gemini": "c2ln"}  # the thoughtSignature beside GEMINI's first functionCall


@pytest.mark.parametrize("provider", PROVIDERS)
def test_native_calls_of_every_provider(provider: CodecProviderName) -> None:
    response, ids = RESPONSES_BY_PROVIDER[provider]
    want = expected(ids, signature=SIGNATURES.get(provider))
    assert extract(response, id_factory=counter_ids()) == want
    assert extract(response, provider=provider, id_factory=counter_ids()) == want


@pytest.mark.parametrize("provider", PROVIDERS)
def test_json_bytes_and_str_are_read_like_the_dict(provider: CodecProviderName) -> None:
    response, ids = RESPONSES_BY_PROVIDER[provider]
    body = msgspec.json.encode(response)
    want = expected(ids, signature=SIGNATURES.get(provider))
    assert extract(body, id_factory=counter_ids()) == want
    assert extract(body.decode(), id_factory=counter_ids()) == want
    assert extract(bytearray(body), id_factory=counter_ids()) == want


def test_sdk_response_objects() -> None:
    from anthropic.types import Message
    from openai.types.chat import ChatCompletion

    assert extract(ChatCompletion.model_validate(OPENAI)) == expected(("call_a", "call_b"))
    assert extract(Message.model_validate(ANTHROPIC)) == expected(("toolu_a", "toolu_b"))


def test_gemini_sdk_dump_in_snake_case() -> None:
    # An SDK object dumped without aliases spells the part function_call.
    dumped = {"candidates": [{"content": {"role": "model", "parts": [{"function_call": {"name": "now"}}]}}]}
    assert extract(dumped, id_factory=counter_ids()) == [ToolCall("call_gen_0", "now", {}, 0)]


def test_ollama_generate_and_legacy_openai_function_call() -> None:
    generate = {"model": "m", "response": '{"name": "now", "arguments": {}}', "done": True}
    assert extract(generate, id_factory=counter_ids()) == [ToolCall("call_gen_0", "now", {}, 0, "json")]
    legacy = {"role": "assistant", "content": None, "function_call": {"name": "now", "arguments": "{}"}}
    assert extract(legacy, id_factory=counter_ids()) == [ToolCall("call_gen_0", "now", {}, 0)]


def test_provider_ids_are_kept_and_missing_ones_generated() -> None:
    mixed = {"message": {"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_x", "function": {"name": "f", "arguments": {}}},
        {"function": {"name": "g", "arguments": {}}},
        {"id": "", "function": {"name": "h", "arguments": {}}},
    ]}, "done": True}  # fmt: skip
    calls = extract(mixed, id_factory=counter_ids("gen_"))
    assert [c.id for c in calls] == ["call_x", "gen_0", "gen_1"]
    default = extract(OLLAMA)
    assert all(c.id.startswith("call_") and len(c.id) == 29 for c in default)


# -- arguments --------------------------------------------------------------------------------------


def chat(arguments: Any) -> dict[str, Any]:
    return {
        "role": "assistant",
        "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": arguments}}],
    }


@pytest.mark.parametrize(
    ("arguments", "result"),
    [
        ('{"a": 1}', {"a": 1}),
        ({"a": 1}, {"a": 1}),
        ("", {}),
        ("  ", {}),
        ('""', {}),
        (None, {}),  # as the stream reads it: no arguments
        ('"{\\"a\\": 1}"', {"a": 1}),  # double-encoded, as some models write it
    ],
)
def test_arguments_object_json_string_or_empty(arguments: Any, result: dict[str, Any]) -> None:
    assert extract(chat(arguments)) == [ToolCall("c", "f", result)]


def test_absent_arguments_are_empty() -> None:
    assert extract({"role": "model", "parts": [{"functionCall": {"name": "f", "id": "c"}}]}) == [
        ToolCall("c", "f", {})
    ]
    assert extract({"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f"}}]}) == [
        ToolCall("c", "f", {})
    ]


# -- ToolCallError --------------------------------------------------------------------------------------

NATIVE_ERRORS = [
    # (response, message, raw)
    (chat('{"city": "Par'), "tool call 'f': arguments are not valid JSON", '{"city": "Par'),
    (chat("{'city': 'Paris'}"), "arguments are not valid JSON", "{'city': 'Paris'}"),
    (chat("5"), "arguments must be a JSON object, got a number", "5"),
    (chat("[1, 2]"), "arguments must be a JSON object, got an array", "[1, 2]"),
    (chat(5), "arguments must be a JSON object, got a number", "5"),
    (chat([1, 2]), "arguments must be a JSON object, got an array", "[1,2]"),
    (chat(True), "arguments must be a JSON object, got a boolean", "true"),
    (
        [{"type": "function_call", "call_id": "c", "name": "f", "arguments": '{"a":}'}],
        "arguments are not valid JSON",
        '{"a":}',
    ),
    (
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c", "name": "f", "input": [1]}]},
        "got an array",
        "[1]",
    ),
    ({"role": "model", "parts": [{"functionCall": {"name": "f", "args": 3}}]}, "got a number", "3"),
    (
        {"output": {"message": {"role": "assistant", "content": [{"toolUse": {"toolUseId": "c", "name": "f", "input": "x"}}]}}},
        "arguments are not valid JSON",
        "x",
    ),
    (
        {"message": {"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{"}}]}, "finish_reason": "TOOL_CALL"},
        "arguments are not valid JSON",
        "{",
    ),
    ({"role": "assistant", "tool_calls": [{"id": "c", "function": {"arguments": "{}"}}]}, "has no name", '{"arguments":"{}"}'),
    ({"role": "model", "parts": [{"functionCall": {"name": "", "args": {}}}]}, "has no name", '{"name":"","args":{}}'),
]  # fmt: skip


@pytest.mark.parametrize(("response", "message", "raw"), NATIVE_ERRORS)
def test_malformed_native_calls_raise(response: Any, message: str, raw: str) -> None:
    with pytest.raises(ToolCallError, match=message) as info:
        extract(response)
    assert info.value.raw == raw
    assert isinstance(info.value, ValueError)


TEXT_ERRORS = [
    # (text, message, raw: the markup, delimiters included)
    ('~~~tool_call\n{"name": "f", "arguments": {"a": tru}}\n~~~\n', "malformed tool call 'f' in the text", None),
    ('~~~tool_call\n{"name": "f", "arguments": {"a": 1}\n~~~\n', "incomplete", None),
    ('~~~tool_call\n{"name": "f", "arguments": 5}\n~~~\n', "got a number", None),
    ('~~~tool_call\n{"name": "f", "arguments": [1]}\n~~~\n', "got an array", None),
    ('Sure.\n~~~tool_call\n{"name": "f", "arguments": {"a": 1}', "never closed", '~~~tool_call\n{"name": "f", "arguments": {"a": 1}'),
    ('{"name": "f", "arguments": 5}', "got a number", None),
    ('{"name": "f", "arguments": {"a": 1]}', "malformed tool call 'f' in the text", None),
]  # fmt: skip


@pytest.mark.parametrize(("text", "message", "raw"), TEXT_ERRORS)
def test_malformed_text_calls_raise(text: str, message: str, raw: str | None) -> None:
    for response in (
        {"role": "assistant", "content": text},
        {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}}]},
    ):
        with pytest.raises(ToolCallError, match=message) as info:
            extract(response)
        assert info.value.raw == (text if raw is None else raw)
    with pytest.raises(ToolCallError):
        extract(text, provider="text")


# -- the cascade ------------------------------------------------------------------------------------------

FENCE = 'Let me look.\n~~~tool_call\n{"name": "fenced", "arguments": {"q": 1}, "id": "f1"}\n~~~\n'
BARE = '{"name": "bare", "arguments": {"q": 2}}\n'
NATIVE = {"id": "n1", "type": "function", "function": {"name": "native", "arguments": "{}"}}


def openai_message(content: str | None, *calls: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = list(calls)
    return {"object": "chat.completion", "choices": [{"index": 0, "message": message}]}


def names(calls: list[ToolCall]) -> list[tuple[str, str]]:
    return [(c.name, c.source) for c in calls]


@pytest.mark.parametrize(
    ("content", "calls", "native", "found"),
    [
        # native first; the text is not read when there is a native call
        (FENCE + BARE, [NATIVE], None, [("native", "native")]),
        (FENCE + BARE, [NATIVE], True, [("native", "native")]),
        # no native call: fences, and only the fences when there are some
        (FENCE + BARE, [], None, [("fenced", "fence")]),
        (FENCE + BARE, [], True, [("fenced", "fence")]),
        # no fence: bare JSON
        ("Here:\n" + BARE, [], None, [("bare", "json")]),
        # nothing
        ("No calls, just {braces} and ~~~tildes~~~.", [], None, []),
        (None, [], None, []),
        # native=False: the text is the protocol
        (FENCE + BARE, [NATIVE], False, [("fenced", "fence")]),
        (BARE, [NATIVE], False, [("bare", "json")]),
        ("plain", [NATIVE], False, []),
    ],
)
def test_the_cascade(
    content: str | None, calls: list[dict[str, Any]], native: bool | None, found: list[tuple[str, str]]
) -> None:
    assert names(extract(openai_message(content, *calls), native)) == found


def test_text_calls_keep_the_models_id_and_are_numbered() -> None:
    two = FENCE + '~~~tool_call\n{"name": "second", "arguments": {}}\n~~~\n'
    assert extract(openai_message(two), id_factory=counter_ids()) == [
        ToolCall("f1", "fenced", {"q": 1}, 0, "fence"),
        # The first call's id comes after its arguments: an id was made (and dropped) for it.
        ToolCall("call_gen_1", "second", {}, 1, "fence"),
    ]


def test_detect_chooses_the_text_detectors() -> None:
    assert extract(openai_message(FENCE + BARE), detect=()) == []
    # Without the fence detector, the call object inside the fence is bare JSON.
    assert names(extract(openai_message(FENCE + BARE), detect=("json",))) == [
        ("fenced", "json"),
        ("bare", "json"),
    ]
    hermes = 'Sure.\n<tool_call>\n{"name": "tagged", "arguments": {}}\n</tool_call>'
    assert names(extract(openai_message(hermes))) == [("tagged", "json")]  # its own line: bare JSON
    assert names(extract(openai_message(hermes), detect=("fence", "hermes", "json"))) == [
        ("tagged", "hermes")
    ]
    with pytest.raises(UsageError, match="unknown detector 'xml'"):
        extract(openai_message(None), detect=("xml",))


def test_tools_filter_bare_json() -> None:
    assert extract(openai_message(BARE), tools=["other"]) == []
    assert names(extract(openai_message(BARE), tools=["bare"])) == [("bare", "json")]


# The text of every provider is read, and only its text (not reasoning).
TEXT_ONLY: dict[str, Callable[[str], dict[str, Any]]] = {
    "openai": lambda t: {"choices": [{"message": {"role": "assistant", "content": t}}]},
    "openai-responses": lambda t: {"object": "response", "output": [
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": BARE}]},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": t, "annotations": []}]},
    ]},
    "anthropic": lambda t: {"type": "message", "role": "assistant", "content": [
        {"type": "thinking", "thinking": BARE, "signature": "s"}, {"type": "text", "text": t},
    ]},
    "ollama": lambda t: {"message": {"role": "assistant", "content": t, "thinking": BARE}, "done": True},
    "gemini": lambda t: {"candidates": [{"content": {"role": "model", "parts": [
        {"text": BARE, "thought": True}, {"text": t[:20]}, {"text": t[20:]},
    ]}}]},
    "bedrock": lambda t: {"output": {"message": {"role": "assistant", "content": [
        {"reasoningContent": {"reasoningText": {"text": BARE}}}, {"text": t},
    ]}}},
    "cohere": lambda t: {"id": "c", "finish_reason": "COMPLETE", "message": {
        "role": "assistant", "tool_plan": BARE, "content": [{"type": "thinking", "thinking": BARE}, {"type": "text", "text": t}],
    }},
}  # fmt: skip


@pytest.mark.parametrize("provider", PROVIDERS)
def test_fences_in_every_providers_text(provider: CodecProviderName) -> None:
    response = TEXT_ONLY[provider](FENCE)
    assert extract(response) == [ToolCall("f1", "fenced", {"q": 1}, 0, "fence")]
    assert extract(response, provider=provider) == [ToolCall("f1", "fenced", {"q": 1}, 0, "fence")]
    assert extract(TEXT_ONLY[provider]("Nothing to call.")) == []  # reasoning is never read


def test_raw_text() -> None:
    assert names(extract(FENCE, provider="text")) == [("fenced", "fence")]
    assert names(extract(BARE.encode(), provider="text")) == [("bare", "json")]
    assert extract("Hello", provider="text") == []
    # A bare call object given as the whole response is a model's text.
    assert names(extract(BARE)) == [("bare", "json")]
    assert names(extract({"name": "bare", "parameters": {}})) == [("bare", "json")]


# -- telling the provider, and misuse ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "message"),
    [
        ("Sure, here you go", "not valid JSON.*provider='text'"),
        (b"{truncated", "not valid JSON"),
        ({"error": {"message": "overloaded", "type": "overloaded_error"}}, "the response is an error"),
        ({"foo": 1}, "cannot tell the provider"),
        (42, "a response is a JSON object"),
        ("42", "a response is a JSON object"),
        ([{"candidates": []}], "a list is read as OpenAI Responses items"),
        ({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}}]}, "a streamed chunk"),
        ({"type": "content_block_delta", "index": 0, "delta": {}}, "cannot tell the provider"),
    ],
)
def test_what_is_not_a_response(response: Any, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        extract(response)


def test_provider_names() -> None:
    with pytest.raises(UsageError, match="unknown provider 'open-ai'"):
        extract(OPENAI, provider="open-ai")  # type: ignore[arg-type]  # the run-time check
    assert extract(OPENAI, provider="openrouter") == expected(("call_a", "call_b"))
    assert extract(OPENAI, provider="auto") == expected(("call_a", "call_b"))
    with pytest.raises(UsageError, match="not a complete Anthropic response"):
        extract(OPENAI, provider="anthropic")
    with pytest.raises(UsageError, match="takes the text as str or bytes"):
        extract(OPENAI, provider="text")


def test_empty_responses() -> None:
    assert extract({"choices": []}) == []
    assert extract({"candidates": []}) == []
    assert extract([]) == []
    assert extract({"type": "message", "role": "assistant", "content": []}) == []


# -- round trips: extract(encode_call(calls)) == calls ----------------------------------------------------

names_st = st.text(st.characters(codec="utf-8"), min_size=1, max_size=12)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)  # fmt: skip
arguments_st = st.dictionaries(st.text(max_size=8), json_values, max_size=4)
calls_st = st.lists(
    st.tuples(st.text("abcdef0123_-", min_size=1, max_size=10), names_st, arguments_st),
    min_size=1,
    max_size=4,
).map(lambda items: [ToolCall(f"id_{i}_{cid}", name, args, i) for i, (cid, name, args) in enumerate(items)])


@pytest.mark.parametrize("provider", [*PROVIDERS, "openrouter"])
@settings(max_examples=60, deadline=None)
@given(calls=calls_st, text=st.none() | st.text(max_size=20))
def test_round_trip(provider: CodecProviderName, calls: list[ToolCall], text: str | None) -> None:
    message = encode_call(calls, provider, text=text)
    assert extract(message) == calls
    assert extract(msgspec.json.encode(message)) == calls
    assert extract(message, provider=provider) == calls
    if len(calls) == 1:
        assert extract(encode_call(calls[0], provider)) == calls


def test_round_trip_of_a_text_that_holds_a_fence_keeps_the_native_calls() -> None:
    call = ToolCall("c", "f", {"a": 1})
    for provider in PROVIDERS:
        assert extract(encode_call(call, provider, text=FENCE)) == [call]
