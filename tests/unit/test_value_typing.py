"""Rule 1 of issue 15: untyped XML values are typed by the tools' parameter schemas.

Each row of the tables is one value written by the model (as the text between the tags) and
what the call's arguments must hold, for a parameter of that schema.  Every row runs through
all three formats (``qwen3_coder``, ``glm``, ``minimax``), each written here from its chat
template, so the table is checked end to end -- the detector, the typing and the JSON written
to the call assembler.  Then: the tool shapes the parser reads the schemas from.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from streamcalls import StreamParser, Tool, ToolCallCompleted, ToolCallDelta, UsageError, extract
from streamcalls.codec._tool import as_tools
from tests.support import counter_ids, feed_chunks

FORMATS = ("qwen3_coder", "glm", "minimax")


def written(fmt: str, key: str, raw: str) -> str:
    """One call of ``f`` with one parameter whose value is written as ``raw``."""
    if fmt == "qwen3_coder":
        return f"<tool_call>\n<function=f>\n<parameter={key}>\n{raw}\n</parameter>\n</function>\n</tool_call>"
    if fmt == "glm":
        return f"<tool_call>f\n<arg_key>{key}</arg_key>\n<arg_value>{raw}</arg_value>\n</tool_call>"
    return f'<minimax:tool_call>\n<invoke name="f">\n<parameter name="{key}">{raw}</parameter>\n</invoke>\n</minimax:tool_call>'


def arguments_of(fmt: str, key: str, raw: str, tools: Any) -> dict[str, Any]:
    events = feed_chunks([written(fmt, key, raw).encode()], "text", detect=[fmt], tools=tools)
    [completed] = [e for e in events if isinstance(e, ToolCallCompleted)]
    deltas = "".join(e.arguments_delta for e in events if isinstance(e, ToolCallDelta))
    assert deltas == msgspec.json.encode(completed.call.arguments).decode()  # rule 4: the deltas are its JSON
    return completed.call.arguments


def tool(schema: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {"name": "f", "parameters": {"type": "object", "properties": {"v": schema}}},
        }
    ]


BIG = "123456789012345678901234567890"

# (schema of the parameter, the value as written, the value in the arguments)
TABLE: list[tuple[dict[str, Any], str, Any]] = [
    # string: kept as it is
    ({"type": "string"}, "3", "3"),
    ({"type": "string"}, "true", "true"),
    ({"type": "string"}, " padded ", " padded "),
    ({"type": "string"}, '{"a": 1}', '{"a": 1}'),
    ({"type": "string"}, "null", "null"),
    # integer: an int, big ones too; converted after trimming; else a string
    ({"type": "integer"}, "3", 3),
    ({"type": "integer"}, "-12", -12),
    ({"type": "integer"}, " 7 ", 7),
    ({"type": "integer"}, BIG, int(BIG)),
    ({"type": "integer"}, "3.0", "3.0"),
    ({"type": "integer"}, "007", "007"),
    ({"type": "integer"}, "three", "three"),
    ({"type": "integer"}, "null", None),
    # number: an exact int for an integer literal, else a float
    ({"type": "number"}, "3", 3),
    ({"type": "number"}, BIG, int(BIG)),
    ({"type": "number"}, "2.5", 2.5),
    ({"type": "number"}, "-0.125", -0.125),
    ({"type": "number"}, "1E3", 1000.0),
    ({"type": "number"}, "1e400", "1e400"),
    ({"type": "number"}, "NaN", "NaN"),
    ({"type": "number"}, ".5", ".5"),
    # boolean: only true / false
    ({"type": "boolean"}, "true", True),
    ({"type": "boolean"}, "false", False),
    ({"type": "boolean"}, " true ", True),
    ({"type": "boolean"}, "True", "True"),
    ({"type": "boolean"}, "1", "1"),
    ({"type": "boolean"}, "yes", "yes"),
    ({"type": "boolean"}, "null", None),
    # object / array: parsed as JSON, and only the declared kind converts
    ({"type": "object"}, '{"a": [1, 2.5, "x"]}', {"a": [1, 2.5, "x"]}),
    ({"type": "object"}, '\n {"a": 1}\n', {"a": 1}),
    ({"type": "object"}, "[1]", "[1]"),
    ({"type": "object"}, "{'a': 1}", "{'a': 1}"),
    ({"type": "object"}, '{"a": 1', '{"a": 1'),
    ({"type": "object"}, "null", None),
    ({"type": "array"}, '["x", {"y": null}]', ["x", {"y": None}]),
    ({"type": "array"}, '{"a": 1}', '{"a": 1}'),
    # null: None for a string only if its schema allows null
    ({"type": ["string", "null"]}, "null", None),
    ({"anyOf": [{"type": "string"}, {"type": "null"}]}, "null", None),
    ({"type": "string", "nullable": True}, "null", None),
    ({"type": ["string", "null"]}, "nul", "nul"),
    ({"type": ["string", "null"]}, "nullable", "nullable"),
    ({"type": "null"}, "null", None),
    # anyOf / oneOf / a type list: the first type that is not null decides
    ({"anyOf": [{"type": "integer"}, {"type": "string"}]}, "5", 5),
    ({"anyOf": [{"type": "integer"}, {"type": "string"}]}, "five", "five"),
    ({"oneOf": [{"type": "null"}, {"type": "boolean"}]}, "true", True),
    ({"type": ["null", "number"]}, "2.5", 2.5),
    ({"type": ["null", "number"]}, "null", None),
    ({"type": ["string", "integer"]}, "5", "5"),
    # names read case-blind (Gemini's OpenAPI subset); an unknown type is a string
    ({"type": "INTEGER"}, "5", 5),
    ({"type": "date"}, "2025-08-01", "2025-08-01"),
    # enum and const without a type: the type of their first value
    ({"enum": ["c", "f"]}, "c", "c"),
    ({"enum": [1, 2]}, "2", 2),
    ({"enum": [None, True]}, "null", None),
    ({"const": 2.5}, "2.5", 2.5),
    # no type at all: a string
    ({}, "5", "5"),
    ({"description": "anything"}, "true", "true"),
]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(("schema", "raw", "value"), TABLE, ids=[f"{s}-{r!r}" for s, r, _ in TABLE])
def test_a_value_is_typed_by_its_schema(fmt: str, schema: dict[str, Any], raw: str, value: Any) -> None:
    got = arguments_of(fmt, "v", raw, tool(schema))["v"]
    assert got == value
    assert type(got) is type(value)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_ref_into_the_schemas_own_defs_is_followed(fmt: str) -> None:
    parameters = {
        "type": "object",
        "properties": {"place": {"$ref": "#/$defs/Place"}, "unit": {"$ref": "#/$defs/Unit"}},
        "$defs": {"Place": {"type": "object"}, "Unit": {"enum": ["c", "f"]}},
    }
    tools = [{"name": "f", "parameters": parameters}]
    assert arguments_of(fmt, "place", '{"city": "Oslo"}', tools) == {"place": {"city": "Oslo"}}
    assert arguments_of(fmt, "unit", "c", tools) == {"unit": "c"}


@pytest.mark.parametrize("fmt", FORMATS)
def test_without_a_schema_every_value_is_a_string(fmt: str) -> None:
    assert arguments_of(fmt, "v", "3", None) == {"v": "3"}  # no tools=
    assert arguments_of(fmt, "v", "3", ["f"]) == {"v": "3"}  # a name only
    assert arguments_of(fmt, "w", "3", tool({"type": "integer"})) == {"w": "3"}  # not in the schema
    assert arguments_of(
        fmt, "v", "3", [{"name": "g", "parameters": {"properties": {"v": {"type": "integer"}}}}]
    ) == {"v": "3"}  # another tool's


def test_cyclic_refs_end_as_strings() -> None:
    parameters = {
        "type": "object",
        "properties": {"v": {"$ref": "#/$defs/A"}},
        "$defs": {"A": {"$ref": "#/$defs/A"}},
    }
    assert arguments_of("glm", "v", "3", [{"name": "f", "parameters": parameters}]) == {"v": "3"}


# -- where the schemas come from ---------------------------------------------------------------------

INTEGER = {"type": "object", "properties": {"v": {"type": "integer"}}}


def get_weather(v: int) -> str:
    """A typed function."""
    return str(v)


SHAPES: list[tuple[str, Any]] = [
    ("openai", {"type": "function", "function": {"name": "f", "parameters": INTEGER}}),
    ("responses", {"type": "function", "name": "f", "parameters": INTEGER}),
    ("anthropic", {"name": "f", "input_schema": INTEGER}),
    ("bedrock", {"toolSpec": {"name": "f", "inputSchema": {"json": INTEGER}}}),
    (
        "gemini-json-schema",
        {"functionDeclarations": [{"name": "g"}, {"name": "f", "parametersJsonSchema": INTEGER}]},
    ),
    (
        "gemini-openapi",
        {
            "function_declarations": [
                {"name": "f", "parameters": {"type": "OBJECT", "properties": {"v": {"type": "INTEGER"}}}}
            ]
        },
    ),
    ("tool", Tool("f", parameters=INTEGER)),
    ("from_function", Tool.from_function(get_weather, name="f")),
]


@pytest.mark.parametrize(("shape", "definition"), SHAPES, ids=[s for s, _ in SHAPES])
def test_schemas_are_read_from_every_providers_tool_shape(shape: str, definition: Any) -> None:
    assert arguments_of("qwen3_coder", "v", "3", [definition]) == {"v": 3}


@pytest.mark.parametrize(("shape", "definition"), SHAPES, ids=[s for s, _ in SHAPES])
def test_the_codec_reads_the_same_shapes(shape: str, definition: Any) -> None:
    [found] = [t for t in as_tools([definition]) if t.name == "f"]
    assert found.schema["properties"]["v"]["type"].lower() == "integer"


def test_a_gemini_dict_holds_several_tools() -> None:
    definition = {"functionDeclarations": [{"name": "a"}, {"name": "b", "description": "B"}]}
    assert [(t.name, t.description) for t in as_tools([definition])] == [("a", ""), ("b", "B")]


def test_a_bare_function_is_no_tool_definition_for_the_parser() -> None:
    with pytest.raises(UsageError, match=r"Tool\.from_function"):
        StreamParser("text", detect=["qwen3_coder"], tools=[get_weather])


def test_extract_reads_a_functions_schema() -> None:
    text = "<tool_call>\n<function=get_weather>\n<parameter=v>\n3\n</parameter>\n</function>\n</tool_call>"
    [call] = extract(text, provider="text", detect=("qwen3_coder",), tools=[get_weather])
    assert call.arguments == {"v": 3}


@pytest.mark.parametrize(
    ("tools", "message"),
    [
        ([{"toolSpec": {"inputSchema": {"json": {}}}}], "a tool without a name"),
        ([{"functionDeclarations": "f"}], "functionDeclarations must be a list"),
        ([{"functionDeclarations": ["f"]}], "a function declaration must be a dict"),
        ([{"name": "f", "parameters": "integer"}], "parameters must be a JSON schema dict"),
        ([{"name": "f", "description": 3}], "description must be a string"),
    ],
)
def test_malformed_definitions_are_usage_errors(tools: Any, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        StreamParser("text", detect=["glm"], tools=tools)


def test_the_last_definition_of_a_name_wins() -> None:
    tools = [*tool({"type": "string"}), *tool({"type": "integer"})]
    assert arguments_of("minimax", "v", "3", tools) == {"v": 3}


def test_tool_names_still_decide_bare_json() -> None:
    parser = StreamParser("text", tools=[{"toolSpec": {"name": "get_time"}}], id_factory=counter_ids())
    events = parser.feed('{"name": "get_time"}\n') + parser.close()
    assert [e.call.name for e in events if isinstance(e, ToolCallCompleted)] == ["get_time"]
