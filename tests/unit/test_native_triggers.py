"""The text channel's native occurrence test gives what the pure one gives.

``streamcalls/_native/triggers.c`` (``next_candidate``) steps over the occurrences of a scan's
first character that begin no trigger for sure; ``occurrences.candidate`` is its reference.  Here:
the two on random texts heavy in ``<``, ``[``, line ends and non-ASCII characters of every width
(Latin-1, the BMP, astral: the three string kinds), from random places, with random sets of the
characters around; then the whole trigger search (every detector on, every text through the
scans), and the recordings of the text formats, on the native path and under ``pure_python()``:
the same triggers found, the same events.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.textformats import _EVERY as EVERY_NAME
from benchmarks.textformats import prose_stream
from streamcalls import _native
from streamcalls.detectors import DETECTORS
from streamcalls.detectors._engine import occurrences
from streamcalls.detectors._engine import triggers as _triggers
from streamcalls.detectors._engine.triggers import Found, patterns
from tests.support import Case, corpus, feed_chunks, normalize, split_at
from tests.unit.test_native import same_on_both_paths

speedups = _native.speedups
next_candidate = getattr(speedups, "next_candidate", None)
pytestmark = pytest.mark.skipif(
    next_candidate is None,
    reason="the native path is not built here (no compiler, the stable ABI), or STREAMCALLS_PURE_PYTHON=1",
)

# What a text is made of: the leads and what stands around them in the formats, line ends, and a
# character of each width (é: Latin-1, ｜ and €: two bytes, 😀: four).
_MARKS = "<<<[[[\n\n]>/|T_a ｜é€😀"
_CHARS = st.one_of(st.sampled_from(_MARKS), st.characters())
_TEXTS = st.text(_CHARS, max_size=300)
_LEADS = st.sampled_from("<[|｜😀a\n")
_SETS = st.text(st.one_of(st.sampled_from(_MARKS), st.characters()), max_size=8)


@settings(max_examples=1500, deadline=None)
@given(text=_TEXTS, lead=_LEADS, nexts=st.none() | _SETS, prevs=_SETS, data=st.data())
def test_next_candidate_is_the_reference(
    text: str, lead: str, nexts: str | None, prevs: str, data: st.DataObject
) -> None:
    assert next_candidate is not None
    pos = data.draw(st.integers(0, len(text) + 2))
    while True:  # the first candidate, then each after it, as a scan walks them
        want = occurrences.candidate(text, pos, lead, nexts, prevs)
        assert next_candidate(text, pos, lead, nexts, prevs) == want
        if want < 0:
            break
        pos = want + 1


@pytest.mark.parametrize(
    "example",
    [
        ("ab<c<T x", 0, "<", "T", "", 4),
        ("a[b\n[c", 0, "[", "x", "\n", 4),  # found by the character before it
        ("<", 0, "<", "T", "", -1),  # the text's last character: nothing after it
        ("<", 0, "<", None, "", 0),  # any character, or none, after it
        ("😀<😀<T", 0, "<", "T", "", 3),  # a 4-byte string
        ("｜<x<｜", 0, "<", "｜", "", 3),  # a 2-byte string, a wide character after
        ("\u3c3c<<T", 0, "<", "T", "", 2),  # the lead's byte inside another character
        ("ab<T", 9, "<", "T", "", -1),  # from past the end
        ("ab<T", 0, "😀", None, "", -1),  # a lead wider than the text's characters
        ("x\uff00\uff00y", 0, "\uff00", "y", "", 2),  # a lead whose low byte is 0
    ],
)
def test_next_candidate_examples(example: tuple[str, int, str, str | None, str, int]) -> None:
    text, pos, lead, nexts, prevs, want = example
    assert next_candidate is not None
    assert occurrences.candidate(text, pos, lead, nexts, prevs) == want
    assert next_candidate(text, pos, lead, nexts, prevs) == want


def test_next_candidate_refuses_misuse() -> None:
    assert next_candidate is not None
    with pytest.raises(TypeError):
        next_candidate("a", 0, "ab", None, "")
    with pytest.raises(TypeError):
        next_candidate(b"a", 0, "a", None, "")
    with pytest.raises(ValueError, match="pos"):
        next_candidate("a", -1, "a", None, "")


# -- the whole search ----------------------------------------------------------------------------


@contextmanager
def scans_only() -> Iterator[None]:
    """Every text through the scans (none is short), where the occurrence test runs."""
    saved = _triggers.SHORT
    _triggers.SHORT = 0
    try:
        yield
    finally:
        _triggers.SHORT = saved


_EVERY = tuple(kind for kind in DETECTORS.values() if not kind.opens_text)


def every_trigger(text: str, misses: int) -> list[Found]:
    """Each trigger the search of every detector finds, from the text's start on."""
    search = patterns(_EVERY).search
    found = search.new_text(text)
    out: list[Found] = []
    saved = occurrences.MISSES
    occurrences.MISSES = misses
    try:
        at = search.first(text, 0, found)
        while at is not None:
            out.append(at)
            at = search.first(text, at[0] + 1, found)
    finally:
        occurrences.MISSES = saved
    return out


_PIECES = st.sampled_from(
    [
        "<tool_call>",
        "[TOOL_CALLS]",
        "functools[",
        "]<]minimax[>[",
        "<|tool_calls_section_begin|>",
        "<｜DSML｜function_calls>",
        "\n[",
        "\n<think>",
        "<b>",
        "[x]",
        "<",
        "[",
        "\n",
        "😀",
        "é",
    ]
)
_DOCUMENTS = st.lists(st.one_of(_PIECES, _TEXTS), max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=_DOCUMENTS, misses=st.sampled_from([0, 1, 3, 64]))
def test_the_search_finds_the_same_triggers_on_both_paths(text: str, misses: int) -> None:
    with scans_only():
        native = every_trigger(text, misses)
        with _native.pure_python():
            pure = every_trigger(text, misses)
    assert native == pure


def test_the_benchmarks_prose_gives_the_same_events_on_both_paths() -> None:
    stream = prose_stream(64 << 10, 64 << 10)
    same_on_both_paths(list(stream.reads), "text", detect=EVERY_NAME)


# -- the recordings of the text formats ----------------------------------------------------------

TEXT_CASES = [case for case in corpus() if case.provider == "text" or "detect" in case.options()]


@pytest.mark.parametrize("case", TEXT_CASES, ids=[case.id for case in TEXT_CASES])
def test_text_recordings_give_the_same_events_on_both_paths(case: Case) -> None:
    data = case.data()
    options: dict[str, Any] = case.options()
    expected = normalize(case.expected())
    with scans_only():
        for chunks in ([data], split_at(data, range(7, len(data), 61))):
            same_on_both_paths(chunks, case.provider, **options)
        # and the recorded events, the search through its scans on the native path
        assert normalize(feed_chunks([data], case.provider, **options)) == expected
