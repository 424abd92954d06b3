"""The two ways the text channel finds triggers give the same events.

A short text is searched by one pattern holding every trigger; a long one (more than
``_triggers.SHORT`` characters) by one scan per first character, with ``str.find`` for a
literal and for a first character until ``MISSES`` of its occurrences were no trigger
(streamcalls/detectors/_engine/triggers.py and occurrences.py).  The tests here run the same
documents with the thresholds forced each way -- every text through the one pattern, every text
through the scans, the scans handing over to the regex engine at once -- on the native occurrence
test (where it is built) and on the pure one, and require the same events.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcalls import ReasoningDelta, ToolCallCompleted
from streamcalls._native import pure_python
from streamcalls.detectors._engine import occurrences as _occurrences
from streamcalls.detectors._engine import triggers as _triggers
from tests.support import split_at
from tests.unit.test_markup_conservation import documents, run


@contextmanager
def thresholds(short: int, misses: int, pure: bool = False) -> Iterator[None]:
    saved = _triggers.SHORT, _occurrences.MISSES
    _triggers.SHORT, _occurrences.MISSES = short, misses
    try:
        if pure:
            with pure_python():
                yield
        else:
            yield
    finally:
        _triggers.SHORT, _occurrences.MISSES = saved


# One pattern; scans; scans without str.find; one miss -- each on the native occurrence test where
# it is built, then on the pure one.
WAYS = [
    (short, misses, pure)
    for pure in (False, True)
    for short, misses in [(10**9, 64), (0, 64), (0, 0), (0, 1)]
]


@settings(max_examples=200, deadline=None)
@given(text=documents(), data=st.data())
def test_one_pattern_and_the_scans_give_the_same_events(text: str, data: st.DataObject) -> None:
    raw = text.encode()
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=6))
    results = []
    for short, misses, pure in WAYS:
        with thresholds(short, misses, pure):
            results.append(run(split_at(raw, cuts)))
    assert all(events == results[0] for events in results[1:])


@pytest.mark.parametrize(("short", "misses", "pure"), WAYS)
def test_markup_before_bare_json_at_the_same_place(short: int, misses: int, pure: bool) -> None:
    with thresholds(short, misses, pure):
        events = run([b'Go.\n[TOOL_CALLS][{"name": "f", "arguments": {}}]'])
    assert [e.call.source for e in events if isinstance(e, ToolCallCompleted)] == ["mistral"]


@pytest.mark.parametrize("pure", [False, True])
@pytest.mark.parametrize("misses", [0, 3, 64])
def test_a_trigger_after_many_lookalikes_in_a_long_text_is_found(misses: int, pure: bool) -> None:
    text = "a <b> and [c] " * 500 + "<tool_call>\n<function=f>\n</function>\n</tool_call>" + " [x]" * 10
    with thresholds(_triggers.SHORT, misses, pure):
        events = run([text.encode()])
    assert [e.call.name for e in events if isinstance(e, ToolCallCompleted)] == ["f"]


@pytest.mark.parametrize(("short", "misses", "pure"), WAYS)
def test_a_line_trigger_that_joins_another_scan_still_needs_its_line_start(
    short: int, misses: int, pure: bool
) -> None:
    # <think> counts at a line start only; its "<" is looked for by the markers' scan anyway, which
    # it joins behind a line end (see _scans).
    text = "a <b> " * 300 + "mid <think>no</think> x\n<think>yes</think>\n" + "<i> " * 300
    with thresholds(short, misses, pure):
        events = run([text.encode()], detect=("think", "hermes", "deepseek"))
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == "yes"
