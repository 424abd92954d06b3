"""Rule 8, checked from the outside: the text channel loses no character of its input.

A reference reader for what the detectors must give, written without their
code: it knows only the events.  The rule (streamcalls/detectors/__init__.py):
the text channel's input equals, in order, the text of its ``TextDelta``s and
the ``raw`` of its failed calls, where only these may stand in between:

- a completed call's markup (at its ``ToolCallCompleted``: where the call's
  markup was, with whatever joins it to the next call's);
- after a call that failed at a size limit (its error names the limit), the
  rest of its markup, counted and dropped -- its ``raw`` is the markup up to
  the limit;
- after ``max_calls`` was exceeded, the markup of every call dropped from
  then on (those leave no event at all).

Besides: a failed text call's ``raw`` is never empty (except the one that
reports ``max_calls``), and no text comes between a text call's
``ToolCallStarted`` and its end.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from streamcalls import Event, TextDelta, ToolCallCompleted, ToolCallFailed, ToolCallStarted

# The limits that cut a failed call's raw text.
SIZE_LIMITS = ("max_arguments_bytes", "max_buffered_bytes", "max_json_depth", "max_calls")


class _Gap:
    """Stands for markup that no event carries."""

    def __repr__(self) -> str:
        return "<gap>"


GAP = _Gap()


def is_limit_failure(event: ToolCallFailed) -> bool:
    return any(limit in event.error for limit in SIZE_LIMITS)


def pieces(events: Sequence[Event], text_calls: Collection[int] | None = None) -> list[str | _Gap]:
    """The channel's output as literal text and gaps (``text_calls``: the indices of
    calls found in text; None: every call)."""
    out: list[str | _Gap] = []
    anywhere = False  # past max_calls: dropped calls leave gaps that no event marks
    for event in events:
        if isinstance(event, ToolCallFailed) and "max_calls" in event.error:
            anywhere = True
        if isinstance(event, TextDelta):
            literal: str | None = event.text
            after = False
        elif isinstance(event, ToolCallFailed) and (text_calls is None or event.index in text_calls):
            literal = event.raw
            after = is_limit_failure(event)
        elif isinstance(event, ToolCallCompleted) and (text_calls is None or event.call.index in text_calls):
            literal = None
            after = True
        else:
            continue
        if literal:
            if anywhere:
                out.append(GAP)
            out.append(literal)
        if after:
            out.append(GAP)
    if anywhere:
        out.append(GAP)
    return out


def matches(text: str, parts: Sequence[str | _Gap]) -> bool:
    """Does ``text`` read as ``parts``, each gap standing for any string (maybe empty)?"""
    groups: list[str] = [""]  # the literal runs between gaps
    for part in parts:
        if isinstance(part, _Gap):
            groups.append("")
        else:
            groups[-1] += part
    if len(groups) == 1:
        return text == groups[0]
    first, *middle, last = groups
    if not text.startswith(first):
        return False
    pos = len(first)
    for group in middle:  # leftmost matches leave the most room for what follows
        found = text.find(group, pos)
        if found < 0:
            return False
        pos = found + len(group)
    return len(text) - pos >= len(last) and text.endswith(last)


def check_conservation(text: str, events: Sequence[Event], text_calls: Collection[int] | None = None) -> None:
    """Assert rule 8 for ``text``, the text channel's whole input, and the events it gave."""
    parts = pieces(events, text_calls)
    assert matches(text, parts), f"text lost or invented:\n  input {text!r}\n  output {parts!r}"
    open_calls: set[int] = set()
    for event in events:
        if isinstance(event, ToolCallStarted) and (text_calls is None or event.index in text_calls):
            open_calls.add(event.index)
        elif isinstance(event, ToolCallCompleted):
            open_calls.discard(event.call.index)
        elif isinstance(event, ToolCallFailed) and event.index in open_calls:
            open_calls.discard(event.index)
            assert event.raw or is_limit_failure(event), f"a failed text call without its markup: {event}"
        elif isinstance(event, TextDelta):
            assert not open_calls, f"text inside the markup of calls {sorted(open_calls)}: {event}"
