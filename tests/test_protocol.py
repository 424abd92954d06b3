"""The event protocol holds on every recorded stream, fed whole and one byte at a time.

- every call: exactly one ToolCallStarted first, then ToolCallDelta*, then exactly
  one ToolCallCompleted or ToolCallFailed, all with the same index;
- indices are 0, 1, 2, ... in order of their start; ids are unique;
- StreamFinished exactly once, and no call event after it;
- the deltas of a completed call concatenate to arguments that decode to its arguments.
"""

from __future__ import annotations

import msgspec
import pytest

from streamcalls import (
    Event,
    StreamFinished,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallStarted,
)
from tests.support import Case, bytewise, corpus, feed_chunks

CASES = corpus()

CALL_EVENTS = (ToolCallStarted, ToolCallDelta, ToolCallCompleted, ToolCallFailed)


def check_protocol(events: list[Event]) -> None:
    started: list[int] = []
    ended: set[int] = set()
    deltas: dict[int, list[str]] = {}
    ids: set[str] = set()
    finished_at = None
    for position, event in enumerate(events):
        if isinstance(event, StreamFinished):
            assert finished_at is None, "StreamFinished twice"
            finished_at = position
            continue
        if not isinstance(event, CALL_EVENTS):
            continue
        assert finished_at is None, f"call event after StreamFinished: {event}"
        if isinstance(event, ToolCallStarted):
            assert event.index == len(started), "indices must be 0, 1, 2, ... in start order"
            assert event.id not in ids, "ids must be unique"
            ids.add(event.id)
            started.append(event.index)
            deltas[event.index] = []
            continue
        index = event.call.index if isinstance(event, ToolCallCompleted) else event.index
        assert index in started, f"{type(event).__name__} before ToolCallStarted"
        assert index not in ended, f"event after the call ended: {event}"
        if isinstance(event, ToolCallDelta):
            deltas[index].append(event.arguments_delta)
        else:
            ended.add(index)
            if isinstance(event, ToolCallCompleted) and event.call.source == "native" and deltas[index]:
                raw = "".join(deltas[index]).strip()
                if raw.startswith("{"):
                    assert msgspec.json.decode(raw) == event.call.arguments
    assert finished_at is not None, "no StreamFinished"
    assert set(started) == ended, "a call never ended"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_protocol_holds(case: Case) -> None:
    check_protocol(feed_chunks([case.data()], case.provider, **case.options()))
    check_protocol(feed_chunks(bytewise(case.data()), case.provider, **case.options()))
