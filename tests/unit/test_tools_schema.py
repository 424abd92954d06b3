"""Tool.from_function: the schema written from a function's annotations and docstring.

Every schema is a snapshot reviewed by eye, and each is checked against the
draft 2020-12 meta-schema; arguments the validator accepts must also be valid
under the schema (jsonschema as an independent reader).
"""

from __future__ import annotations

import datetime
import functools
from typing import Annotated, Any

import jsonschema
import msgspec
import pytest

import streamcalls
from streamcalls import Tool, ToolCall, UsageError
from streamcalls.codec import CodecProviderName
from tests.support import tool_kinds as kinds

UNIT = {"title": "Unit", "description": "A temperature unit.", "enum": ["celsius", "fahrenheit"]}
LOCATION = {
    "title": "Location",
    "description": "A point on the map.",
    "type": "object",
    "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
    "required": ["lat", "lon"],
}

SNAPSHOTS: dict[str, dict[str, Any]] = {
    "scalars": {
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "flag": {"type": "boolean"},
            "nothing": {"type": "null"},
        },
        "required": ["text", "count", "ratio", "flag", "nothing"],
        "additionalProperties": False,
    },
    "collections": {
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": {"type": "integer"}},
            "pair": {
                "type": "array",
                "minItems": 2,
                "maxItems": 2,
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "items": False,
            },
            "many": {"type": "array", "items": {"type": "number"}},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "scores": {"type": "object", "additionalProperties": {"type": "number"}},
        },
        "required": ["items", "pair", "many", "tags", "scores"],
        "additionalProperties": False,
    },
    "choices": {
        "type": "object",
        "properties": {
            "mode": {"enum": ["exact", "fast"]},
            "unit": {"$ref": "#/$defs/Unit"},
            "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            "maybe": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "old": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        },
        "required": ["mode", "unit", "either", "maybe", "old"],
        "additionalProperties": False,
        "$defs": {"Unit": UNIT},
    },
    "stamps": {
        "type": "object",
        "properties": {
            "at": {"type": "string", "format": "date-time"},
            "day": {"type": "string", "format": "date"},
            "clock": {"type": "string"},
            "key": {"type": "string", "format": "uuid"},
            "amount": {"type": "string", "format": "decimal"},
        },
        "required": ["at", "day", "clock", "key", "amount"],
        "additionalProperties": False,
    },
    "records": {
        "type": "object",
        "properties": {
            "where": {"$ref": "#/$defs/Location"},
            "window": {"$ref": "#/$defs/Window"},
            "address": {"$ref": "#/$defs/Address"},
            "span": {"$ref": "#/$defs/Span"},
        },
        "required": ["where", "window", "address", "span"],
        "additionalProperties": False,
        "$defs": {
            "Location": LOCATION,
            "Window": {
                "title": "Window",
                "type": "object",
                "properties": {
                    "start": {"type": "string", "format": "date"},
                    "days": {"type": "integer", "default": 1},
                },
                "required": ["start"],
            },
            "Address": {
                "title": "Address",
                "type": "object",
                "properties": {"city": {"type": "string"}, "street": {"type": "string"}},
                "required": ["city", "street"],
            },
            "Span": {
                "title": "Span",
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "integer"}],
                "minItems": 2,
                "maxItems": 2,
            },
        },
    },
    "constrained": {
        "type": "object",
        "properties": {
            "days": {"description": "How many days", "type": "integer", "minimum": 1, "maximum": 7},
            "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
        },
        "required": ["days", "code"],
        "additionalProperties": False,
    },
    # "call" (a ToolCall) is not an argument; the defaults are shown, and only "city" is required.
    "defaults": {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"$ref": "#/$defs/Unit", "default": "celsius"},
            "days": {"type": "integer", "default": 3},
            "where": {"anyOf": [{"$ref": "#/$defs/Location"}, {"type": "null"}], "default": None},
            "tags": {"type": "array", "items": {"type": "string"}, "default": []},
        },
        "required": ["city"],
        "additionalProperties": False,
        "$defs": {"Unit": UNIT, "Location": LOCATION},
    },
}

# Arguments a model may send, each valid for its function.
VALID: dict[str, list[dict[str, Any]]] = {
    "scalars": [{"text": "é", "count": -3, "ratio": 2, "flag": False, "nothing": None}],
    "collections": [
        {"items": [], "pair": [1, "a"], "many": [1.5, 2], "tags": ["x", "y"], "scores": {"a": 1}},
    ],
    "choices": [
        {"mode": "fast", "unit": "celsius", "either": 3, "maybe": None, "old": 1},
        {"mode": "exact", "unit": "fahrenheit", "either": "three", "maybe": "m", "old": None},
    ],
    "stamps": [
        {
            "at": "2025-03-01T09:30:00+01:00",
            "day": "2025-03-01",
            "clock": "09:30:00",
            "key": "4b5f6f1e-8a52-4f0e-9d4c-3f1b2a6c7d8e",
            "amount": "12.50",
        }
    ],
    "records": [
        {
            "where": {"lat": 48.85, "lon": 2.35},
            "window": {"start": "2025-03-01"},
            "address": {"street": "1 rue de Rivoli", "city": "Paris"},
            "span": [1, 5],
        }
    ],
    "constrained": [{"days": 1, "code": "CDG"}, {"days": 7, "code": "NRT"}],
    "defaults": [{"city": "Paris"}, {"city": "Oslo", "unit": "fahrenheit", "where": None, "tags": ["a"]}],
}


def test_every_kind_has_a_snapshot() -> None:
    assert sorted(SNAPSHOTS) == sorted(fn.__name__ for fn in kinds.KINDS) == sorted(VALID)


@pytest.mark.parametrize("fn", kinds.KINDS, ids=lambda fn: fn.__name__)
def test_the_schema_of_each_kind_of_annotation(fn: Any) -> None:
    tool = Tool.from_function(fn)
    assert tool.name == fn.__name__
    assert tool.parameters == SNAPSHOTS[fn.__name__]
    assert tool.function is fn
    assert tool.timeout is None


@pytest.mark.parametrize("fn", kinds.KINDS, ids=lambda fn: fn.__name__)
def test_each_schema_is_valid_draft_2020_12_and_self_contained(fn: Any) -> None:
    schema = Tool.from_function(fn).schema
    jsonschema.Draft202012Validator.check_schema(schema)
    assert _refs(schema) <= {f"#/$defs/{name}" for name in schema.get("$defs", {})}
    for arguments in VALID[fn.__name__]:
        jsonschema.Draft202012Validator(schema).validate(arguments)


def _refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"]} if "$ref" in node else set()
        return found.union(*(_refs(value) for value in node.values()))
    if isinstance(node, list):
        return set().union(*(_refs(value) for value in node))
    return set()


def test_schemas_the_meta_schema_rejects_are_caught() -> None:
    """The meta-schema check has teeth: a schema msgspec would never write fails it."""
    with pytest.raises(jsonschema.SchemaError):
        jsonschema.Draft202012Validator.check_schema({"type": "object", "required": "city"})


# -- names and descriptions --------------------------------------------------------------


def google(city: str, days: int = 1, unit: str = "celsius") -> str:
    """Weather forecast for a city,
    day by day.

    Only the first paragraph is the description.

    Args:
        city: The city's name,
            in English.
        days (int): How many days ahead.

        unit: celsius or fahrenheit.

    Returns:
        city: not a parameter's description.
    """
    return city


def sphinx(city: str, when: datetime.date, note: str = "") -> str:
    """Book a table.
    :param city: Where.
    :param datetime.date when: The day,
        in ISO form.
    :returns: a confirmation
    """
    return city


def with_meta(city: Annotated[str, msgspec.Meta(description="From Meta")], days: int) -> str:
    """Meta comes first.

    Args:
        city: From the docstring.
        days: Days.
    """
    return city


def undocumented(city: str) -> str:
    return city


def test_descriptions_from_a_google_docstring() -> None:
    tool = Tool.from_function(google)
    assert tool.description == "Weather forecast for a city, day by day."
    assert tool.schema["properties"] == {
        "city": {"type": "string", "description": "The city's name, in English."},
        "days": {"type": "integer", "description": "How many days ahead.", "default": 1},
        "unit": {"type": "string", "description": "celsius or fahrenheit.", "default": "celsius"},
    }


def test_descriptions_from_sphinx_fields() -> None:
    tool = Tool.from_function(sphinx)
    assert tool.description == "Book a table."
    assert tool.schema["properties"] == {
        "city": {"type": "string", "description": "Where."},
        "when": {"type": "string", "format": "date", "description": "The day, in ISO form."},
        "note": {"type": "string", "default": ""},
    }
    assert tool.schema["required"] == ["city", "when"]


def test_a_meta_description_comes_before_the_docstring() -> None:
    properties = Tool.from_function(with_meta).schema["properties"]
    assert properties["city"] == {"type": "string", "description": "From Meta"}
    assert properties["days"] == {"type": "integer", "description": "Days."}


def test_name_description_and_timeout_given() -> None:
    tool = Tool.from_function(google, name="forecast", description="Given.", timeout=2.5)
    assert (tool.name, tool.description, tool.timeout) == ("forecast", "Given.", 2.5)
    assert tool.schema == Tool.from_function(google).schema
    undocumented_tool = Tool.from_function(undocumented)
    assert undocumented_tool.description == ""
    assert undocumented_tool.schema["properties"] == {"city": {"type": "string"}}


def test_no_parameters_an_async_function_and_a_partial() -> None:
    async def now() -> str:
        """The time."""
        return "12:00"

    assert Tool.from_function(now) == Tool(
        "now",
        "The time.",
        {"type": "object", "properties": {}, "required": [], "additionalProperties": False},
        now,
    )
    bound = functools.partial(google, unit="kelvin")
    tool = Tool.from_function(bound)
    assert (tool.name, tool.description) == ("google", "Weather forecast for a city, day by day.")
    # A bound keyword is the partial's, not the model's: it is not in the schema.
    assert list(tool.schema["properties"]) == ["city", "days"]


def test_a_tool_call_parameter_is_not_in_the_schema() -> None:
    def locate(city: str, call: ToolCall) -> str:
        return call.id

    schema = Tool.from_function(locate).schema
    assert schema["properties"] == {"city": {"type": "string"}}
    assert schema["required"] == ["city"]


def test_read_once_per_function() -> None:
    first, second = Tool.from_function(google), Tool.from_function(google, name="other")
    assert first.parameters is second.parameters


# -- what cannot be a tool ---------------------------------------------------------------


class NotATypeMsgspecKnows:
    pass


def star_args(*cities: str) -> None: ...
def star_kwargs(city: str, **options: str) -> None: ...
def positional(city: str, /, days: int) -> None: ...
def unannotated(city, days: int) -> None: ...  # type: ignore[no-untyped-def]
def unknown_type(city: str, thing: NotATypeMsgspecKnows) -> None: ...
def bare_object(city: str, thing: object) -> None: ...


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (star_args, "star_args cannot be a tool: *cities: a tool's arguments are named"),
        (star_kwargs, "star_kwargs cannot be a tool: **options: every argument needs its own annotated"),
        (positional, "positional cannot be a tool: city is positional-only"),
        (unannotated, "unannotated cannot be a tool: parameter 'city' has no annotation"),
        (unknown_type, "unknown_type cannot be a tool: the type of parameter 'thing'"),
        (bare_object, "bare_object cannot be a tool: the type of parameter 'thing'"),
    ],
    ids=lambda value: value if isinstance(value, str) else value.__name__,
)
def test_what_cannot_be_a_tool_is_a_usage_error_naming_it(fn: Any, message: str) -> None:
    with pytest.raises(UsageError) as caught:
        Tool.from_function(fn)
    assert str(caught.value).startswith(message)


def test_an_annotation_that_names_nothing_and_a_nameless_callable() -> None:
    def later(city: NotDefinedAnywhere) -> None: ...  # type: ignore[name-defined]  # noqa: F821

    with pytest.raises(
        UsageError, match=r"parameter 'city' \('NotDefinedAnywhere'\) names something not defined"
    ):
        Tool.from_function(later)
    with pytest.raises(UsageError, match="no name usable as a tool's name: pass name="):
        Tool.from_function(lambda: None)
    assert Tool.from_function(lambda: None, name="noop").name == "noop"
    with pytest.raises(UsageError, match="timeout must be a positive number"):
        Tool.from_function(google, timeout=0)


# -- the codec takes functions too --------------------------------------------------------


@pytest.mark.parametrize("provider", streamcalls.codec.CODEC_PROVIDERS)
def test_encode_tools_takes_functions_and_tools_alike(provider: CodecProviderName) -> None:
    tools = [Tool.from_function(google), Tool.from_function(sphinx)]
    assert streamcalls.encode_tools([google, sphinx], provider) == streamcalls.encode_tools(tools, provider)
    assert streamcalls.encode_tools([google, tools[1]], provider) == streamcalls.encode_tools(tools, provider)


def test_encode_tools_writes_the_function_schema() -> None:
    [spec] = streamcalls.encode_tools([google], "anthropic")
    assert spec == {
        "name": "google",
        "description": "Weather forecast for a city, day by day.",
        "input_schema": Tool.from_function(google).schema,
    }
    with pytest.raises(UsageError, match="not a single one"):
        streamcalls.encode_tools(google, "openai")  # type: ignore[call-overload]


def test_augment_system_prompt_takes_functions_and_tools_alike() -> None:
    tools = [Tool.from_function(google), Tool.from_function(sphinx)]
    for compact in (False, True):
        assert streamcalls.augment_system_prompt("Be brief.", [google, sphinx], compact) == (
            streamcalls.augment_system_prompt("Be brief.", tools, compact)
        )
    assert (
        "google(city: string, days?: integer, unit?: string) - Weather forecast for a city, day by day."
        in (streamcalls.augment_system_prompt(None, [google], compact=True))
    )
