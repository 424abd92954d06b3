"""partial_arguments=True on made-up argument texts, in every provider and text format (issue 13).

Hypothesis writes the JSON text itself -- every escape style, surrogate pairs,
big ints, floats, duplicate keys, random blanks, double-encoded and empty
arguments -- cuts it into random fragments, wraps it in a provider's stream or
a text format, and feeds that whole, one byte at a time and at random splits:
the patches follow the rules (tests/support/partial_rules.py) and fold to the same
sequence every time.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support import bytewise, split_at
from tests.support import streams as s
from tests.support.partial_rules import NOTHING, Invalid, check_patches, folded_patches, prefix_value, same
from tests.unit.test_partial import completed, openai_wire, run

_WS = st.sampled_from(["", "", "", " ", "\n", "\t", " \r\n  "])
_SHORT = {
    '"': '\\"',
    "\\": "\\\\",
    "/": "\\/",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def _u_escape(char: str, upper: bool) -> str:
    code = ord(char)
    units = (
        [code] if code < 0x10000 else [0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)]
    )
    return "".join(f"\\u{unit:04X}" if upper else f"\\u{unit:04x}" for unit in units)


@st.composite
def json_strings(draw: st.DrawFn) -> str:
    chars = st.characters(exclude_categories=["Cs"])  # a JSON text holds no lone surrogates
    styled = draw(st.lists(st.tuples(chars, st.integers(0, 3)), max_size=12))
    out = ['"']
    for char, style in styled:
        raw_ok = char not in '"\\' and ord(char) >= 0x20
        if (style == 0 and raw_ok) or (style == 3 and raw_ok and char not in _SHORT):
            out.append(char)
        elif style == 3 or (style == 0 and char in _SHORT):
            out.append(_SHORT.get(char) or _u_escape(char, False))
        else:
            out.append(_u_escape(char, style == 2))
    return "".join(out) + '"'


_NUMBERS = st.one_of(
    st.integers().map(str),  # big ints included
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.from_regex(r"-?(0|[1-9][0-9]{0,25})(\.[0-9]{1,8})?([eE][-+]?[0-9]{1,2})?", fullmatch=True),
)
_SCALARS = st.one_of(json_strings(), _NUMBERS, st.sampled_from(["true", "false", "null"]))
_KEYS = st.one_of(
    st.sampled_from(['"a"', '"b"', '"path"', '"ключ"', '"😀"', '"q\\"k"', '"a/b~c"', '""', '"\\u0061"']),
    json_strings(),
)


@st.composite
def _array(draw: st.DrawFn, children: st.SearchStrategy[str]) -> str:
    items = draw(st.lists(children, max_size=4))
    return "[" + draw(_WS) + ",".join(draw(_WS) + item + draw(_WS) for item in items) + "]"


@st.composite
def _object(draw: st.DrawFn, children: st.SearchStrategy[str]) -> str:
    members = draw(st.lists(st.tuples(_KEYS, children), max_size=4))  # few keys: duplicates come up
    body = ",".join(f"{draw(_WS)}{key}{draw(_WS)}:{draw(_WS)}{value}{draw(_WS)}" for key, value in members)
    return "{" + draw(_WS) + body + "}"


_VALUES = st.recursive(_SCALARS, lambda children: _array(children) | _object(children), max_leaves=12)
OBJECTS = _object(_VALUES)
ARGUMENTS = st.one_of(
    OBJECTS,
    OBJECTS.map(json.dumps),  # double-encoded: a JSON string holding the object
    st.sampled_from(["{}", '""', " { } ", '"  "']),
)


def _decoded(text: str) -> dict[str, Any]:
    value = msgspec.json.decode(text) if text.strip() else {}
    if isinstance(value, str):
        value = msgspec.json.decode(value) if value.strip() else {}
    assert isinstance(value, dict)
    return value


def _fragments(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c for c in cuts if 0 < c < len(text)})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


def _anthropic(fragments: list[str]) -> bytes:
    body = s.ANTHROPIC_START + s.anthropic_tool_start(0, "toolu_1", "f")
    body += b"".join(s.anthropic_json(0, piece) for piece in fragments) + s.anthropic_stop(0)
    return body + s.anthropic_event({"type": "message_stop"})


def _responses(fragments: list[str]) -> bytes:
    added: dict[str, Any] = {
        "type": "response.output_item.added",
        "output_index": 0,
        "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": ""},
    }
    body = s.sse(added, added["type"])
    for piece in fragments:
        delta: dict[str, Any] = {
            "type": "response.function_call_arguments.delta",
            "item_id": "fc_1",
            "output_index": 0,
            "delta": piece,
        }
        body += s.sse(delta, delta["type"])
    done: dict[str, Any] = {
        "type": "response.function_call_arguments.done",
        "item_id": "fc_1",
        "output_index": 0,
        "arguments": "".join(fragments),
    }
    body += s.sse(done, done["type"])
    end: dict[str, Any] = {
        "type": "response.completed",
        "response": {"id": "r", "status": "completed", "output": []},
    }
    return body + s.sse(end, end["type"])


# (provider, options, how the argument text and its fragments become a stream)
Wire = Callable[[str, list[str]], bytes]
FORMATS: dict[str, tuple[str, dict[str, Any], Wire]] = {
    "openai": ("openai", {}, lambda text, fragments: openai_wire(fragments)),
    "anthropic": ("anthropic", {}, lambda text, fragments: _anthropic(fragments)),
    "openai-responses": ("openai-responses", {}, lambda text, fragments: _responses(fragments)),
    "fence": (
        "text",
        {},
        lambda text, _: f'~~~tool_call\n{{"name": "f", "arguments": {text}}}\n~~~\n'.encode(),
    ),
    "json": ("text", {}, lambda text, _: f'{{"arguments": {text}, "name": "f"}}'.encode()),
    "hermes": (
        "text",
        {"detect": ("hermes",)},
        lambda text, _: f'<tool_call>{{"name": "f", "arguments": {text}}}</tool_call>'.encode(),
    ),
    "mistral": ("text", {"detect": ("mistral",)}, lambda text, _: f"[TOOL_CALLS]f[ARGS]{text}".encode()),
    "llama": (
        "text",
        {"detect": ("llama",)},
        lambda text, _: f'<|python_tag|>{{"name": "f", "parameters": {text}}}'.encode(),
    ),
    "deepseek": (
        "text",
        {"detect": ("deepseek",)},
        lambda text, _: (
            f"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{text}<｜tool▁call▁end｜><｜tool▁calls▁end｜>".encode()
        ),
    ),
}
# Text formats need a value where the arguments go (the bare JSON detector, an object).
_OBJECT_ONLY = {"json", "llama", "mistral", "deepseek"}


@pytest.mark.parametrize("name", list(FORMATS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_made_up_arguments_follow_the_rules(name: str, data: st.DataObject) -> None:
    provider, options, wire = FORMATS[name]
    text = data.draw(OBJECTS if name in _OBJECT_ONLY else ARGUMENTS, label="arguments")
    fragments = _fragments(text, data.draw(st.lists(st.integers(0, len(text)), max_size=12)))
    stream = wire(text, fragments)
    cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=20))
    results = []
    for chunks in ([stream], bytewise(stream), split_at(stream, cuts)):
        events = run(chunks, provider, **options)
        check_patches(events)
        assert completed(events) == [_decoded(text)], (name, text)
        results.append(folded_patches(events))
    assert results[0] == results[1] == results[2]


@settings(max_examples=200, deadline=None)
@given(text=OBJECTS)
def test_the_oracle_agrees_with_msgspec_on_complete_texts(text: str) -> None:
    assert same(prefix_value(text), msgspec.json.decode(text))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("", NOTHING),
        ("  ", NOTHING),
        ("{", {}),
        ('{"a', {}),
        ('{"a": ', {}),
        ('{"a": 1', {}),
        ('{"a": 1 ', {"a": 1}),
        ('{"a": tr', {}),
        ('{"a": true', {"a": True}),
        ('{"a": "x\\u00', {"a": "x"}),
        ('{"a": "\\ud83d', {"a": ""}),
        ('{"a": "\\ud83d\\ude0', {"a": ""}),
        ('{"a": "\\ud83d\\ude00', {"a": "😀"}),
        ('{"a": [1, [', {"a": [1, []]}),
        ('"ab', "ab"),
        ("12", NOTHING),
    ],
)
def test_the_oracle_on_prefixes(text: str, value: Any) -> None:
    got = prefix_value(text)
    assert got is NOTHING if value is NOTHING else same(got, value)


@pytest.mark.parametrize(
    "text", ['{"a" 1', "[1,]", '"\\x"', '"\\udc00"', '"\\ud83d\\n"', "{} {", "01 ", "tx", '"\x01"']
)
def test_the_oracle_rejects_what_cannot_begin_json(text: str) -> None:
    with pytest.raises(Invalid):
        prefix_value(text)
