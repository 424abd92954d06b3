"""Properties of the XML call formats over generated text, any chunking.

- Calls written as each format's chat template writes them, with typed values (strings that
  hold line ends, quotes and closing tags followed by prose), between prose: exactly those
  calls come out, typed by the schema, and exactly the prose as text.
- Broken markup (cut, a character dropped, changed or added) fails visibly or stays text:
  rule 8 holds (tests/support/conservation.py), whatever the chunking.
"""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcalls import Event, TextDelta, ToolCall, ToolCallCompleted
from streamcalls.detectors import DETECTORS
from tests.support import check_protocol, feed_chunks, normalize, split_at
from tests.support.conservation import check_conservation
from tests.unit.test_markup_conservation import TINY, XML_FORMATS, damaged, xml_markup

ALL = tuple(name for name, kind in DETECTORS.items() if not kind.opens_text)  # (think_prompted: alone)
HARMONY = (
    "harmony" in ALL
)  # with every detector on, Harmony's framing may vanish (tests/support/conservation.py)
XML = ("hermes", "qwen3_coder", "glm", "minimax", "dsml")

# One schema for every tool: the key says the type.
KINDS = {
    "s": {"type": "string"},
    "n": {"type": "integer"},
    "x": {"type": "number"},
    "b": {"type": "boolean"},
    "o": {"type": "object"},
    "l": {"type": "array"},
    "ns": {"type": ["string", "null"]},
    "u": None,  # not in the schema: a string
}
NAMES = ("get_weather", "f", "read_file")
TOOLS = [
    {"name": name, "parameters": {"type": "object", "properties": {k: v for k, v in KINDS.items() if v}}}
    for name in NAMES
]

strings = st.one_of(
    st.text("ab xy<>/=\n\t\"'{}[]&é😀", max_size=12),
    st.sampled_from(
        ["null", "3", "true", "</parameter>!", "</arg_value>?", "</invoke> ", "<tool_call>", "\n\n"]
    ),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**30), 10**30) | st.text('ab"\\<é', max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text("ab", max_size=2), inner, max_size=3),
    max_leaves=6,
)
VALUES: dict[str, st.SearchStrategy[Any]] = {
    "s": strings,
    "n": st.integers(-(10**25), 10**25),
    "x": st.integers(-1000, 1000) | st.floats(allow_nan=False, allow_infinity=False, width=64),
    "b": st.booleans(),
    "o": st.dictionaries(st.text("abc", max_size=3), json_values, max_size=3),
    "l": st.lists(json_values, max_size=3),
    "ns": strings.filter(lambda s: s != "null") | st.none(),  # the string "null" would read as None
    "u": strings,
}


@st.composite
def arguments(draw: st.DrawFn) -> dict[str, Any]:
    keys = draw(st.lists(st.sampled_from(list(KINDS)), unique=True, max_size=4))
    return {key: draw(VALUES[key]) for key in keys}


between = st.text("ab .,!?|=-()né😀\n", max_size=20)
blocks = st.tuples(
    between,
    st.sampled_from([fmt for fmt in XML_FORMATS if fmt != "dsml_bare"]),  # blocks, each with its end
    st.lists(st.tuples(st.sampled_from(NAMES), arguments()), min_size=1, max_size=3),
)


def calls_of(events: list[Event]) -> list[ToolCall]:
    return [e.call for e in events if isinstance(e, ToolCallCompleted)]


def text_of(events: list[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(blocks, min_size=1, max_size=3), tail=between, data=st.data())
def test_template_written_calls_between_prose_survive_any_chunking(
    parts: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]], tail: str, data: st.DataObject
) -> None:
    text = expected_text = ""
    expected: list[tuple[str, dict[str, Any], str]] = []
    for before, fmt, calls in parts:
        markup = xml_markup(fmt, calls)
        text += before + markup
        # Between two blocks the template's line end is text (rule 3); inside a MiniMax or DSML block it is markup.
        expected_text += before + ("\n" * (len(calls) - 1) if fmt in ("qwen3_coder", "glm45") else "")
        expected += [(name, args, XML_FORMATS[fmt]) for name, args in calls]
    text += tail
    expected_text += tail
    raw = text.encode()
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=30))
    events = feed_chunks(split_at(raw, cuts), "text", detect=XML, tools=TOOLS)
    check_protocol(events)
    check_conservation(text, events)
    got = [(c.name, c.arguments, c.source) for c in calls_of(events)]
    assert msgspec.json.encode(got) == msgspec.json.encode(expected)  # types too: 1 is not 1.0 nor True
    assert text_of(events) == expected_text
    assert normalize(events) == normalize(feed_chunks([raw], "text", detect=ALL, tools=TOOLS))


# -- broken markup keeps rule 8 ----------------------------------------------------------------------


@st.composite
def broken(draw: st.DrawFn) -> str:
    _, fmt, calls = draw(blocks)
    return damaged(draw, xml_markup(fmt, calls), '<>/="\n x{')


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(st.one_of(between, broken(), blocks.map(lambda b: xml_markup(b[1], b[2]))), max_size=5),
    data=st.data(),
)
def test_broken_markup_fails_visibly_or_stays_text_whatever_the_chunking(
    parts: list[str], data: st.DataObject
) -> None:
    text = "".join(parts)
    raw = text.encode()
    options: dict[str, Any] = {"detect": ALL, "tools": TOOLS} if data.draw(st.booleans()) else {"detect": ALL}
    if data.draw(st.integers(0, 2)) == 0:
        options["limits"] = TINY  # a limit cuts a call: its raw up to there, the rest of its markup dropped
    whole = feed_chunks([raw], "text", **options)
    check_protocol(whole)
    check_conservation(text, whole, harmony=HARMONY, think=True)
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=20))
    chunked = feed_chunks(split_at(raw, cuts), "text", **options)
    check_conservation(text, chunked, harmony=HARMONY, think=True)
    assert normalize(chunked) == normalize(whole)
