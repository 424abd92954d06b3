"""What every text detector is, and small helpers for matching markup across chunks."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import ClassVar, NamedTuple

from .._call import OPEN, Call
from .._calls import CallAssembler
from .._events import Event, ReasoningDelta, TextDelta
from ._markup import Markup
from ._values import ToolTypes

__all__ = (
    "ACTIVE",
    "BOUNDARY",
    "CLOSED",
    "DONE",
    "MARKUP",
    "MORE",
    "RAW",
    "REJECTED",
    "SHAPED",
    "Detector",
    "Hold",
    "StateDetector",
    "Trigger",
    "arguments_until",
    "feed_arguments",
    "literal_at",
    "prefixes",
    "skip_blanks",
)

# Detector status.
ACTIVE = 0
DONE = 1  # the markup ended; text resumes where feed() stopped
REJECTED = 2  # it was not markup after all; the candidate text is prose

# Tiers, for the fallback policy: explicit markup outranks bare JSON.  Where
# triggers of several tiers match at one place, the lower tier wins: a bare
# call list ``[name(`` (SHAPED) outranks the bare-JSON ``[`` (RAW), and a
# marker (``[TOOL_CALLS]``) outranks both.  Only MARKUP counts as explicit
# markup for ``native=True``.
MARKUP = 2
SHAPED = 3
RAW = 4


class Trigger(NamedTuple):
    """What starts a detector's markup: a literal first character, then a regex.

    Keeping the first character apart lets the channel build one search
    pattern whose every branch starts with a literal, which the regex engine
    scans for at C speed.
    """

    lead: str  # the character every match begins with
    rest: str  # a regex source for what follows it
    line_start: bool = False  # only at the start of a line (or of the text)
    tier: int = MARKUP
    text_start: bool = False  # only at the very start of the text (a completion's first header)

    @property
    def pattern(self) -> str:
        return re.escape(self.lead) + self.rest


class Hold(NamedTuple):
    """What a chunk may end with while one of a detector's triggers could still follow."""

    pattern: str  # a regex source, matched against the end of the text
    first: str  # every character a match can begin with
    line_start: bool = False
    text_start: bool = False


def prefixes(literal: str) -> str:
    """A regex matching any non-empty prefix of ``literal`` (for text held at a chunk's end)."""
    pattern = ""
    for char in reversed(literal[1:]):
        pattern = f"(?:{re.escape(char)}{pattern})?"
    return re.escape(literal[0]) + pattern


def feed_arguments(calls: CallAssembler, call: Call, text: str, pos: int) -> int:
    """Feed ``text[pos:]`` to a call's arguments: where their value ended in
    ``text``, or -1 while it goes on past it (open, or counted on after a limit)."""
    rest = calls.feed(call, text[pos:] if pos else text)
    if not call.closed_json and (call.status == OPEN or call.draining):
        return -1
    return pos + rest if rest >= 0 else len(text)


# How arguments_until stopped.
MORE = 0  # at the end of the text (or of what it may take yet): more may come
CLOSED = 1  # the arguments' JSON closed
BOUNDARY = 2  # a token ended them first; the call was ended there

_BLANK_RUN = re.compile(r"[ \t\r\n]*")


def skip_blanks(text: str, pos: int) -> int:
    """Where the blanks (spaces, tabs, line ends) from ``pos`` end."""
    match = _BLANK_RUN.match(text, pos)
    assert match is not None
    return match.end()


def arguments_until(
    detector: Detector, call: Call, text: str, pos: int, *, boundary: re.Pattern[str], hold: re.Pattern[str]
) -> tuple[int, int, str]:
    r"""Feed a call's arguments from ``pos`` up to the next ``boundary`` token (tokens
    that end arguments whatever they hold, such as Harmony's and Kimi's).

    Returns where it stopped, how (MORE, CLOSED, BOUNDARY) and, for BOUNDARY, the
    token, which is not consumed.  A possible start of a token at the text's end
    (``hold``, a regex ending in ``\Z``) is left for the next text.  A token that
    comes before the JSON closed ends the call there (``CallAssembler.end``: a
    number fails as not an object, an open object as truncated).
    """
    found = boundary.search(text, pos)
    if found is not None:
        cut = found.start()
    else:
        held = hold.search(text, max(pos, len(text) - 32))
        cut = held.start() if held is not None else len(text)
    stop = feed_arguments(detector.calls, call, text[:cut], pos) if cut > pos else -1
    markup = detector.markup
    if stop >= 0:
        markup.after_arguments(stop)
        return stop, CLOSED, ""
    if found is None:
        return cut, MORE, ""
    markup.after_arguments(cut)
    if call.status == OPEN:
        detector.calls.end(call)
    return cut, BOUNDARY, found.group()


def literal_at(text: str, pos: int, literal: str) -> int:
    """1 if ``literal`` is at ``pos``; 0 if the text ends with a prefix of it there; -1 if not."""
    if text.startswith(literal, pos):
        return 1
    rest = text[pos:]
    return 0 if len(rest) < len(literal) and literal.startswith(rest) else -1


class Detector:
    """Finds one format's tool calls in the text channel.

    The :class:`~streamcalls.detectors._channel.TextChannel` searches the text
    for every enabled detector's triggers at once (:mod:`._triggers`) and
    holds back a chunk's end while it could still become a trigger.  When a
    trigger matches, the channel calls :meth:`begin` with it and then feeds the
    detector text until its ``status`` is DONE or REJECTED.  ``feed`` may stop
    before the end of the text it was given while it needs more to decide
    (a closing delimiter split across chunks): the channel gives that rest
    back, with more text, on the next call.

    A detector is *committed* once the text is certainly markup (an explicit
    marker, or a bare JSON object that has shown a valid name and arguments);
    until then the channel keeps the candidate's text to give back as prose
    if the detector rejects it, and no call of it has started.

    ``markup`` records what the detector consumed (the channel records each
    ``feed``); the detector tells it where a call's arguments begin and end,
    where the next call's markup begins, and what failed -- see
    :mod:`~streamcalls.detectors._markup`.

    A format whose markup also frames the model's text (Harmony's messages:
    a header, then the answer or the reasoning) emits that text itself,
    through :meth:`content`, while it is active.
    """

    name: ClassVar[str]
    triggers: ClassVar[tuple[Trigger, ...]] = ()
    holds: ClassVar[tuple[Hold, ...]] = ()

    __slots__ = ("calls", "committed", "markup", "out", "status", "tools", "types")

    def __init__(
        self, calls: CallAssembler, tools: frozenset[str] | None, out: list[Event], types: ToolTypes
    ) -> None:
        self.calls = calls
        self.tools = tools  # the names tools= gave, or None
        self.out = out  # the channel's events
        self.types = types  # the tools' parameter types, for formats whose values are bare text
        self.status = DONE
        self.committed = False
        self.markup = Markup(calls, self.name)

    def begin(self, trigger: str) -> None:
        """A trigger matched (and was consumed): start a new region."""
        raise NotImplementedError

    def feed(self, text: str, pos: int) -> int:
        """Consume ``text`` from ``pos``; return where it stopped."""
        raise NotImplementedError

    def finish(self, rest: str) -> str:
        """The text ended while this (committed) detector was active.

        ``rest`` is what it had not consumed; returns the part of it that is
        prose after all (blanks held while a ``;`` could still follow).
        """
        raise NotImplementedError

    def abandon(self) -> None:
        """The channel gave an uncommitted candidate back as text: drop its state."""

    def content(self, text: str, start: int, stop: int, *, reasoning: bool = False) -> None:
        """``text[start:stop]`` is the model's text inside this (committed) markup: emit it as
        :class:`~streamcalls.TextDelta` (or :class:`~streamcalls.ReasoningDelta`); the markup
        recorded before it is the framing that holds it (see :meth:`Markup.content`)."""
        self.markup.content(start, stop)
        if stop > start:
            self.out.append(ReasoningDelta(text[start:stop]) if reasoning else TextDelta(text[start:stop]))


class StateDetector(Detector):
    """A detector that is a state machine: ``feed`` runs :meth:`step` until the text ends, the
    region does, or a step neither moves nor changes the state (it waits for more text: a
    token split across chunks).

    Each step consumes what the current ``_state`` can from ``pos`` and returns where it
    stopped.  Subclasses write :meth:`step`, or set ``steps``: one function per state,
    indexed by ``_state``.
    """

    steps: ClassVar[tuple[Callable[..., int], ...]]  # (self, text, pos) -> where it stopped

    __slots__ = ("_state",)

    _state: int

    def feed(self, text: str, pos: int) -> int:
        end = len(text)
        step = self.step
        while pos < end and self.status == ACTIVE:
            state = self._state
            stop = step(text, pos)
            if stop == pos and self._state == state and self.status == ACTIVE:
                break  # wait for more text
            pos = stop
        return pos

    def step(self, text: str, pos: int) -> int:
        """Consume what the current state can; return where it stopped."""
        return self.steps[self._state](self, text, pos)
