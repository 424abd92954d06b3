"""augment_system_prompt: exact text, and a model answer written by its rules round-trips."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import streamcalls
from streamcalls import Tool, ToolCall, ToolCallCompleted, UsageError, augment_system_prompt, extract
from tests.support import counter_ids

WEATHER = Tool(
    "get_weather",
    "Current weather\n  in a city.",
    {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "days": {"type": "integer"},
        },
        "required": ["city", "days"],
    },
)
TOOLS: list[Tool | dict[str, Any]] = [
    WEATHER,
    Tool("now"),
    {
        "type": "function",
        "function": {
            "name": "search",
            "parameters": {
                "type": "object",
                "properties": {
                    "terms": {"type": "array", "items": {"type": "string"}},
                    "limit": {"type": ["integer", "null"]},
                    "filter": {"anyOf": [{"type": "string"}, {"type": "object"}]},
                    "raw": {},
                },
            },
        },
    },
]

HEADER = """\
# Tools

You can call the tools listed below. To call one, write a block: a line ~~~tool_call, then one JSON \
object with the tool's "name" and its "arguments" (an object that follows the tool's parameters), \
then a line ~~~. For example:

~~~tool_call
{"name": "get_weather", "arguments": {"city": "...", "days": 0}}
~~~

Write one block per call; to call several tools, write several blocks. Put nothing else inside a \
block. After your calls, stop: the results come back in the next message.

Tools:"""

FULL = (
    "You are a helpful assistant.\n\n"
    + HEADER
    + """

get_weather: Current weather in a city.
Parameters: {"type":"object","properties":{"city":{"type":"string","description":"City name"},\
"unit":{"type":"string","enum":["celsius","fahrenheit"]},"days":{"type":"integer"}},"required":["city","days"]}

now
Parameters: {"type":"object","properties":{}}

search
Parameters: {"type":"object","properties":{"terms":{"type":"array","items":{"type":"string"}},\
"limit":{"type":["integer","null"]},"filter":{"anyOf":[{"type":"string"},{"type":"object"}]},"raw":{}}}"""
)

COMPACT = (
    "You are a helpful assistant.\n\n"
    + HEADER
    + """
get_weather(city: string, unit?: "celsius"|"fahrenheit", days: integer) - Current weather in a city.
now()
search(terms?: string[], limit?: integer|null, filter?: string|object, raw?: any)"""
)


def test_full_text() -> None:
    assert augment_system_prompt("You are a helpful assistant.", TOOLS) == FULL


def test_compact_text() -> None:
    assert augment_system_prompt("You are a helpful assistant.", TOOLS, compact=True) == COMPACT
    assert augment_system_prompt("You are a helpful assistant.", TOOLS, True) == COMPACT
    assert len(COMPACT) < len(FULL)


def test_existing_prompt() -> None:
    assert augment_system_prompt("You are a helpful assistant.\n\n", TOOLS) == FULL
    assert augment_system_prompt(None, TOOLS) == FULL.removeprefix("You are a helpful assistant.\n\n")
    assert augment_system_prompt("", TOOLS, compact=True) == COMPACT.removeprefix(
        "You are a helpful assistant.\n\n"
    )
    assert augment_system_prompt("Be brief.", []) == "Be brief."


def test_deterministic_and_input_shapes_agree() -> None:
    as_tools = [WEATHER, Tool("now")]
    as_dicts: list[dict[str, Any]] = [
        {"name": "get_weather", "description": WEATHER.description, "parameters": WEATHER.parameters},
        {"type": "function", "function": {"name": "now"}},
    ]
    assert augment_system_prompt("x", as_tools) == augment_system_prompt("x", as_dicts)
    assert augment_system_prompt("x", as_tools, compact=True) == augment_system_prompt(
        "x", as_dicts, compact=True
    )
    assert augment_system_prompt("x", as_tools) == augment_system_prompt("x", list(as_tools))


def test_bad_tools() -> None:
    with pytest.raises(UsageError, match="a tool without a name"):
        augment_system_prompt("x", [{"description": "nameless"}])


# -- a model answer written by the prompt's own rules ------------------------------------------------------


def example_block(prompt: str) -> str:
    match = re.search(r"^~~~tool_call\n.*?\n~~~$", prompt, re.MULTILINE | re.DOTALL)
    assert match is not None
    return match.group(0)


def answer(prompt: str) -> str:
    """What a model writes when it follows the prompt: prose, then the example block filled in, twice."""
    block = example_block(prompt).replace('"..."', '"Oslo"').replace(": 0", ": 3")
    second = '~~~tool_call\n{"name": "now", "arguments": {}}\n~~~'
    return f"I'll check the weather and the time.\n\n{block}\n{second}\n"


EXPECTED = [
    ToolCall("call_gen_0", "get_weather", {"city": "Oslo", "days": 3}, 0, "fence"),
    ToolCall("call_gen_1", "now", {}, 1, "fence"),
]


@pytest.mark.parametrize("compact", [False, True])
def test_an_answer_following_the_prompt_round_trips_through_the_parser(compact: bool) -> None:
    text = answer(augment_system_prompt("", TOOLS, compact))
    events = streamcalls.parse(text, "text", id_factory=counter_ids())
    assert [e.call for e in events if isinstance(e, ToolCallCompleted)] == EXPECTED
    prose = "".join(e.text for e in events if isinstance(e, streamcalls.TextDelta))
    assert prose.strip() == "I'll check the weather and the time."


@pytest.mark.parametrize("compact", [False, True])
def test_an_answer_following_the_prompt_round_trips_through_extract(compact: bool) -> None:
    text = answer(augment_system_prompt("", TOOLS, compact))
    assert extract(text, provider="text", id_factory=counter_ids()) == EXPECTED
    response = {"choices": [{"message": {"role": "assistant", "content": text}}]}
    assert extract(response, id_factory=counter_ids()) == EXPECTED
    for provider in ("anthropic", "gemini", "ollama"):
        message = {
            "anthropic": {"role": "assistant", "content": [{"type": "text", "text": text}]},
            "gemini": {"role": "model", "parts": [{"text": text}]},
            "ollama": {"message": {"role": "assistant", "content": text}, "done": True},
        }[provider]
        assert extract(message, id_factory=counter_ids()) == EXPECTED


names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,20}", fullmatch=True)
schemas = st.fixed_dictionaries(
    {"type": st.just("object")},
    optional={
        "properties": st.dictionaries(
            names,
            st.sampled_from(
                [
                    {"type": "string"},
                    {"type": "integer"},
                    {"type": "number"},
                    {"type": "boolean"},
                    {"type": "array", "items": {"type": "string"}},
                    {"type": "object"},
                    {"type": ["string", "null"]},
                    {"enum": ["a, b: c", 2]},
                    {},
                ]
            ),
            max_size=4,
        ),
    },
)


@settings(max_examples=100, deadline=None)
@given(name=names, description=st.text(max_size=30), schema=schemas, compact=st.booleans())
def test_the_example_block_is_always_a_call_of_the_first_tool(
    name: str, description: str, schema: dict[str, Any], compact: bool
) -> None:
    prompt = augment_system_prompt("sys", [Tool(name, description, schema), Tool("other")], compact)
    calls = extract(example_block(prompt), provider="text")
    assert [c.name for c in calls] == [name]
    assert set(calls[0].arguments) == set(schema.get("properties", {}))
    assert "\n\n\n" not in prompt
