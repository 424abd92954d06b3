"""encode_tools, encode_call, encode_result: exact shapes per provider, from each one's documented request format.

Sources of the shapes: openai-python (chat_completion_*_param.py, responses/function_tool_param.py,
response_input_item_param.py), anthropic-sdk-python (tool_param.py, tool_use_block_param.py,
tool_result_block_param.py), ollama api/types.go and docs/api.md, python-genai types.py (Content,
FunctionCall, FunctionResponse, FunctionDeclaration), AWS Bedrock API reference (ToolSpecification,
ToolUseBlock, ToolResultBlock), cohere-python (ToolV2, AssistantMessage, ToolCallV2, ToolMessageV2).
"""

from __future__ import annotations

from typing import Any, cast

import msgspec
import pytest

import streamcalls
from streamcalls import Tool, ToolCall, ToolResult, UsageError, encode_call, encode_result, encode_tools
from streamcalls.codec import CodecProviderName

PROVIDERS: tuple[CodecProviderName, ...] = (
    "openai",
    "openai-responses",
    "anthropic",
    "ollama",
    "gemini",
    "bedrock",
    "cohere",
)

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
    "required": ["city"],
}
EMPTY = {"type": "object", "properties": {}}
TOOLS = [Tool("get_weather", "Current weather in a city.", WEATHER_SCHEMA), Tool("now")]

# -- encode_tools ----------------------------------------------------------------------------------

EXPECTED_TOOLS: dict[str, list[dict[str, Any]]] = {
    "openai": [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Current weather in a city.",
                "parameters": WEATHER_SCHEMA,
            },
        },
        {"type": "function", "function": {"name": "now", "parameters": EMPTY}},
    ],
    "openai-responses": [
        {
            "type": "function",
            "name": "get_weather",
            "description": "Current weather in a city.",
            "parameters": WEATHER_SCHEMA,
            "strict": False,
        },
        {"type": "function", "name": "now", "parameters": EMPTY, "strict": False},
    ],
    "anthropic": [
        {"name": "get_weather", "description": "Current weather in a city.", "input_schema": WEATHER_SCHEMA},
        {"name": "now", "input_schema": EMPTY},
    ],
    "gemini": [
        {
            "functionDeclarations": [
                {
                    "name": "get_weather",
                    "description": "Current weather in a city.",
                    "parametersJsonSchema": WEATHER_SCHEMA,
                },
                {"name": "now", "parametersJsonSchema": EMPTY},
            ]
        }
    ],
    "bedrock": [
        {
            "toolSpec": {
                "name": "get_weather",
                "description": "Current weather in a city.",
                "inputSchema": {"json": WEATHER_SCHEMA},
            }
        },
        {"toolSpec": {"name": "now", "inputSchema": {"json": EMPTY}}},
    ],
}
EXPECTED_TOOLS["ollama"] = EXPECTED_TOOLS[
    "openai"
]  # Ollama's api.Tool{type, function{name, description, parameters}}
EXPECTED_TOOLS["cohere"] = EXPECTED_TOOLS[
    "openai"
]  # Cohere's ToolV2{type, function{name, description, parameters}}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_encode_tools(provider: CodecProviderName) -> None:
    assert encode_tools(TOOLS, provider) == EXPECTED_TOOLS[provider]


OPENAI_SHAPED = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather in a city.",
            "parameters": WEATHER_SCHEMA,
        },
    },
    {"type": "function", "function": {"name": "now"}},
]
FLAT = [
    {
        "type": "function",
        "name": "get_weather",
        "description": "Current weather in a city.",
        "parameters": WEATHER_SCHEMA,
    },
    {"name": "now", "description": ""},
]
ANTHROPIC_SHAPED = [
    {"name": "get_weather", "description": "Current weather in a city.", "input_schema": WEATHER_SCHEMA},
    {"name": "now", "input_schema": None},
]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    "tools", [OPENAI_SHAPED, FLAT, ANTHROPIC_SHAPED], ids=["openai", "flat", "anthropic"]
)
def test_encode_tools_takes_dict_shapes_too(provider: CodecProviderName, tools: list[dict[str, Any]]) -> None:
    assert encode_tools(tools, provider) == EXPECTED_TOOLS[provider]


def test_encode_tools_takes_a_mix_and_any_iterable() -> None:
    both: list[Tool | dict[str, Any]] = [TOOLS[0], OPENAI_SHAPED[1]]
    mixed = (tool for tool in both)
    assert encode_tools(mixed, "anthropic") == EXPECTED_TOOLS["anthropic"]


@pytest.mark.parametrize(
    ("tools", "message"),
    [
        ([{"type": "function", "function": {"description": "no name"}}], "a tool without a name"),
        ([{"name": ""}], "a tool without a name"),
        ([Tool("")], "a tool without a name"),
        ([{"name": "f", "parameters": "{}"}], "parameters must be a JSON schema dict"),
        ([{"name": "f", "description": 3}], "description must be a string"),
        (["get_weather"], "a streamcalls.Tool or a dict"),
        (Tool("f"), "a list of tools, not a single one"),
        ({"name": "f"}, "a list of tools, not a single one"),
    ],
)
def test_encode_tools_rejects_what_is_not_a_tool(tools: Any, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        encode_tools(tools, "openai")


def test_tool_fields_are_positional_and_defaulted() -> None:
    tool = Tool("f", "does f", {"type": "object"})
    assert (tool.name, tool.description, tool.parameters) == ("f", "does f", {"type": "object"})
    assert Tool("g") == Tool("g", "", None)
    assert Tool("g").schema == EMPTY
    assert msgspec.json.decode(msgspec.json.encode(tool), type=Tool) == tool


# -- encode_call -----------------------------------------------------------------------------------

WEATHER = ToolCall("call_w", "get_weather", {"city": "Oslo", "unit": "celsius"})
NOW = ToolCall("call_n", "now", {}, 1)
WEATHER_JSON = '{"city":"Oslo","unit":"celsius"}'

EXPECTED_CALLS: dict[str, Any] = {
    "openai": {
        "role": "assistant",
        "content": "Checking.",
        "tool_calls": [
            {
                "id": "call_w",
                "type": "function",
                "function": {"name": "get_weather", "arguments": WEATHER_JSON},
            },
            {"id": "call_n", "type": "function", "function": {"name": "now", "arguments": "{}"}},
        ],
    },
    "openai-responses": [
        {"type": "message", "role": "assistant", "content": "Checking."},
        {"type": "function_call", "call_id": "call_w", "name": "get_weather", "arguments": WEATHER_JSON},
        {"type": "function_call", "call_id": "call_n", "name": "now", "arguments": "{}"},
    ],
    "anthropic": {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Checking."},
            {
                "type": "tool_use",
                "id": "call_w",
                "name": "get_weather",
                "input": {"city": "Oslo", "unit": "celsius"},
            },
            {"type": "tool_use", "id": "call_n", "name": "now", "input": {}},
        ],
    },
    "ollama": {
        "role": "assistant",
        "content": "Checking.",
        "tool_calls": [
            {
                "id": "call_w",
                "function": {"name": "get_weather", "arguments": {"city": "Oslo", "unit": "celsius"}},
            },
            {"id": "call_n", "function": {"name": "now", "arguments": {}}},
        ],
    },
    "gemini": {
        "role": "model",
        "parts": [
            {"text": "Checking."},
            {
                "functionCall": {
                    "id": "call_w",
                    "name": "get_weather",
                    "args": {"city": "Oslo", "unit": "celsius"},
                }
            },
            {"functionCall": {"id": "call_n", "name": "now", "args": {}}},
        ],
    },
    "bedrock": {
        "role": "assistant",
        "content": [
            {"text": "Checking."},
            {
                "toolUse": {
                    "toolUseId": "call_w",
                    "name": "get_weather",
                    "input": {"city": "Oslo", "unit": "celsius"},
                }
            },
            {"toolUse": {"toolUseId": "call_n", "name": "now", "input": {}}},
        ],
    },
    "cohere": {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "call_w",
                "type": "function",
                "function": {"name": "get_weather", "arguments": WEATHER_JSON},
            },
            {"id": "call_n", "type": "function", "function": {"name": "now", "arguments": "{}"}},
        ],
        "tool_plan": "Checking.",
    },
}

EXPECTED_ONE_CALL: dict[str, Any] = {
    "openai": {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_w",
                "type": "function",
                "function": {"name": "get_weather", "arguments": WEATHER_JSON},
            }
        ],
    },
    "openai-responses": [
        {"type": "function_call", "call_id": "call_w", "name": "get_weather", "arguments": WEATHER_JSON}
    ],
    "anthropic": {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "call_w", "name": "get_weather", "input": WEATHER.arguments}],
    },
    "ollama": {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "call_w", "function": {"name": "get_weather", "arguments": WEATHER.arguments}}],
    },
    "gemini": {
        "role": "model",
        "parts": [{"functionCall": {"id": "call_w", "name": "get_weather", "args": WEATHER.arguments}}],
    },
    "bedrock": {
        "role": "assistant",
        "content": [{"toolUse": {"toolUseId": "call_w", "name": "get_weather", "input": WEATHER.arguments}}],
    },
    "cohere": {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "call_w",
                "type": "function",
                "function": {"name": "get_weather", "arguments": WEATHER_JSON},
            }
        ],
    },
}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_encode_call_parallel_calls_with_text(provider: CodecProviderName) -> None:
    assert encode_call([WEATHER, NOW], provider, text="Checking.") == EXPECTED_CALLS[provider]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_encode_call_one_call_without_text(provider: CodecProviderName) -> None:
    assert encode_call(WEATHER, provider) == EXPECTED_ONE_CALL[provider]
    assert encode_call([WEATHER], provider, text="") == EXPECTED_ONE_CALL[provider]


@pytest.mark.parametrize("alias", ["openrouter", "groq", "vllm", "openai-chat", "mistral"])
def test_openai_compatible_servers_get_openai_shapes(alias: CodecProviderName) -> None:
    assert encode_call([WEATHER, NOW], alias, text="Checking.") == EXPECTED_CALLS["openai"]
    assert encode_tools(TOOLS, alias) == EXPECTED_TOOLS["openai"]
    assert encode_result(ToolResult("call_w", "get_weather", "21"), alias) == EXPECTED_RESULT["openai"]


def test_encode_call_rejects_no_calls_and_other_objects() -> None:
    with pytest.raises(UsageError, match="at least one call"):
        encode_call([], "openai")
    with pytest.raises(UsageError, match="takes ToolCall objects, not dict"):
        encode_call([{"id": "x", "name": "f", "arguments": {}}], "openai")  # type: ignore[call-overload]


# -- encode_result ---------------------------------------------------------------------------------

OK = ToolResult("call_w", "get_weather", "21")
FAILED = ToolResult("call_n", "now", "RuntimeError: clock broken", True)

EXPECTED_RESULT: dict[str, dict[str, Any]] = {
    "openai": {"role": "tool", "tool_call_id": "call_w", "content": "21"},
    "openai-responses": {"type": "function_call_output", "call_id": "call_w", "output": "21"},
    "anthropic": {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "call_w", "content": "21"}],
    },
    "ollama": {"role": "tool", "content": "21", "tool_name": "get_weather", "tool_call_id": "call_w"},
    "gemini": {
        "role": "user",
        "parts": [
            {"functionResponse": {"id": "call_w", "name": "get_weather", "response": {"output": "21"}}}
        ],
    },
    "bedrock": {
        "role": "user",
        "content": [
            {"toolResult": {"toolUseId": "call_w", "content": [{"text": "21"}], "status": "success"}}
        ],
    },
    "cohere": {"role": "tool", "tool_call_id": "call_w", "content": "21"},
}

BROKEN = "RuntimeError: clock broken"
EXPECTED_ERROR: dict[str, dict[str, Any]] = {
    # No error flag: the content says it.
    "openai": {"role": "tool", "tool_call_id": "call_n", "content": "Error: " + BROKEN},
    "openai-responses": {"type": "function_call_output", "call_id": "call_n", "output": "Error: " + BROKEN},
    "ollama": {"role": "tool", "content": "Error: " + BROKEN, "tool_name": "now", "tool_call_id": "call_n"},
    "cohere": {"role": "tool", "tool_call_id": "call_n", "content": "Error: " + BROKEN},
    # The provider's own flag.
    "anthropic": {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "call_n", "content": BROKEN, "is_error": True}],
    },
    "gemini": {  # FunctionResponse.response: "error" key for error details, "output" for output
        "role": "user",
        "parts": [{"functionResponse": {"id": "call_n", "name": "now", "response": {"error": BROKEN}}}],
    },
    "bedrock": {
        "role": "user",
        "content": [
            {"toolResult": {"toolUseId": "call_n", "content": [{"text": BROKEN}], "status": "error"}}
        ],
    },
}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_encode_result(provider: CodecProviderName) -> None:
    assert encode_result(OK, provider) == EXPECTED_RESULT[provider]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_encode_result_is_error(provider: CodecProviderName) -> None:
    assert encode_result(FAILED, provider) == EXPECTED_ERROR[provider]


# Results of parallel calls: one user turn where turns must alternate, one message each elsewhere.
MERGED = {"anthropic": "content", "gemini": "parts", "bedrock": "content"}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_encode_result_of_several(provider: CodecProviderName) -> None:
    messages = encode_result([OK, FAILED], provider)
    if provider in MERGED:
        key = MERGED[provider]
        assert messages == [
            {
                **EXPECTED_RESULT[provider],
                key: EXPECTED_RESULT[provider][key] + EXPECTED_ERROR[provider][key],
            }
        ]
    else:
        assert messages == [EXPECTED_RESULT[provider], EXPECTED_ERROR[provider]]
    assert encode_result([OK], provider) == [EXPECTED_RESULT[provider]]
    assert encode_result((r for r in [OK]), provider) == [EXPECTED_RESULT[provider]]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_one_result_is_a_message_and_a_list_of_them_is_a_list_of_messages(
    provider: CodecProviderName,
) -> None:
    """The history grows by .append(one) and .extend(several): never a list inside the list."""
    history: list[Any] = [{"role": "user", "content": "Weather in Paris?"}]
    history.append(encode_result(OK, provider))
    history.extend(encode_result([OK, FAILED], provider))
    history.extend(encode_result((r for r in [FAILED]), provider))
    assert all(isinstance(message, dict) for message in history)
    # one message holding both results where turns must alternate, one message per result elsewhere
    assert len(history) == 1 + 1 + (1 if provider in MERGED else 2) + 1
    assert history[1] == EXPECTED_RESULT[provider]
    assert history[-1] == EXPECTED_ERROR[provider]


def test_encode_result_of_no_results_is_no_message_and_other_objects_are_refused() -> None:
    for provider in PROVIDERS:
        assert encode_result([], provider) == []
    with pytest.raises(UsageError, match="takes ToolResult objects, not str"):
        encode_result(["21"], "openai")  # type: ignore[call-overload]


# -- provider names, encodability --------------------------------------------------------------------


@pytest.mark.parametrize(
    "encode",
    [
        lambda p: encode_tools(TOOLS, p),
        lambda p: encode_call(WEATHER, p),
        lambda p: encode_result(OK, p),
    ],
    ids=["tools", "call", "result"],
)
def test_unknown_provider_is_a_usage_error_listing_the_known_ones(encode: Any) -> None:
    with pytest.raises(UsageError) as info:
        encode("open-ai")
    message = str(info.value)
    assert "unknown provider 'open-ai'" in message
    for name in (*PROVIDERS, "openrouter"):
        assert repr(name) in message
    with pytest.raises(UsageError):
        encode("text")  # a text stream has no request format
    with pytest.raises(UsageError):
        encode("auto")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_message_is_msgspec_encodable(provider: CodecProviderName) -> None:
    for value in (
        encode_tools(TOOLS, provider),
        encode_call([WEATHER, NOW], provider, text="Checking."),
        encode_result([OK, FAILED], provider),
    ):
        assert msgspec.json.decode(msgspec.json.encode(value)) == value


def test_arguments_are_canonical_compact_json_strings() -> None:
    call = ToolCall("c", "f", {"q": 'naïve \u2028 "quoted"', "n": [1, 2.5, None, True]})
    message: dict[str, Any] = cast("dict[str, Any]", encode_call(call, "openai"))
    arguments = message["tool_calls"][0]["function"]["arguments"]
    assert arguments == call.arguments_json
    assert msgspec.json.decode(arguments) == call.arguments


def test_precise_return_types() -> None:
    # Checked by this repository's mypy --strict run: a literal name gives the SDK's own
    # request type (tests/integration/test_typing.py passes them to the SDKs); a name typed CodecProviderName gives
    # dict[str, Any] from encode_result (the union of the SDKs' types from encode_call).
    from anthropic.types import MessageParam
    from openai.types.responses import ResponseInputItemParam

    message: MessageParam = encode_call(WEATHER, "anthropic")
    items: list[ResponseInputItemParam] = encode_call(WEATHER, "openai-responses")
    one: dict[str, Any] = encode_result(OK, "gemini")
    several: list[dict[str, Any]] = encode_result([OK], "gemini")
    name = _configured("anthropic")
    plain: list[dict[str, Any]] = encode_result([OK], name)
    turn = encode_call(WEATHER, name)
    assert turn == message
    assert isinstance(message, dict)
    assert isinstance(items, list)
    assert isinstance(one, dict)
    assert isinstance(several, list)
    assert plain == encode_result([OK], "anthropic")


def _configured(name: str) -> CodecProviderName:
    """A provider name read at run time: a str, stated to be one of the codec's names."""
    return cast(CodecProviderName, name)


def test_public_names() -> None:
    for name in ("Tool", "extract", "encode_tools", "encode_result", "encode_call", "augment_system_prompt"):
        assert name in streamcalls.__all__
    assert streamcalls.codec.CODEC_PROVIDERS == PROVIDERS
