"""The event protocol holds on every recorded stream, fed whole and one byte at a time.

- every call: exactly one ToolCallStarted first, then ToolCallDelta*, then exactly
  one ToolCallCompleted or ToolCallFailed, all with the same index;
- indices are 0, 1, 2, ... in order of their start; ids are unique;
- StreamFinished exactly once, and no call event after it;
- StreamStarted at most once, before any content; every reasoning block is a
  ReasoningStarted, ReasoningDelta* and one ReasoningCompleted, nothing in between;
- the deltas of a completed call concatenate to arguments that decode to its arguments.
"""

from __future__ import annotations

import pytest

from tests.support import Case, bytewise, check_protocol, corpus, feed_chunks

CASES = corpus()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_protocol_holds(case: Case) -> None:
    check_protocol(feed_chunks([case.data()], case.provider, **case.options()))
    check_protocol(feed_chunks(bytewise(case.data()), case.provider, **case.options()))
