"""``provider="auto"`` gives exactly the explicit provider's events, for every recording.

Event for event, not merged: fed whole, one byte at a time and at random cuts, the events under
``"auto"`` are the very events the recording's own provider gives under the same chunking
(``tests/corpus/test_corpus.py`` compares both with the expected file, with adjacent deltas merged).

The one exception, with its reason: :data:`HELD_TEXT`.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support import Case, bytewise, corpus, feed_chunks, normalize, split_at

CASES = corpus()
IDS = [case.id for case in CASES]

#: The model's own text (``provider="text"``): ``"auto"`` cannot tell text from a stream until
#: the first bytes show it -- ``d`` may begin ``data:``, ``<`` an HTML error page (16 bytes),
#: ``{`` or ``[{`` an NDJSON line or a JSON array until the first value shows it is no
#: provider's -- so it holds those bytes and hands them to the text channel in one piece, where
#: ``"text"`` got them as they came.  Text, calls and every other event are the same; only how
#: the text and argument deltas are cut differs, so these are compared with deltas merged.
HELD_TEXT = frozenset(case.id for case in CASES if case.provider == "text")


def same(case: Case, chunks: list[bytes]) -> None:
    explicit = feed_chunks(chunks, case.provider, **case.options())
    auto = feed_chunks(chunks, "auto", **case.options())
    if case.id in HELD_TEXT:
        assert normalize(auto) == normalize(explicit)
    else:
        assert auto == explicit


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_whole(case: Case) -> None:
    explicit = feed_chunks([case.data()], case.provider, **case.options())
    assert feed_chunks([case.data()], "auto", **case.options()) == explicit


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_one_byte_at_a_time(case: Case) -> None:
    same(case, bytewise(case.data()))


@pytest.mark.parametrize("case", CASES, ids=IDS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_cuts(case: Case, data: st.DataObject) -> None:
    raw = case.data()
    same(case, split_at(raw, data.draw(st.lists(st.integers(0, len(raw)), max_size=40))))


def test_the_exceptions_are_needed() -> None:
    """Every listed exception differs event for event in one-byte chunks (else it is not one)."""
    for case in CASES:
        if case.id in HELD_TEXT:
            chunks = bytewise(case.data())
            held = feed_chunks(chunks, "auto", **case.options()) != feed_chunks(
                chunks, "text", **case.options()
            )
            if held:
                return
    pytest.fail("no listed exception differs: drop HELD_TEXT")
