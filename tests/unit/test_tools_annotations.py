"""Tool.from_function, the annotations ordinary code writes: datetimes anywhere, numpy docstrings,
``Annotated[T, "text"]``, and string annotations that do not resolve.

Each schema is a snapshot reviewed by eye, checked against the draft 2020-12
meta-schema, and valid arguments for it are validated by jsonschema.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple, TypedDict

import jsonschema
import msgspec
import pytest

from streamcalls import Tool, ToolResult, UsageError
from tests.unit.test_tools_validation import results_of

if TYPE_CHECKING:
    from decimal import Context as OnlyForTypeCheckers  # never imported at run time

DATE_TIME = {"type": "string", "format": "date-time"}


class Slot(msgspec.Struct):
    start: datetime.datetime
    end: datetime.datetime | None = None
    next: Slot | None = None  # recursive: the walk follows a $ref once


@dataclasses.dataclass
class Visit:
    at: datetime.datetime


class Entry(TypedDict):
    at: datetime.datetime


class Pair(NamedTuple):
    first: datetime.datetime
    second: datetime.date


class Tagged(msgspec.Struct, tag=True, array_like=True):
    at: datetime.datetime


class Other(msgspec.Struct, tag=True, array_like=True):
    n: int


class Meeting(msgspec.Struct, tag=True):
    at: datetime.datetime


class Reminder(msgspec.Struct, tag=True):
    at: datetime.date


def stamps(
    *,
    at: datetime.datetime,
    maybe: datetime.datetime | None,
    many: list[datetime.datetime],
    by_name: dict[str, datetime.datetime],
    pair: tuple[datetime.datetime, int],
    either: datetime.datetime | int,
    listed: list[datetime.datetime] | None,
    slot: Slot,
    visit: Visit,
    entry: Entry,
    named: Pair,
    tagged: Tagged | Other,
    event: Meeting | Reminder | None,
    aware: Annotated[datetime.datetime, msgspec.Meta(tz=True)],
    naive: Annotated[datetime.datetime, msgspec.Meta(tz=False)],
    meta: Annotated[datetime.datetime, msgspec.Meta(extra_json_schema={"format": "mine"})],
    day: datetime.date,
    clock: datetime.time,
) -> None: ...


STAMPS = {
    "type": "object",
    "properties": {
        "at": DATE_TIME,
        "maybe": {"anyOf": [DATE_TIME, {"type": "null"}]},
        "many": {"type": "array", "items": DATE_TIME},
        "by_name": {"type": "object", "additionalProperties": DATE_TIME},
        "pair": {
            "type": "array",
            "minItems": 2,
            "maxItems": 2,
            "prefixItems": [DATE_TIME, {"type": "integer"}],
            "items": False,
        },
        "either": {"anyOf": [DATE_TIME, {"type": "integer"}]},
        "listed": {"anyOf": [{"type": "array", "items": DATE_TIME}, {"type": "null"}]},
        "slot": {"$ref": "#/$defs/Slot"},
        "visit": {"$ref": "#/$defs/Visit"},
        "entry": {"$ref": "#/$defs/Entry"},
        "named": {"$ref": "#/$defs/Pair"},
        "tagged": {"anyOf": [{"$ref": "#/$defs/Tagged"}, {"$ref": "#/$defs/Other"}]},
        "event": {
            "anyOf": [
                {
                    "anyOf": [{"$ref": "#/$defs/Meeting"}, {"$ref": "#/$defs/Reminder"}],
                    "discriminator": {
                        "propertyName": "type",
                        "mapping": {"Meeting": "#/$defs/Meeting", "Reminder": "#/$defs/Reminder"},
                    },
                },
                {"type": "null"},
            ]
        },
        "aware": DATE_TIME,
        "naive": {"type": "string"},  # naive only: not RFC 3339's date-time, which has an offset
        "meta": {"type": "string", "format": "mine"},  # the annotation's own format comes first
        "day": {"type": "string", "format": "date"},
        "clock": {"type": "string"},
    },
    "required": [
        "at",
        "maybe",
        "many",
        "by_name",
        "pair",
        "either",
        "listed",
        "slot",
        "visit",
        "entry",
        "named",
        "tagged",
        "event",
        "aware",
        "naive",
        "meta",
        "day",
        "clock",
    ],
    "additionalProperties": False,
    "$defs": {
        "Slot": {
            "title": "Slot",
            "type": "object",
            "properties": {
                "start": DATE_TIME,
                "end": {"anyOf": [DATE_TIME, {"type": "null"}], "default": None},
                "next": {"anyOf": [{"$ref": "#/$defs/Slot"}, {"type": "null"}], "default": None},
            },
            "required": ["start"],
        },
        "Visit": {"title": "Visit", "type": "object", "properties": {"at": DATE_TIME}, "required": ["at"]},
        "Entry": {"title": "Entry", "type": "object", "properties": {"at": DATE_TIME}, "required": ["at"]},
        "Pair": {
            "title": "Pair",
            "type": "array",
            "prefixItems": [DATE_TIME, {"type": "string", "format": "date"}],
            "minItems": 2,
            "maxItems": 2,
        },
        "Tagged": {
            "title": "Tagged",
            "type": "array",
            "prefixItems": [{"enum": ["Tagged"]}, DATE_TIME],
            "minItems": 2,
        },
        "Other": {
            "title": "Other",
            "type": "array",
            "prefixItems": [{"enum": ["Other"]}, {"type": "integer"}],
            "minItems": 2,
        },
        "Meeting": {
            "title": "Meeting",
            "type": "object",
            "properties": {"type": {"enum": ["Meeting"]}, "at": DATE_TIME},
            "required": ["type", "at"],
        },
        "Reminder": {
            "title": "Reminder",
            "type": "object",
            "properties": {"type": {"enum": ["Reminder"]}, "at": {"type": "string", "format": "date"}},
            "required": ["type", "at"],
        },
    },
}
AT = "2025-03-01T09:30:00+01:00"
STAMPS_ARGUMENTS = {
    "at": AT,
    "maybe": None,
    "many": [AT],
    "by_name": {"a": AT},
    "pair": [AT, 1],
    "either": 3,
    "listed": [AT],
    "slot": {"start": AT, "next": {"start": AT}},
    "visit": {"at": AT},
    "entry": {"at": AT},
    "named": [AT, "2025-03-01"],
    "tagged": ["Tagged", AT],
    "event": {"type": "Meeting", "at": AT},
    "aware": AT,
    "naive": "2025-03-01T09:30:00",
    "meta": AT,
    "day": "2025-03-01",
    "clock": "09:30:00",
}


def test_every_datetime_is_a_date_time_wherever_it_is() -> None:
    schema = Tool.from_function(stamps).schema
    assert schema == STAMPS
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(STAMPS_ARGUMENTS)


pytestmark = pytest.mark.anyio


async def test_the_validation_reads_what_the_schema_says() -> None:
    [result] = await results_of([stamps], ("stamps", STAMPS_ARGUMENTS))
    assert result == ToolResult("call_0", "stamps", "null")
    [wrong] = await results_of([stamps], ("stamps", {**STAMPS_ARGUMENTS, "many": ["tomorrow"]}))
    assert wrong.content == "invalid arguments for stamps: Invalid RFC3339 encoded datetime - at $.many[0]"


# -- descriptions ----------------------------------------------------------------------------------


def numpy_style(city: str, days: int = 1, lat: float = 0.0, lon: float = 0.0) -> str:
    """Weather forecast for a city,
    day by day.

    Parameters
    ----------
    city : str
        The city's name,
        in English.
    days : int, optional
        How many days ahead.
    lat, lon : float
        Where, if the name is ambiguous.

    Returns
    -------
    city : str
        not a parameter's description.
    """
    return city


def numpy_tight(city: str) -> str:
    """Book a table.
    Parameters
    ----------
    city
        Where.
    """
    return city


def annotated(
    city: Annotated[str, "The city's name."],
    days: Annotated[int, msgspec.Meta(ge=1), "How many days."],
    unit: Annotated[str, msgspec.Meta(description="From Meta."), "Not this."] = "celsius",
    note: Annotated[str, "From Annotated."] = "",
) -> str:
    """Annotated comes before the docstring.

    Args:
        note: Not this either.
        unit: Nor this.
    """
    return city


class Doc:
    """What ``typing_extensions.Doc`` is (PEP 727): an object with ``documentation``."""

    def __init__(self, documentation: str) -> None:
        self.documentation = documentation


def documented(city: Annotated[str, Doc("From Doc.")]) -> str:
    return city


def test_descriptions_from_a_numpy_docstring() -> None:
    tool = Tool.from_function(numpy_style)
    assert tool.description == "Weather forecast for a city, day by day."
    assert tool.schema["properties"] == {
        "city": {"type": "string", "description": "The city's name, in English."},
        "days": {"type": "integer", "description": "How many days ahead.", "default": 1},
        "lat": {"type": "number", "description": "Where, if the name is ambiguous.", "default": 0.0},
        "lon": {"type": "number", "description": "Where, if the name is ambiguous.", "default": 0.0},
    }
    tight = Tool.from_function(numpy_tight)
    assert tight.description == "Book a table."
    assert tight.schema["properties"] == {"city": {"type": "string", "description": "Where."}}


def test_descriptions_from_annotated_text() -> None:
    schema = Tool.from_function(annotated).schema
    assert schema["properties"] == {
        "city": {"type": "string", "description": "The city's name."},
        "days": {"type": "integer", "minimum": 1, "description": "How many days."},
        "unit": {"type": "string", "description": "From Meta.", "default": "celsius"},
        "note": {"type": "string", "description": "From Annotated.", "default": ""},
    }
    jsonschema.Draft202012Validator.check_schema(schema)
    assert Tool.from_function(documented).schema["properties"] == {
        "city": {"type": "string", "description": "From Doc."}
    }


# -- annotations that do not resolve -----------------------------------------------------------------


def not_defined(city: str, when: NotDefinedAnywhere) -> None: ...  # type: ignore[name-defined]  # noqa: F821
def no_attribute(when: datetime.NotAnAttribute) -> None: ...  # type: ignore[name-defined]
def only_for_type_checkers(ctx: OnlyForTypeCheckers) -> None: ...


def not_python(when: int) -> None: ...


not_python.__annotations__ = {"when": "list[int", "return": "None"}


def not_evaluable(when: int) -> None: ...


not_evaluable.__annotations__ = {"when": "int | 'str'", "return": "None"}


@dataclasses.dataclass
class Later:
    when: NotDefinedEither  # type: ignore[name-defined]  # noqa: F821


def holds_later(item: Later) -> None: ...


def forward_in_a_list(items: list[int]) -> None: ...


forward_in_a_list.__annotations__ = {"items": list["NotDefinedAnywhere"]}  # type: ignore[name-defined]  # noqa: F821


def returns_nothing_known(city: str) -> NotDefinedAnywhere:  # type: ignore[name-defined]  # noqa: F821
    return city


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (
            not_defined,
            "not_defined cannot be a tool: the annotation of parameter 'when' ('NotDefinedAnywhere') names "
            "something not defined where the function is: NameError: name 'NotDefinedAnywhere' is not defined",
        ),
        (
            no_attribute,
            "no_attribute cannot be a tool: the annotation of parameter 'when' ('datetime.NotAnAttribute') names "
            "something not defined where the function is: AttributeError: module 'datetime' has no attribute "
            "'NotAnAttribute'",
        ),
        (
            only_for_type_checkers,
            "only_for_type_checkers cannot be a tool: the annotation of parameter 'ctx' ('OnlyForTypeCheckers') "
            "names something not defined where the function is",
        ),
        (
            not_python,
            "not_python cannot be a tool: the annotation of parameter 'when' ('list[int') does not evaluate: "
            "SyntaxError:",
        ),
        (
            not_evaluable,
            "not_evaluable cannot be a tool: the annotation of parameter 'when' (\"int | 'str'\") does not "
            "evaluate: TypeError:",
        ),
        (
            holds_later,
            "holds_later cannot be a tool: the type of parameter 'item' (<class 'tests.unit.test_tools_annotations.Later'>) "
            "names something not defined where it is: name 'NotDefinedEither' is not defined",
        ),
    ],
    ids=lambda value: value if isinstance(value, str) else value.__name__,
)
def test_an_annotation_that_does_not_resolve_is_a_usage_error_naming_the_parameter(
    fn: Any, message: str
) -> None:
    with pytest.raises(UsageError) as caught:
        Tool.from_function(fn)
    assert str(caught.value).startswith(message)
    assert caught.value.__cause__ is None


def test_what_does_not_resolve_but_is_not_an_argument_is_fine() -> None:
    # The return annotation is not read; a bound keyword's annotation is not the model's business.
    assert Tool.from_function(returns_nothing_known).schema["properties"] == {"city": {"type": "string"}}
    bound = functools.partial(not_defined, when=None)
    assert Tool.from_function(bound).schema["properties"] == {"city": {"type": "string"}}
    with pytest.raises(
        UsageError,
        match=r"^forward_in_a_list cannot be a tool: the type of parameter 'items' .* has no JSON schema",
    ):
        Tool.from_function(forward_in_a_list)


def _new_kinds() -> list[Any]:
    """Every function the new tests build a tool from (the modules are imported here, for one sweep)."""
    from tests.unit import test_tools_context as context
    from tests.unit import test_tools_pydantic as models

    return [
        stamps,
        numpy_style,
        numpy_tight,
        annotated,
        documented,
        returns_nothing_known,
        functools.partial(not_defined, when=None),
        context.list_orders,
        context.cancel,
        context.who,
        context.only_for_types,
        functools.partial(context.lookup, db={}),
        models.place,
        models.both_items,
        models.book,
    ]


@pytest.mark.parametrize("fn", _new_kinds(), ids=lambda fn: getattr(fn, "__name__", None) or repr(fn)[:40])
def test_each_new_schema_is_valid_draft_2020_12_and_self_contained(fn: Any) -> None:
    schema = Tool.from_function(fn).schema
    jsonschema.Draft202012Validator.check_schema(schema)
    assert _refs(schema) <= {f"#/$defs/{name}" for name in schema.get("$defs", {})}


def _refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"]} if "$ref" in node else set()
        return found.union(*(_refs(value) for value in node.values()))
    if isinstance(node, list):
        return set().union(*(_refs(value) for value in node))
    return set()
