"""What every text detector is, and small helpers for matching markup across chunks."""

from __future__ import annotations

import re
from typing import ClassVar, NamedTuple

from .._calls import OPEN, Call, CallAssembler
from ._markup import Markup
from ._values import ToolTypes

__all__ = (
    "ACTIVE",
    "DONE",
    "MARKUP",
    "RAW",
    "REJECTED",
    "Detector",
    "Hold",
    "Trigger",
    "feed_arguments",
    "literal_at",
    "prefixes",
)

# Detector status.
ACTIVE = 0
DONE = 1  # the markup ended; text resumes where feed() stopped
REJECTED = 2  # it was not markup after all; the candidate text is prose

# Tiers, for the fallback policy: explicit markup outranks bare JSON.
MARKUP = 2
RAW = 3


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

    @property
    def pattern(self) -> str:
        return re.escape(self.lead) + self.rest


class Hold(NamedTuple):
    """What a chunk may end with while one of a detector's triggers could still follow."""

    pattern: str  # a regex source, matched against the end of the text
    first: str  # every character a match can begin with
    line_start: bool = False


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


def literal_at(text: str, pos: int, literal: str) -> int:
    """1 if ``literal`` is at ``pos``; 0 if the text ends with a prefix of it there; -1 if not."""
    if text.startswith(literal, pos):
        return 1
    rest = text[pos:]
    return 0 if len(rest) < len(literal) and literal.startswith(rest) else -1


class Detector:
    """Finds one format's tool calls in the text channel.

    The :class:`~streamcalls.detectors._channel.TextChannel` searches the text
    for every enabled detector's triggers at once (one compiled regex) and
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
    """

    name: ClassVar[str]
    triggers: ClassVar[tuple[Trigger, ...]] = ()
    holds: ClassVar[tuple[Hold, ...]] = ()

    __slots__ = ("calls", "committed", "markup", "status", "tools")

    def __init__(self, calls: CallAssembler, tools: frozenset[str] | None) -> None:
        self.calls = calls
        self.tools = tools
        self.status = DONE
        self.committed = False
        self.markup = Markup(calls, self.name)

    def typed(self, types: ToolTypes) -> None:
        """The tools' parameter types, for a format whose values are untyped text (see :mod:`._values`)."""

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
