"""The detector engine: a format is a small declaration on its parts.

Formats declared here, and registered only for the test, in the shapes the next formats take
(JSON between tokens, with other keys, name-keyed, one per line; Python calls in a list or one
per line; XML parameters under other tags; a second format on a shared opener).  Each must give
its calls, keep every character (rule 8) and give the same events for any chunking, with no
code of its own.  And the machine itself: states are an IntEnum with a step each.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import pytest

from streamcalls import ToolCallFailed
from streamcalls.detectors import DETECTORS
from streamcalls.detectors._engine.detector import Detector
from streamcalls.detectors._engine.machine import Machine
from streamcalls.detectors._parts.callblock import CallBlock
from streamcalls.detectors._parts.callkeys import CallKeys
from streamcalls.detectors._parts.jsoncalls import Body, JsonCalls
from streamcalls.detectors._parts.pycalls import PythonCalls
from streamcalls.detectors._parts.xmlparams import Closer
from tests.support import bytewise, feed_chunks, normalize, split_at
from tests.support import completed_calls as calls
from tests.support import text_of as texts
from tests.support.conservation import check_conservation


class Jamba(JsonCalls):
    name = "t_jamba"
    openers = (("<tool_calls>", "</tool_calls>"),)
    body = Body.ARRAY
    __slots__ = ()


class Lines(JsonCalls):
    name = "t_lines"
    openers = (("<calls>", "</calls>"),)
    body = Body.LINES
    __slots__ = ()


class Plugin(JsonCalls):
    name = "t_plugin"
    openers = (("<|action_start|><|plugin|>", "<|action_end|>"),)
    body = Body.OBJECTS
    __slots__ = ()


class Apertus(JsonCalls):
    name = "t_apertus"
    openers = (("<|tools_prefix|>", "<|tools_suffix|>"),)
    body = Body.ARRAY
    keys = CallKeys(name_keyed=True)
    __slots__ = ()


class Cohere(JsonCalls):
    name = "t_cohere"
    openers = (("<|START_ACTION|>", "<|END_ACTION|>"),)
    keys = CallKeys.of(name=("tool_name",), arguments=("parameters",), id=("tool_call_id",))
    __slots__ = ()


class Bare(JsonCalls):
    name = "t_bare"
    openers = (("<|tool_call|>", ""),)  # no closer: the JSON's end ends it
    end_tokens = ("<|end_of_text|>",)
    __slots__ = ()


class ListInTags(JsonCalls):
    name = "t_list_tags"
    openers = (("<tool_call>", "</tool_call>"),)
    body = Body.ARRAY
    shares = "<tool_call>"
    claim = "["
    __slots__ = ()


class PythonList(PythonCalls):
    name = "t_pylist"
    opener = "<|tool_call_start|>"
    closer = "<|tool_call_end|>"
    __slots__ = ()


class PythonLines(PythonCalls):
    name = "t_pylines"
    opener = "<function_calls>"
    closer = "</function_calls>"
    lines = True
    __slots__ = ()


class SeedLike(CallBlock):
    name = "t_seed"
    openers = (("<seed:tool_call>", "</seed:tool_call>"),)
    call_open = "<function="
    parameter_open = "<parameter="
    call_end = "</function>"
    closer = Closer("</parameter>", (parameter_open, call_end, "</seed:tool_call>"))
    __slots__ = ()


FORMATS: tuple[type[Detector], ...] = (
    Jamba,
    Lines,
    Plugin,
    Apertus,
    Cohere,
    Bare,
    ListInTags,
    PythonList,
    PythonLines,
    SeedLike,
)


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    for kind in FORMATS:
        monkeypatch.setitem(DETECTORS, kind.name, kind)


F = '{"name": "f", "arguments": {"a": 1}}'
G = '{"name": "g", "arguments": {}}'
CASES = [
    # (detect, text, calls, text left)
    (
        ("t_jamba",),
        f"Sure.\n<tool_calls>[{F}, {G}]</tool_calls>\nDone.",
        [("f", {"a": 1}), ("g", {})],
        "Sure.\n\nDone.",
    ),
    (
        ("t_jamba",),
        f"<tool_calls>[{F}] and prose",
        [("f", {"a": 1})],
        " and prose",
    ),  # no closer: still a call
    (("t_lines",), f"<calls>\n{F}\n{G}\n</calls>", [("f", {"a": 1}), ("g", {})], ""),
    (("t_plugin",), f"Let me.<|action_start|><|plugin|>\n{F}<|action_end|>", [("f", {"a": 1})], "Let me."),
    (
        ("t_apertus",),
        '<|tools_prefix|>[{"get_weather": {"city": "Paris"}}, {"f": {}}]<|tools_suffix|>',
        [("get_weather", {"city": "Paris"}), ("f", {})],
        "",
    ),
    (
        ("t_cohere",),
        '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {"a": 1}}]<|END_ACTION|>',
        [("f", {"a": 1})],
        "",
    ),
    (("t_bare",), f"<|tool_call|>[{F}]<|end_of_text|>", [("f", {"a": 1})], ""),
    (("t_bare",), f"<|tool_call|>{F} and more", [("f", {"a": 1})], " and more"),
    (
        ("t_list_tags", "hermes"),
        f"<tool_call>[{F}, {G}]</tool_call><tool_call>{F}</tool_call>",
        [("f", {"a": 1}), ("g", {}), ("f", {"a": 1})],
        "",
    ),
    (("t_pylist",), "<|tool_call_start|>[f(a=1), g()]<|tool_call_end|>", [("f", {"a": 1}), ("g", {})], ""),
    (
        ("t_pylines",),
        "<function_calls>f(a='x')\ng()\n</function_calls>After.",
        [("f", {"a": "x"}), ("g", {})],
        "After.",
    ),
    (
        ("t_seed",),
        "<seed:tool_call><function=f><parameter=a>1</parameter></function></seed:tool_call>",
        [("f", {"a": "1"})],
        "",
    ),
]


@pytest.mark.parametrize(("detect", "text", "found", "left"), CASES)
def test_a_declared_format_reads_its_calls_keeps_every_character_and_any_chunking(
    detect: tuple[str, ...], text: str, found: list[tuple[str, dict[str, Any]]], left: str
) -> None:
    raw = text.encode()
    whole = feed_chunks([raw], "text", detect=detect)
    assert [(c.name, c.arguments) for c in calls(whole)] == found
    assert texts(whole) == left
    assert not [e for e in whole if isinstance(e, ToolCallFailed)]
    check_conservation(text, whole)
    assert normalize(feed_chunks(bytewise(raw), "text", detect=detect)) == normalize(whole)
    assert normalize(feed_chunks(split_at(raw, range(0, len(raw), 3)), "text", detect=detect)) == normalize(
        whole
    )


def test_the_model_s_call_ids_are_kept() -> None:
    text = '<|START_ACTION|>[{"tool_call_id": "7", "tool_name": "f", "parameters": {}}]<|END_ACTION|>'
    [call] = calls(feed_chunks([text.encode()], "text", detect=("t_cohere",)))
    assert call.id == "7"


@pytest.mark.parametrize(
    ("detect", "text", "raw"),
    [
        (("t_jamba",), "<tool_calls>prose", "<tool_calls>"),
        (("t_jamba",), "<tool_calls></tool_calls>x", "<tool_calls></tool_calls>"),
        (("t_jamba",), "<tool_calls>", "<tool_calls>"),
    ],
)
def test_an_opener_with_no_json_fails_with_its_markup(detect: tuple[str, ...], text: str, raw: str) -> None:
    events = feed_chunks([text.encode()], "text", detect=detect)
    [failed] = [e for e in events if isinstance(e, ToolCallFailed)]
    assert failed.raw == raw
    check_conservation(text, events)


def test_a_state_without_its_step_is_an_error_when_the_class_is_made() -> None:
    with pytest.raises(TypeError, match="no step _second"):

        class Broken(Machine):
            class State(IntEnum):
                FIRST = 0
                SECOND = 1

            def _first(self, text: str, pos: int) -> int:
                return pos


def test_states_number_from_zero() -> None:
    with pytest.raises(TypeError, match="number its states"):

        class Gapped(Machine):
            class State(IntEnum):
                ONE = 1

            def _one(self, text: str, pos: int) -> int:
                return pos


def test_every_registered_detector_is_a_machine_with_an_int_enum_of_states() -> None:
    for name, kind in DETECTORS.items():
        assert issubclass(kind, Machine), name
        assert issubclass(kind.State, IntEnum), name
        assert len(kind.steps) == len(kind.State), name
