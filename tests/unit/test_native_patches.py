"""``partial_arguments=True`` on the native path: the patches of a string value dense in escapes.

The native path writes the ``append`` patches of a string value's middle
itself (``feed_patches`` in streamcalls/_native/calls.c): a fragment of plain
characters and complete escapes, and -- as ``PatchWriter`` does -- an escape
cut off by a fragment's end (``\\``, ``\\u12``, a high surrogate ``\\ud83d``
awaiting its low half) held back and completed by the next fragment.  Here
argument text made mostly of escapes (every kind, in either case, surrogate
pairs, raw non-ASCII) and sometimes of what is not JSON (an unknown escape, a
lone surrogate, a high surrogate followed by something else, a bad hex digit,
a raw control character) is cut into fragments anywhere -- at random, at every
offset, one character each, right after every backslash -- and each stream runs
on both paths: the events must be the same, field by field
(``same_on_both_paths``, msgspec's encoding of each event).  And the native path
must do that work itself: ``PatchWriter.feed`` (Python) only sees the fragments
where the string begins or ends.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import streamcalls
from streamcalls import _native
from streamcalls._patchwriter import PatchWriter
from tests.corpus.test_native_streams import anthropic_call, openai_call
from tests.support import bytewise, split_at
from tests.unit.test_native import same_on_both_paths

pytestmark = pytest.mark.skipif(
    _native.speedups is None,
    reason="the native path is not built here (no compiler), or STREAMCALLS_PURE_PYTHON=1",
)

CALLS = {"openai": openai_call, "anthropic": anthropic_call}

# The pieces of a string's body, as they stand in the argument text (JSON, escaped).
VALID = (
    "a",
    " ",
    "x y",
    "é",
    "中",
    "😀",
    '\\"',
    "\\\\",
    "\\/",
    "\\b",
    "\\f",
    "\\n",
    "\\r",
    "\\t",
    "\\u0000",
    "\\u001f",
    "\\u00e9",
    "\\u00E9",
    "\\u4e2d",
    "\\uFFFF",
    "\\ud83d\\ude00",
    "\\uD83D\\uDE00",
    "\\uDBFF\\uDFFF",
    "\\ud800\\udc00",
)
INVALID = (
    "\\x",  # no such escape
    "\\U0041",
    "\\u12G4",  # not a hex digit
    "\\ud83g",
    "\\uDAz0",
    "\\udc00",  # a lone low surrogate
    "\\uDE00",
    "\\uDC00",
    "\\ud83d",  # a high surrogate and then no low one: a character, an escape, another high one
    "\\ud83dx",
    "\\ud83d\\n",
    "\\ud83d\\u0041",
    "\\uD83D\\uD83D",
    "\\ud83d\\ud",
    "\\ud83d\\udbff",
    "\\ud83d\\udcg0",  # a bad hex digit in the low half, at each place
    "\\ud83d\\ude0g",
    "\x01",  # a control character, raw
    "\t",
)
# Where the string stands, and what follows it.
OPENINGS = ('{"content": "', '{"a": [1, "', '{"k\\n": {"x\\"": "', '"')
CLOSINGS = ('"}', '"]}', '"}}', '"', "", '", "b": "\\u00e9\\\\"}')

BODY = st.lists(st.sampled_from(VALID), max_size=40)


@st.composite
def argument_texts(draw: st.DrawFn) -> str:
    """A string value of escapes in its call's arguments; one in four not JSON."""
    body = draw(BODY)
    if draw(st.integers(0, 3)) == 0:
        body.insert(draw(st.integers(0, len(body))), draw(st.sampled_from(INVALID)))
    return draw(st.sampled_from(OPENINGS)) + "".join(body) + draw(st.sampled_from(CLOSINGS))


@st.composite
def fragments(draw: st.DrawFn, text: str) -> list[str]:
    """``text`` cut anywhere: at random, one character each, or right after every backslash too."""
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return list(text)
    cuts = draw(st.lists(st.integers(0, len(text)), max_size=30))
    if kind == 1:
        cuts += [at + 1 for at, char in enumerate(text) if char == "\\"]
    cuts = sorted(set(cuts))
    out, start = [], 0
    for cut in [*cuts, len(text)]:
        if cut > start:
            out.append(text[start:cut])
        start = cut
    return out


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_escapes_cut_anywhere_give_the_same_patches_on_both_paths(data: st.DataObject) -> None:
    provider = data.draw(st.sampled_from(sorted(CALLS)))
    text = data.draw(argument_texts())
    stream = CALLS[provider](data.draw(fragments(text)))
    reads = data.draw(
        st.sampled_from(["whole", "bytes", "split"]).map(
            lambda how: (
                [stream]
                if how == "whole"
                else bytewise(stream)
                if how == "bytes"
                else split_at(stream, range(0, len(stream), 7))
            )
        )
    )
    same_on_both_paths(reads, provider, partial_arguments=True)


DENSE = "".join(VALID) * 2
DENSE_TEXTS = [
    '{"content": "' + DENSE + '"}',
    '{"a": [1, "' + DENSE + '"], "b": "' + DENSE[::-1].replace("\\", "") + '"}',
    '{"content": "' + DENSE + "\\ud83d" + '"}',  # not JSON at its very end
    '{"content": "' + DENSE + "\\x" + DENSE + '"}',  # nor in its middle
]


@pytest.mark.parametrize("provider", sorted(CALLS))
@pytest.mark.parametrize("text", DENSE_TEXTS, ids=["one", "two", "end", "middle"])
def test_every_cut_in_two_gives_the_same_patches_on_both_paths(provider: str, text: str) -> None:
    for cut in range(1, len(text)):
        same_on_both_paths([CALLS[provider]([text[:cut], text[cut:]])], provider, partial_arguments=True)


@pytest.mark.parametrize("provider", sorted(CALLS))
@pytest.mark.parametrize("text", DENSE_TEXTS, ids=["one", "two", "end", "middle"])
@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 11, 13])
def test_fragments_of_every_size_give_the_same_patches_on_both_paths(
    provider: str, text: str, size: int
) -> None:
    for shift in range(size):
        pieces = [text[:shift]] if shift else []
        pieces += [text[at : at + size] for at in range(shift, len(text), size)]
        same_on_both_paths([CALLS[provider](pieces)], provider, partial_arguments=True)


def writer_states(provider: str, pieces: list[str]) -> list[tuple[int, str]]:
    """The call's PatchWriter after each record (one read each): its reader state and held text."""
    writers: list[PatchWriter] = []
    init = PatchWriter.__init__

    def kept(self: PatchWriter, *args: Any) -> None:
        init(self, *args)
        writers.append(self)

    stream = CALLS[provider](pieces)
    records = [record + b"\n\n" for record in stream.split(b"\n\n") if record]
    parser = streamcalls.StreamParser(provider, partial_arguments=True)  # type: ignore[arg-type]
    states = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PatchWriter, "__init__", kept)
        for record in records:
            parser.feed(record)
            if writers:
                states.append((writers[0]._state, writers[0]._held))
    return states


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_held_escape_start_is_the_same_on_both_paths_after_every_fragment(data: st.DataObject) -> None:
    provider = data.draw(st.sampled_from(sorted(CALLS)))
    pieces = data.draw(fragments(data.draw(argument_texts())))
    native = writer_states(provider, pieces)
    with _native.pure_python():
        pure = writer_states(provider, pieces)
    assert native == pure


# -- the native path does the work ---------------------------------------------------------------


@pytest.fixture
def python_feeds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The fragments given to the Python ``PatchWriter.feed``, in order."""
    seen: list[str] = []
    feed = PatchWriter.feed

    def counted(self: PatchWriter, text: str) -> None:
        seen.append(text)
        feed(self, text)

    monkeypatch.setattr(PatchWriter, "feed", counted)
    return seen


def run(provider: str, pieces: list[str]) -> list[Any]:
    parser = streamcalls.StreamParser(provider, partial_arguments=True)  # type: ignore[arg-type]
    return [*parser.feed(CALLS[provider](pieces)), *parser.close()]


@pytest.mark.parametrize("provider", sorted(CALLS))
@pytest.mark.parametrize("size", [1, 2, 3, 7, 40])
def test_only_where_the_string_begins_or_ends_is_a_fragment_fed_to_python(
    provider: str, size: int, python_feeds: list[str]
) -> None:
    opening, body, closing = '{"content": "', DENSE * 3, '"}'
    text = opening + body + closing
    starts = range(0, len(text), size)
    pieces = [text[at : at + size] for at in starts]
    events = run(provider, pieces)
    assert events[-2].call.arguments == {"content": json.loads('"' + body + '"')}
    inside = [len(opening) <= at and at + size <= len(opening) + len(body) for at in starts]
    assert python_feeds == [piece for piece, within in zip(pieces, inside, strict=True) if not within]


@pytest.mark.parametrize("provider", sorted(CALLS))
@pytest.mark.parametrize("bad", INVALID)
def test_what_is_not_json_stops_both_paths_at_the_same_fragment(provider: str, bad: str) -> None:
    opening, rest = '{"content": "', "ab" + bad + 'cd\\u00e9"}'
    cuts = [[opening + rest[:cut], rest[cut:]] for cut in range(len(rest))]  # each cut, the string's first
    cuts += [[opening, rest[:cut], rest[cut:]] for cut in range(1, len(rest))]  # ...or a later fragment
    for pieces in [list(opening + rest), *cuts]:
        native = writer_states(provider, pieces)
        with _native.pure_python():
            pure = writer_states(provider, pieces)
        assert native == pure
        same_on_both_paths([CALLS[provider](pieces)], provider, partial_arguments=True)
