"""What every text detector is: its triggers, what it holds back, and the machine that reads its markup."""

from __future__ import annotations

import re
from enum import IntEnum
from typing import ClassVar, NamedTuple

from ..._calls import CallAssembler
from ..._events import Event, ReasoningDelta, TextDelta
from .machine import Machine, Status, fast
from .markup import Markup
from .tools import ToolTypes

__all__ = ("Detector", "Hold", "Tier", "Trigger", "prefixes")


class Tier(IntEnum):
    """How explicit a trigger is, for the fallback policy and for triggers that match at one place.

    Where triggers of several tiers match at one place, the lower tier wins: a bare call list
    ``[name(`` (SHAPED) outranks the bare-JSON ``[`` (RAW), and a marker (``[TOOL_CALLS]``)
    outranks both.  Only MARKUP counts as explicit markup for ``native=True``.
    """

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
    tier: Tier = Tier.MARKUP
    text_start: bool = False  # only at the very start of the text (a completion's first header)
    framing: bool = False  # a token that frames the model's text: the channel drops it (Detector.framing)
    behind: str = ""  # what the token begins with before its lead (its rest looks behind for it)

    @property
    def pattern(self) -> str:
        return re.escape(self.lead) + self.rest

    @classmethod
    def literal(
        cls,
        token: str,
        *,
        line_start: bool = False,
        tier: Tier = Tier.MARKUP,
        framing: bool = False,
        lead: int = 0,
    ) -> Trigger:
        """A trigger that is one literal token (``<tool_call>``).

        ``lead``: the index of the character the search looks for, when it is not the first:
        a token that begins with a letter (``functools[``) is found by a rarer character of it
        (``[``) that another format's scan looks for anyway, so that it adds no pass over the
        text; the match then looks behind for the token's beginning.
        """
        if lead:
            head = re.escape(token[: lead + 1])
            rest = f"(?<={head})" + re.escape(token[lead + 1 :])
            return cls(token[lead], rest, line_start, tier, framing=framing, behind=token[:lead])
        return cls(token[0], re.escape(token[1:]), line_start, tier, framing=framing)


class Hold(NamedTuple):
    """What a chunk may end with while one of a detector's triggers could still follow."""

    pattern: str  # a regex source, matched against the end of the text
    first: str  # every character a match can begin with
    line_start: bool = False
    text_start: bool = False

    @classmethod
    def literal(cls, token: str, *, line_start: bool = False) -> Hold:
        """Any non-empty prefix of a literal token."""
        return cls(prefixes(token), token[0], line_start)


def prefixes(literal: str) -> str:
    """A regex matching any non-empty prefix of ``literal`` (for text held at a chunk's end)."""
    pattern = ""
    for char in reversed(literal[1:]):
        pattern = f"(?:{re.escape(char)}{pattern})?"
    return re.escape(literal[0]) + pattern


class Detector(Machine):
    """Finds one format's tool calls in the text channel.

    The :class:`~streamcalls.detectors._engine.channel.TextChannel` searches the text for
    every enabled detector's triggers at once (:mod:`.triggers`) and holds back a chunk's end
    while it could still become a trigger.  When a trigger matches, the channel calls
    :meth:`begin` with it and then feeds the detector text (:meth:`Machine.feed`: the
    detector's ``State`` and its steps) until its ``status`` is DONE or REJECTED.  ``feed``
    may stop before the end of the text it was given while it needs more to decide (a
    closing delimiter split across chunks): the channel gives that rest back, with more text,
    on the next call.

    A detector is *committed* once the text is certainly markup (an explicit marker, or a
    bare JSON object that has shown a valid name and arguments); until then the channel
    keeps the candidate's text to give back as prose if the detector rejects it, and no call
    of it has started.

    ``markup`` records what the detector consumed (the channel records each ``feed``); the
    detector tells it where a call's arguments begin and end, where the next call's markup
    begins, and what failed -- see :mod:`.markup`.  The channel gives it before each
    :meth:`begin` (one record for all of a channel's detectors, made at its first markup: only
    one detector reads at a time), so a detector has none before its first region.

    A format whose markup also frames the model's text (Harmony's messages, reasoning
    between ``<think>`` tags) emits that text itself, through :meth:`content`, while it is
    active.  Tokens that only frame the text around them (the answer tags some families write
    after their reasoning, ``<response>``, ``<|START_RESPONSE|>``) are declared in ``framing``:
    the channel drops each one where it stands, and the text on both sides stays text (searched
    for calls like any other).

    Subclasses declare ``name`` (the ``detect=`` value), ``triggers``, ``holds``, a ``State``
    enum with a step per state, and write :meth:`begin` and :meth:`finish`.
    """

    name: ClassVar[str]
    triggers: ClassVar[tuple[Trigger, ...]] = ()
    holds: ClassVar[tuple[Hold, ...]] = ()
    opens_text: ClassVar[bool] = False  # it reads from the text's first character, without a trigger
    # A format whose opener other formats share (see .shared): the opener, what follows it in
    # this format's markup (None: a tool's name), and its rank when no claim decides.
    shares: ClassVar[str] = ""
    claim: ClassVar[str | None] = None
    fallback_rank: ClassVar[int] = 9
    # Tokens that frame the model's text: dropped wherever they stand, while the detector is on.
    framing: ClassVar[tuple[str, ...]] = ()
    # What follows this detector's regions starts a line (reasoning: the answer begins after its
    # closing tag, so a trigger that counts only at a line start counts there).
    ends_line: ClassVar[bool] = False

    __slots__ = ("calls", "committed", "markup", "out", "tools", "types")

    markup: Markup

    def __init__(
        self, calls: CallAssembler, tools: frozenset[str] | None, out: list[Event], types: ToolTypes
    ) -> None:
        self.calls = calls
        self.tools = tools  # the names tools= gave, or None
        self.out = out  # the channel's events
        self.types = types  # the tools' parameter types, for formats whose values are bare text
        self.status = _Status.DONE
        self.committed = False
        # ``markup`` is the channel's record, given before each begin (see Detector's docstring).

    def begin(self, trigger: str) -> None:
        """A trigger matched (and was consumed): start a new region."""
        raise NotImplementedError

    def start(self, state: IntEnum, *, committed: bool = True) -> None:
        """Start a region in ``state`` (what most :meth:`begin` methods do first)."""
        self.status = _Status.ACTIVE
        self.committed = committed
        self._state = state

    def finish(self, rest: str) -> str:
        """The text ended while this (committed) detector was active.

        ``rest`` is what it had not consumed; returns the part of it that is
        prose after all (blanks held while a ``;`` could still follow).
        """
        raise NotImplementedError

    def abandon(self) -> None:
        """The channel gave an uncommitted candidate back as text: drop its state."""

    def stop(self, pos: int) -> int:
        """The markup ends at ``pos``: the text resumes there."""
        self.status = _Status.DONE
        return pos

    def content(self, text: str, start: int, stop: int, *, reasoning: bool = False) -> None:
        """``text[start:stop]`` is the model's text inside this (committed) markup: emit it as
        :class:`~streamcalls.TextDelta` (or :class:`~streamcalls.ReasoningDelta`); the markup
        recorded before it is the framing that holds it (see :meth:`Markup.content`)."""
        self.markup.content(start, stop)
        if stop > start:
            self.out.append(ReasoningDelta(text[start:stop]) if reasoning else TextDelta(text[start:stop]))


_Status = fast(Status)
