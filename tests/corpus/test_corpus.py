"""Every recorded stream in tests/data gives exactly its expected events, however it is chunked.

The expected events (NAME.events.jsonl beside each stream) are for the whole
stream fed at once.  Fed in any other chunking -- one byte at a time, every
two-piece split, random splits -- the events must be the same once adjacent
text/argument deltas are merged (see support.normalize), and with
``provider="auto"`` the same as with the explicit provider.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support import Case, bytewise, corpus, feed_chunks, normalize, split_at

CASES = corpus()
IDS = [case.id for case in CASES]


def test_corpus_is_not_empty() -> None:
    assert len(CASES) >= 20
    for case in CASES:
        assert case.expected_path.exists(), f"{case.id} has no expected events"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_whole_stream_gives_expected_events(case: Case) -> None:
    assert feed_chunks([case.data()], case.provider, **case.options()) == case.expected()


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_one_byte_chunks_give_the_same_events(case: Case) -> None:
    assert normalize(feed_chunks(bytewise(case.data()), case.provider, **case.options())) == normalize(
        case.expected()
    )


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_auto_detection_one_byte_chunks(case: Case) -> None:
    assert normalize(feed_chunks(bytewise(case.data()), "auto", **case.options())) == normalize(
        case.expected()
    )


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_every_two_piece_split(case: Case) -> None:
    data = case.data()
    expected = normalize(case.expected())
    step = max(1, len(data) // 1500)  # every position for small streams
    for cut in range(1, len(data), step):
        got = normalize(feed_chunks([data[:cut], data[cut:]], case.provider, **case.options()))
        assert got == expected, f"split at byte {cut}"


@pytest.mark.parametrize("case", CASES, ids=IDS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_splits(case: Case, data: st.DataObject) -> None:
    raw = case.data()
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=60))
    provider = data.draw(st.sampled_from([case.provider, "auto"]))
    assert normalize(feed_chunks(split_at(raw, cuts), provider, **case.options())) == normalize(
        case.expected()
    )
