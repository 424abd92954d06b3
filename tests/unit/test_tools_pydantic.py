"""Pydantic models in typed tools: their own schema and validation, and model return values.

pydantic stays optional: without it, ``import streamcalls`` and
``Tool.from_function`` on plain types work (checked in a subprocess where
pydantic cannot be imported), and with it installed streamcalls never loads
it on its own.  The oracles are pydantic itself (its own ``model_json_schema``
and error messages), a snapshot reviewed by eye, and jsonschema reading every
schema (draft 2020-12 meta-schema, then valid and invalid arguments).
"""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Annotated, Any

import jsonschema
import msgspec
import pydantic
import pydantic.dataclasses
import pytest

import streamcalls
from streamcalls import Tool, ToolResult, UsageError
from tests.unit.test_tools_validation import results_of

ROOT = Path(__file__).resolve().parent.parent.parent


class Item(pydantic.BaseModel):
    """One line of an order."""

    sku: str
    quantity: int = pydantic.Field(gt=0, description="How many")


class Order(pydantic.BaseModel):
    items: list[Item]
    when: datetime.datetime


class Holder(msgspec.Struct):
    """A msgspec Struct holding a model: msgspec reads the Struct, pydantic the model."""

    order: Order
    at: datetime.datetime


def place(
    order: Order,
    extra: list[Item] | None = None,
    holder: Holder | None = None,
    copies: Annotated[int, pydantic.Field(ge=1)] = 1,
) -> str:
    """Place an order.

    Args:
        order: What to order.
    """
    return "ok"


ITEM = {
    "title": "Item",
    "description": "One line of an order.",
    "type": "object",
    "properties": {
        "sku": {"title": "Sku", "type": "string"},
        "quantity": {
            "title": "Quantity",
            "description": "How many",
            "type": "integer",
            "exclusiveMinimum": 0,
        },
    },
    "required": ["sku", "quantity"],
}
ORDER = {
    "title": "Order",
    "type": "object",
    "properties": {
        "items": {"title": "Items", "type": "array", "items": {"$ref": "#/$defs/Item"}},
        "when": {"title": "When", "type": "string", "format": "date-time"},
    },
    "required": ["items", "when"],
}
PLACE = {
    "type": "object",
    "properties": {
        "order": {"$ref": "#/$defs/Order", "description": "What to order."},
        "extra": {
            "anyOf": [{"type": "array", "items": {"$ref": "#/$defs/Item"}}, {"type": "null"}],
            "default": None,
        },
        "holder": {"anyOf": [{"$ref": "#/$defs/Holder"}, {"type": "null"}], "default": None},
        "copies": {"type": "integer", "minimum": 1, "default": 1},
    },
    "required": ["order"],
    "additionalProperties": False,
    "$defs": {
        "Holder": {
            "title": "Holder",
            "description": "A msgspec Struct holding a model: msgspec reads the Struct, pydantic the model.",
            "type": "object",
            "properties": {
                "order": {"$ref": "#/$defs/Order"},
                "at": {"type": "string", "format": "date-time"},
            },
            "required": ["order", "at"],
        },
        "Item": ITEM,
        "Order": ORDER,
    },
}
ORDER_ARGUMENTS = {"items": [{"sku": "A-1", "quantity": 2}], "when": "2025-03-01T09:30:00Z"}


def checked(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    """A validator of ``schema``, once the schema passed the draft 2020-12 meta-schema."""
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_the_schema_of_model_parameters() -> None:
    schema = Tool.from_function(place).schema
    assert schema == PLACE
    validator = checked(schema)
    validator.validate({"order": ORDER_ARGUMENTS})
    validator.validate(
        {"order": ORDER_ARGUMENTS, "extra": None, "holder": {"order": ORDER_ARGUMENTS, "at": "x"}}
    )
    for wrong in (
        {"order": {**ORDER_ARGUMENTS, "items": [{"sku": "A-1", "quantity": 0}]}},
        {"order": ORDER_ARGUMENTS, "copies": 0},
        {"order": ORDER_ARGUMENTS, "unknown": 1},
    ):
        assert not validator.is_valid(wrong)


def test_the_models_definitions_are_pydantic_own() -> None:
    own = Order.model_json_schema(ref_template="#/$defs/{model}")
    definitions = own.pop("$defs")
    schema = Tool.from_function(place).schema
    assert schema["$defs"]["Order"] == own
    assert schema["$defs"]["Item"] == definitions["Item"]


ItemStruct = msgspec.defstruct("Item", [("code", int)])  # a msgspec type of the same name as the model


def both_items(mine: ItemStruct, theirs: Item) -> str:  # type: ignore[valid-type]
    return "ok"


def test_a_definition_name_taken_is_renamed_with_its_references() -> None:
    schema = Tool.from_function(both_items).schema
    assert schema["properties"] == {"mine": {"$ref": "#/$defs/Item"}, "theirs": {"$ref": "#/$defs/Item2"}}
    assert schema["$defs"]["Item"]["properties"] == {"code": {"type": "integer"}}
    assert schema["$defs"]["Item2"] == ITEM
    checked(schema).validate({"mine": {"code": 1}, "theirs": {"sku": "A", "quantity": 1}})


@pydantic.dataclasses.dataclass
class Positive:
    n: int

    @pydantic.field_validator("n")
    @classmethod
    def _positive(cls, value: int) -> int:
        if value < 0:
            raise ValueError("must not be negative")
        return value


received: list[dict[str, Any]] = []


def book(
    order: Order, holder: Holder | None = None, extra: list[Item] | None = None, p: Positive | None = None
) -> str:
    received.append({"order": order, "holder": holder, "extra": extra, "p": p})
    return "booked"


pytestmark = pytest.mark.anyio


async def test_run_tools_delivers_validated_models() -> None:
    received.clear()
    arguments = {
        "order": ORDER_ARGUMENTS,
        "holder": {"order": {"items": [], "when": "2025-03-02T10:00:00+01:00"}, "at": "2025-03-01T09:30:00"},
        "extra": [{"sku": "B", "quantity": "3"}],  # pydantic's lax mode: its own validation, as it is
        "p": {"n": 4},
    }
    [result] = await results_of([book], ("book", arguments))
    assert result == ToolResult("call_0", "book", "booked")
    [got] = received
    utc = datetime.timezone.utc
    assert got["order"] == Order(
        items=[Item(sku="A-1", quantity=2)], when=datetime.datetime(2025, 3, 1, 9, 30, tzinfo=utc)
    )
    assert type(got["holder"]) is Holder
    assert type(got["holder"].order) is Order
    assert got["holder"].at == datetime.datetime(2025, 3, 1, 9, 30)
    assert got["extra"] == [Item(sku="B", quantity=3)]
    assert got["p"] == Positive(4)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"order": {"items": [{"sku": "A", "quantity": 0}], "when": "soon"}},
            "Input should be greater than 0 - at $.order.items[0].quantity; "
            "Input should be a valid datetime or date, input is too short - at $.order.when",
        ),
        (
            {
                "order": ORDER_ARGUMENTS,
                "holder": {"order": ORDER_ARGUMENTS, "at": "x"},
            },
            "Invalid RFC3339 encoded datetime - at $.holder.at",  # msgspec's field beside the model
        ),
        (
            {
                "order": ORDER_ARGUMENTS,
                "holder": {"order": {"items": [{"sku": 1}]}, "at": "2025-03-01T09:30:00"},
            },
            "Input should be a valid string - at $.holder.order.items[0].sku; "
            "Field required - at $.holder.order.items[0].quantity; Field required - at $.holder.order.when",
        ),
        ({"order": ORDER_ARGUMENTS, "p": {"n": -1}}, "Value error, must not be negative - at $.p.n"),
        ({"order": ORDER_ARGUMENTS, "extra": {"sku": "B"}}, "Input should be a valid list - at $.extra"),
        ({}, "Object missing required field order"),
    ],
    ids=[
        "in the model",
        "msgspec around it",
        "model in a Struct",
        "pydantic dataclass",
        "list of models",
        "missing",
    ],
)
async def test_invalid_models_are_error_results_with_pydantic_messages_at_their_paths(
    arguments: dict[str, Any], message: str
) -> None:
    received.clear()
    [result] = await results_of([book], ("book", arguments))
    assert result == ToolResult("call_0", "book", f"invalid arguments for book: {message}", is_error=True)
    assert received == []


async def test_returned_models_are_encoded_as_pydantic_dumps_them() -> None:
    order = Order(items=[Item(sku="A-1", quantity=2)], when=datetime.datetime(2025, 3, 1, 9, 30))

    def one() -> Order:
        return order

    async def several() -> dict[str, list[Item]]:
        return {"items": order.items * 2}

    def unencodable() -> object:
        return object()

    results = await results_of([one, several, unencodable], ("one", {}), ("several", {}), ("unencodable", {}))
    assert json.loads(results[0].content) == order.model_dump(mode="json")
    assert results[0].content == '{"items":[{"sku":"A-1","quantity":2}],"when":"2025-03-01T09:30:00"}'
    assert results[1] == ToolResult(
        "call_1", "several", '{"items":[{"sku":"A-1","quantity":2},{"sku":"A-1","quantity":2}]}'
    )
    assert results[2].is_error
    assert results[2].content.endswith("TypeError: Encoding objects of type object is unsupported")


class NotFullyDefined(pydantic.BaseModel):
    x: NotDefinedAnywhere  # type: ignore[name-defined]  # noqa: F821


class Unknown:
    pass


class Odd(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(defer_build=True)  # else the class itself fails
    thing: Unknown


def broken(model: NotFullyDefined) -> None: ...


def holds_broken(holder: Holder, models: list[NotFullyDefined]) -> None: ...


def odd(value: Odd) -> None: ...


def test_models_pydantic_cannot_read_are_usage_errors() -> None:
    with pytest.raises(
        UsageError,
        match=r"^broken cannot be a tool: pydantic cannot read the type of parameter 'model' .* is not fully defined",
    ):
        Tool.from_function(broken)
    with pytest.raises(UsageError, match=r"^holds_broken cannot be a tool: pydantic cannot read .*'models'"):
        Tool.from_function(holds_broken)
    with pytest.raises(
        UsageError, match=r"^odd cannot be a tool: .*Unable to generate pydantic-core schema for .*Unknown"
    ):
        Tool.from_function(odd)


def test_encode_tools_writes_the_models_schema() -> None:
    [spec] = streamcalls.encode_tools([place], "openai")
    assert spec["function"]["parameters"] == PLACE


# -- pydantic stays optional --------------------------------------------------------------


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": ""},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_without_pydantic_plain_tools_work() -> None:
    result = run_python(
        """
        import sys
        sys.modules["pydantic"] = None  # import pydantic now raises ImportError
        try:
            import pydantic
        except ImportError:
            pass
        else:
            raise SystemExit("pydantic was importable")

        import datetime
        import anyio
        import streamcalls

        def get_weather(city: str, when: datetime.datetime, days: int = 1) -> dict[str, object]:
            '''Weather in a city.'''
            return {"city": city, "days": days}

        tool = streamcalls.Tool.from_function(get_weather)
        assert tool.schema["properties"]["when"] == {"type": "string", "format": "date-time"}, tool.schema

        async def main():
            body = (
                b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function",'
                b'"function":{"name":"get_weather","arguments":"{\\\\"city\\\\":\\\\"Oslo\\\\",'
                b'\\\\"when\\\\":\\\\"2025-03-01T09:30:00Z\\\\"}"}}]}}]}\\n\\ndata: [DONE]\\n\\n'
            )
            async def chunks():
                yield body
            async with streamcalls.run_tools(streamcalls.aparse(chunks(), provider="openai"), [get_weather]) as run:
                return [result async for result in run.results()]

        results = anyio.run(main)
        assert results == [streamcalls.ToolResult("c1", "get_weather", '{"city":"Oslo","days":1}')], results
        print("ok")
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_streamcalls_never_imports_pydantic_itself() -> None:
    result = run_python(
        """
        import sys
        import streamcalls

        def get_weather(city: str, days: int = 1) -> str:
            return city

        streamcalls.Tool.from_function(get_weather)
        streamcalls.encode_tools([get_weather], "anthropic")
        print("pydantic" in sys.modules)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"
