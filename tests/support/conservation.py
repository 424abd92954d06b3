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
framing -- its special tokens, the header part after ``<|start|>``,
``<|channel|>`` and ``<|constrain|>``, and, at the very start of the text, a
first header that begins with its recipient (`` to=functions.f<|channel|>...``)
-- may vanish too: it is read out of the input and out of each run of output
text alike (written here from the Harmony grammar, not from the detector), so
only a character that is not framing counts as lost.  With a reasoning detector on
(``think``, ``think_prompted``), the tags that hold reasoning (``<think>``,
``</think>``, ``<seed:think>``, ``</seed:think>``, ``<|START_THINKING|>``,
``<|END_THINKING|>``, ``<mm:think>``, ``</mm:think>``, Gemma 4's ``<|channel>thought``
and a line end, ``<channel|>``, Kimi K3's ``<|open|>think<|sep|>``,
``<|close|>think<|sep|>``, Apertus's ``<|inner_prefix|>``, ``<|inner_suffix|>``) may vanish
the same way, each as a whole tag; so may, with a format on whose messages are framed
(``kimi_k3``: its message and response tokens; ``minimax_m3``: a bare ``</mm:think>``), that
framing, from each format's grammar, and the tokens that frame a family's answer
(``<response>``, ``<answer>``, Cohere's ``<|START_RESPONSE|>`` and kin, functionary v3.2's
``all`` header).

Besides: a failed text call's ``raw`` is never empty (except the one that
reports ``max_calls``), and no text comes between a text call's
``ToolCallStarted`` and its end.
"""

from __future__ import annotations

import bisect
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

# Harmony's framing, from its grammar: a header part is at most 128 name characters,
# spaces and tabs.  A header may begin at <|start|> or, when something else took that
# (another detector's raw), at the <|channel|> inside it; a completion's first header may
# begin with its recipient (the prompt wrote <|start|>assistant).
_PART = r"[\w.:=/+ \t-]{0,128}"
_CHANNEL_ON = rf"<\|channel\|>{_PART}(?:<\|constrain\|>{_PART})?<\|message\|>"
_FRAMES = (
    re.compile(rf"<\|start\|>{_PART}(?:<\|channel\|>{_PART})?(?:<\|constrain\|>{_PART})?<\|message\|>"),
    re.compile(_CHANNEL_ON),
    re.compile(r"<\|(?:end|return|call)\|>"),
)
_FIRST_HEADER = re.compile(rf" to={_PART}{_CHANNEL_ON}")
_TOKEN = re.compile(r"<\|(?:start|channel|end|return|call)\|>")
# The tags that hold reasoning written in the text, the framing of the formats that frame their
# messages (Kimi K3's sections), and the tokens that frame a family's answer (Granite's and
# ERNIE's <response>, Hunyuan's <answer>, Cohere's, functionary v3.2's "all" header).
_REASONING_TAG = re.compile(
    r"</?think>|</?seed:think>|<\|(?:START|END)_THINKING\|>|<\|inner_(?:prefix|suffix)\|>"
    r"|</?mm:think>|<\|channel>thought\n|<channel\|>|<\|(?:open|close)\|>think<\|sep\|>"
    r'|<\|open\|>message role="assistant"<\|sep\|>|<\|(?:open|close)\|>response<\|sep\|>'
    r"|<\|close\|>message<\|sep\|>|<\|end_of_msg\|>"
    r"|</?response>|</?answer>|<\|(?:START|END)_(?:RESPONSE|TEXT)\|>|>>>all\n|\Aall\n"
)
# The detectors on which that framing may vanish.
FRAMED = (
    "think",
    "think_prompted",
    "kimi_k3",
    "minimax_m3",
    "answer",
    "cohere_command",
    "functionary_v32",
)


def framing(text: str, *, harmony: bool = True, think: bool = False) -> dict[int, list[int]]:
    """Where framing may begin in ``text`` (Harmony's, the reasoning tags), and where each may end."""
    spans: dict[int, list[int]] = {}
    if harmony:
        first = _FIRST_HEADER.match(text)
        if first is not None:
            spans[0] = [first.end()]
        for token in _TOKEN.finditer(text):
            for frame in _FRAMES:
                found = frame.match(text, token.start())
                if found is not None:
                    spans.setdefault(found.start(), []).append(found.end())
    if think:
        for tag in _REASONING_TAG.finditer(text):
            spans.setdefault(tag.start(), []).append(tag.end())
    return spans


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


class _Reader:
    """Reads output runs in the text, where the text's framing may vanish (or not)."""

    def __init__(self, text: str, spans: dict[int, list[int]]) -> None:
        self.text = text
        self.spans = spans
        self.starts = sorted(spans)

    def ends(self, pos: int, run: str) -> set[int]:
        """Where ``run`` can end if read from ``pos`` (framing skipped or read)."""
        text, spans, starts = self.text, self.spans, self.starts
        out: set[int] = set()
        seen: set[tuple[int, int]] = set()
        todo = [(pos, 0)]
        while todo:
            state = todo.pop()
            if state in seen:
                continue
            seen.add(state)
            at, done = state
            todo += [(end, done) for end in spans.get(at, ())]  # the framing vanished
            if done == len(run):
                out.add(at)
                continue
            following = bisect.bisect_right(starts, at)
            stop = starts[following] if following < len(starts) else len(text)
            size = min(stop - at, len(run) - done)
            if size and text.startswith(run[done : done + size], at):
                todo.append((at + size, done + size))
        return out

    def first_end(self, pos: int, run: str) -> int:
        """The least end of ``run`` read from ``pos`` or later; -1 if none."""
        best = -1
        candidates = sorted({*(s for s in self.starts if s >= pos), *self._occurrences(run[:1], pos)})
        for start in candidates:
            if best >= 0 and start >= best:
                break
            ends = self.ends(start, run)
            if ends:
                best = min(ends) if best < 0 else min(best, *ends)
        return best

    def _occurrences(self, char: str, pos: int) -> list[int]:
        found = []
        at = self.text.find(char, pos)
        while at >= 0:
            found.append(at)
            at = self.text.find(char, at + 1)
        return found


def matches(text: str, parts: Sequence[str | _Gap], *, harmony: bool = False, think: bool = False) -> bool:
    """Does ``text`` read as ``parts``, each gap standing for any string (maybe empty)?

    ``harmony``: Harmony's framing in the text may vanish; ``think``: the reasoning tags may.
    """
    groups: list[str] = [""]  # the literal runs between gaps
    for part in parts:
        if isinstance(part, _Gap):
            groups.append("")
        else:
            groups[-1] += part
    spans = framing(text, harmony=harmony, think=think) if harmony or think else {}
    if spans:
        return _matches_with_framing(_Reader(text, spans), groups)
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


def _matches_with_framing(reader: _Reader, groups: list[str]) -> bool:
    end = len(reader.text)
    first, *rest = groups
    ends = reader.ends(0, first)
    if not rest:
        return end in ends
    if not ends:
        return False
    pos = min(ends)
    *middle, last = rest
    for group in middle:  # the least end leaves the most room for what follows
        pos = reader.first_end(pos, group)
        if pos < 0:
            return False
    if not last:
        return True
    return any(end in reader.ends(start, last) for start in range(pos, end - len(last) + 1))


def check_conservation(
    text: str,
    events: Sequence[Event],
    text_calls: Collection[int] | None = None,
    *,
    reasoning: Collection[int] | None = None,
    harmony: bool = False,
    think: bool = False,
) -> None:
    """Assert rule 8 for ``text``, the text channel's whole input, and the events it gave
    (``harmony``: the Harmony detector was on; ``think``: a reasoning detector was)."""
    parts = pieces(events, text_calls, reasoning)
    assert matches(text, parts, harmony=harmony, think=think), (
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
