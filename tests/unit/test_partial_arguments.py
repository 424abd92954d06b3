"""PartialArguments: applying a call's patches, and reading the value so far."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from streamcalls import PartialArguments, ToolCallPatch, UsageError
from tests.unit.test_partial import openai_wire, run


def test_partial_arguments_applies_adds_and_appends() -> None:
    live = PartialArguments()
    assert live.value is None
    steps = [
        (ToolCallPatch(0, "add", (), {}), {}),
        (ToolCallPatch(0, "add", ("s",), ""), {"s": ""}),
        (ToolCallPatch(0, "append", ("s",), "ab"), {"s": "ab"}),
        (ToolCallPatch(0, "append", ("s",), "c"), {"s": "abc"}),
        (ToolCallPatch(0, "add", ("l",), []), {"s": "abc", "l": []}),
        (ToolCallPatch(0, "add", ("l", 0), "x"), {"s": "abc", "l": ["x"]}),
        (ToolCallPatch(0, "append", ("l", 0), "y"), {"s": "abc", "l": ["xy"]}),
        (ToolCallPatch(0, "append", ("s",), "d"), {"s": "abcd", "l": ["xy"]}),
        (ToolCallPatch(0, "add", ("l", 1), {"k": [1]}), {"s": "abcd", "l": ["xy", {"k": [1]}]}),
        (ToolCallPatch(0, "add", ("s",), 5), {"s": 5, "l": ["xy", {"k": [1]}]}),  # a duplicate key replaces
    ]
    for patch, value in steps:
        live.apply(patch)
        assert live.value == value
    assert repr(live) == "PartialArguments({'s': 5, 'l': ['xy', {'k': [1]}]})"


def test_partial_arguments_copies_what_it_is_given_and_what_it_gives() -> None:
    empty: dict[str, Any] = {}
    whole = {"a": [1, {"b": "c"}]}
    live = PartialArguments()
    live.apply(ToolCallPatch(0, "add", (), empty))
    live.apply(ToolCallPatch(0, "add", ("x",), 1))
    assert empty == {}  # the event's value was not changed
    live.apply(ToolCallPatch(0, "add", (), whole))
    live.apply(ToolCallPatch(0, "add", ("a", 1, "d"), 2))
    assert whole == {"a": [1, {"b": "c"}]}
    got = live.value
    got["a"].append("mutated")
    assert live.value == {"a": [1, {"b": "c", "d": 2}]}


def test_partial_arguments_root_string_and_deep_values() -> None:
    live = PartialArguments()
    live.apply(ToolCallPatch(0, "add", (), ""))
    live.apply(ToolCallPatch(0, "append", (), "ab"))
    live.apply(ToolCallPatch(0, "append", (), "c"))
    assert live.value == "abc"
    deep: Any = []
    for _ in range(5000):  # no recursion: any depth
        deep = [deep]
    live.apply(ToolCallPatch(0, "add", (), deep))
    value = live.value
    for _ in range(5000):
        value = value[0]
    assert value == []


@pytest.mark.parametrize(
    "patch",
    [
        ToolCallPatch(0, "add", ("a", "b"), 1),  # no "a"
        ToolCallPatch(0, "add", (0,), 1),  # an index into an object
        ToolCallPatch(0, "add", ("l", 5), 1),  # past the array's end
        ToolCallPatch(0, "add", ("l", "k"), 1),  # a name in an array
        ToolCallPatch(0, "append", ("n",), "x"),  # not a string
        ToolCallPatch(0, "append", ("missing",), "x"),
        ToolCallPatch(0, "append", ("s",), 3),  # an append carries a string
        ToolCallPatch(0, "remove", ("s",), None),  # type: ignore[arg-type]
    ],
)
def test_partial_arguments_refuses_a_patch_that_does_not_fit(patch: ToolCallPatch) -> None:
    live = PartialArguments()
    live.apply(ToolCallPatch(0, "add", (), {"l": [], "n": 1, "s": "x"}))
    with pytest.raises(UsageError):
        live.apply(patch)


def test_partial_arguments_follows_patches_decoded_from_json() -> None:
    # A consumer on the other side of a wire gets fresh path tuples for every append.
    events = run([openai_wire(['{"a": "x', "y", 'z", "b": [1, "', 'q"]}'])], "openai")
    live = PartialArguments()
    for event in events:
        if isinstance(event, ToolCallPatch):
            live.apply(msgspec.json.decode(msgspec.json.encode(event), type=ToolCallPatch))
    assert live.value == {"a": "xyz", "b": [1, "q"]}
