"""Dependencies the model never sees: ToolContext parameters, run_tools(..., context=...), and partials.

A tool's database handle or user is not an argument: it is never in the
schema, the model cannot set it, and the run hands it to the tool.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from typing import TYPE_CHECKING, Any, Protocol

import jsonschema
import pytest

import streamcalls
from streamcalls import Tool, ToolCall, ToolContext, ToolResult, UsageError
from tests.unit.test_tools_validation import results_of

if TYPE_CHECKING:
    from decimal import Context as OnlyForTypeCheckers  # never imported at run time

pytestmark = pytest.mark.anyio


@dataclasses.dataclass
class Shop:
    """What the tools of one conversation need: a database (a dict here) and the user."""

    orders: dict[str, list[str]]
    user: str
    threads: list[str] = dataclasses.field(default_factory=list)


async def list_orders(ctx: ToolContext[Shop], status: str = "open") -> list[str]:
    """The user's orders in a status."""
    return [f"{ctx.deps.user}:{order}" for order in ctx.deps.orders.get(status, [])]


def cancel(order: str, ctx: ToolContext[Shop] | None = None) -> str:
    """Cancel an order (sync: it runs in a worker thread)."""
    assert ctx is not None
    ctx.deps.threads.append(threading.current_thread().name)
    ctx.deps.orders["open"].remove(order)
    return f"{order} cancelled for {ctx.deps.user} (call {ctx.call.id})"


def who(ctx: ToolContext) -> str:  # type: ignore[type-arg]  # no type for its deps: anything goes
    return type(ctx.deps).__name__


def test_the_context_parameter_is_not_in_the_schema() -> None:
    assert Tool.from_function(list_orders).schema == {
        "type": "object",
        "properties": {"status": {"type": "string", "default": "open"}},
        "required": [],
        "additionalProperties": False,
    }
    schema = Tool.from_function(cancel).schema
    assert schema["properties"] == {"order": {"type": "string"}}
    assert schema["required"] == ["order"]
    jsonschema.Draft202012Validator.check_schema(schema)
    [spec] = streamcalls.encode_tools([cancel], "anthropic")
    assert "ctx" not in str(spec)


async def test_run_tools_hands_each_tool_the_context_and_its_call() -> None:
    shop = Shop({"open": ["A-1", "A-2"], "shipped": ["S-1"]}, "ada")
    results = await results_of(
        [list_orders, cancel, who],
        ("list_orders", {"status": "shipped"}),
        ("cancel", {"order": "A-2"}),
        ("who", {}),
        context=shop,
    )
    assert results == [
        ToolResult("call_0", "list_orders", '["ada:S-1"]'),
        ToolResult("call_1", "cancel", "A-2 cancelled for ada (call call_1)"),
        ToolResult("call_2", "who", "Shop"),
    ]
    assert shop.orders == {"open": ["A-1"], "shipped": ["S-1"]}
    assert len(shop.threads) == 1
    assert shop.threads[0] != threading.main_thread().name


async def test_the_model_cannot_set_the_context() -> None:
    [result] = await results_of(
        [list_orders], ("list_orders", {"ctx": {"user": "mallory"}}), context=Shop({}, "ada")
    )
    assert result == ToolResult(
        "call_0", "list_orders", "invalid arguments for list_orders: Object contains unknown field ctx", True
    )


async def test_the_context_object_is_the_same_deps_for_every_call() -> None:
    seen: list[tuple[object, ToolCall]] = []

    async def note(ctx: ToolContext[object], text: str) -> str:
        seen.append((ctx.deps, ctx.call))
        return text

    deps = object()
    await results_of([note], ("note", {"text": "a"}), ("note", {"text": "b"}), context=deps)
    assert sorted(call.id for _, call in seen) == ["call_0", "call_1"]
    assert all(got is deps for got, _ in seen)
    assert {call.arguments["text"] for _, call in seen} == {"a", "b"}


async def test_a_mapping_of_from_function_tools_gets_the_context_and_plain_functions_do_not_need_it() -> None:
    def plain(order: str) -> str:
        return order

    tools = {"cancel": Tool.from_function(cancel), "plain": plain}
    results = await results_of(
        tools, ("cancel", {"order": "B"}), ("plain", {"order": "C"}), context=Shop({"open": ["B"]}, "bo")
    )
    assert [r.content for r in results] == ["B cancelled for bo (call call_0)", "C"]


class HasUser(Protocol):
    user: str


def by_protocol(ctx: ToolContext[HasUser]) -> str:
    return ctx.deps.user


def only_for_types(ctx: ToolContext[OnlyForTypeCheckers], n: int) -> str:
    return type(ctx.deps).__name__


def two_contexts(a: ToolContext[Shop], b: ToolContext[Shop]) -> None: ...


async def test_misuse_is_reported_at_the_call() -> None:
    events = streamcalls.aparse(_nothing())
    with pytest.raises(
        UsageError,
        match=r"the tool 'list_orders' takes a ToolContext \('ctx'\): pass its dependencies as run_tools\(\.\.\., context=\.\.\.\)",
    ):
        streamcalls.run_tools(events, [list_orders])
    with pytest.raises(
        UsageError, match=r"the tool 'list_orders' takes ToolContext\[Shop\] \('ctx'\), but context= is a str"
    ):
        streamcalls.run_tools(events, [list_orders], context="ada")
    with pytest.raises(UsageError, match="both 'a' and 'b' take a ToolContext"):
        Tool.from_function(two_contexts)
    # What run time cannot tell is not checked: a Protocol, a type imported for type checkers only.
    streamcalls.run_tools(events, [by_protocol, only_for_types], context=Shop({}, "ada"))
    assert Tool.from_function(only_for_types).schema["properties"] == {"n": {"type": "integer"}}


async def test_a_context_whose_type_is_only_for_type_checkers_still_arrives() -> None:
    [result] = await results_of([only_for_types], ("only_for_types", {"n": 1}), context=Shop({}, "ada"))
    assert result == ToolResult("call_0", "only_for_types", "Shop")


async def _nothing() -> Any:
    return
    yield


# -- functools.partial: bound keywords are the caller's --------------------------------------------


def lookup(db, user: str, order: str, *, verbose: bool = False) -> str:  # type: ignore[no-untyped-def]
    """Look an order up.

    Args:
        db: The database (bound by the caller).
        user: Whose order.
        order: The order's number.
    """
    return f"{db[user][order]}{'!' if verbose else ''}"


def test_bound_keywords_are_not_in_the_schema_and_need_no_annotation() -> None:
    bound = functools.partial(lookup, db={"ada": {"A-1": "shipped"}}, user="ada")
    tool = Tool.from_function(bound)
    assert (tool.name, tool.description) == ("lookup", "Look an order up.")
    assert tool.schema == {
        "type": "object",
        "properties": {
            "order": {"type": "string", "description": "The order's number."},
            "verbose": {"type": "boolean", "default": False},
        },
        "required": ["order"],
        "additionalProperties": False,
    }
    # A partial of a partial binds what both bind.
    twice = functools.partial(functools.partial(lookup, db={}), verbose=True)
    assert list(Tool.from_function(twice).schema["properties"]) == ["user", "order"]


async def test_a_partial_runs_with_its_bound_keywords_and_the_model_cannot_override_them() -> None:
    bound = functools.partial(lookup, db={"ada": {"A-1": "shipped"}, "eve": {"A-1": "stolen"}}, user="ada")
    results = await results_of(
        [bound], ("lookup", {"order": "A-1", "verbose": True}), ("lookup", {"order": "A-1", "user": "eve"})
    )
    assert results == [
        ToolResult("call_0", "lookup", "shipped!"),
        ToolResult(
            "call_1", "lookup", "invalid arguments for lookup: Object contains unknown field user", True
        ),
    ]
