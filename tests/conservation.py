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

Reasoning that the text channel gives (a Harmony ``analysis`` message) is
kept text like ``TextDelta``.  With the ``harmony`` detector on, Harmony's
framing -- a message's header, from ``<|start|>`` or ``<|channel|>`` (or,
at the very start of the text, `` to=RECIPIENT`` right before
``<|channel|>``) to ``<|message|>``,
and the end tokens ``<|end|>``, ``<|return|>``, ``<|call|>`` -- may vanish
too: it is read out of the input and out of each run of output text alike
(written here from the Harmony grammar, not from the detector), so only a
character that is not framing counts as lost.

Besides: a failed text call's ``raw`` is never empty (except the one that
reports ``max_calls``), and no text comes between a text call's
``ToolCallStarted`` and its end.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from streamcalls import (
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCallCompleted,
    ToolCallFailed,
    ToolCallStarted,
)

# The limits that cut a failed call's raw text.
SIZE_LIMITS = ("max_arguments_bytes", "max_buffered_bytes", "max_json_depth", "max_calls")

# Harmony's framing.  A header part: at most 128 name characters, spaces and tabs.
_PART = r"[\w.:=/+ \t-]{0,128}"
_TAIL = rf"<\|channel\|>{_PART}(?:<\|constrain\|>{_PART})?<\|message\|>"
# A completion's first header may start with its recipient (the prompt wrote <|start|>assistant).
FIRST_HEADER = re.compile(rf"\A to={_PART}{_TAIL}")
HARMONY_FRAMING = re.compile(
    rf"<\|start\|>{_PART}(?:{_TAIL}|(?:<\|constrain\|>{_PART})?<\|message\|>)"
    rf"|{_TAIL}"
    r"|<\|(?:end|return|call)\|>"
)
_HEADER_START = re.compile(r"<\|start\|>|<\|channel\|>| to=")


class _Gap:
    """Stands for markup that no event carries."""

    def __repr__(self) -> str:
        return "<gap>"


GAP = _Gap()


def is_limit_failure(event: ToolCallFailed) -> bool:
    return any(limit in event.error for limit in SIZE_LIMITS)


def pieces(
    events: Sequence[Event],
    text_calls: Collection[int] | None = None,
    reasoning: Collection[int] | None = None,
) -> list[str | _Gap]:
    """The channel's output as literal text and gaps (``text_calls``: the indices of
    calls found in text, None: every call; ``reasoning``: the ``id()`` of each
    ``ReasoningDelta`` the channel gave, None: every one)."""
    out: list[str | _Gap] = []
    anywhere = False  # past max_calls: dropped calls leave gaps that no event marks
    for event in events:
        if isinstance(event, ToolCallFailed) and "max_calls" in event.error:
            anywhere = True
        if isinstance(event, TextDelta) or (
            isinstance(event, ReasoningDelta) and (reasoning is None or id(event) in reasoning)
        ):
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


def _without_framing(groups: list[str]) -> list[str]:
    """Each run of output text without Harmony's framing; a run that a gap follows also
    without a framing it ends in the middle of (a raw cut at a limit)."""
    out = []
    for number, group in enumerate(groups):
        group = HARMONY_FRAMING.sub("", FIRST_HEADER.sub("", group) if number == 0 else group)
        if number < len(groups) - 1:
            for header in sorted(m.start() for m in _HEADER_START.finditer(group)):
                if "<|message|>" not in group[header:]:
                    group = group[:header]
                    break
            token = group.rfind("<")
            if token >= 0 and ">" not in group[token:]:
                group = group[:token]
        out.append(group)
    return out


def matches(text: str, parts: Sequence[str | _Gap], *, harmony: bool = False) -> bool:
    """Does ``text`` read as ``parts``, each gap standing for any string (maybe empty)?

    ``harmony``: Harmony's framing, in the text and in the parts, does not count.
    """
    groups: list[str] = [""]  # the literal runs between gaps
    for part in parts:
        if isinstance(part, _Gap):
            groups.append("")
        else:
            groups[-1] += part
    if harmony:
        text = HARMONY_FRAMING.sub("", FIRST_HEADER.sub("", text))
        groups = _without_framing(groups)
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


def check_conservation(
    text: str,
    events: Sequence[Event],
    text_calls: Collection[int] | None = None,
    *,
    reasoning: Collection[int] | None = None,
    harmony: bool = False,
) -> None:
    """Assert rule 8 for ``text``, the text channel's whole input, and the events it gave
    (``harmony``: the Harmony detector was on)."""
    parts = pieces(events, text_calls, reasoning)
    assert matches(text, parts, harmony=harmony), (
        f"text lost or invented:\n  input {text!r}\n  output {parts!r}"
    )
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
