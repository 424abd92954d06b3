"""The text channel: where assistant text meets the text detectors.

Text is released as :class:`~streamcalls.TextDelta` as soon as it can no
longer be the start of markup.  Each chunk is searched once for every enabled
detector's triggers (:mod:`~streamcalls.detectors._triggers`: one compiled
regex for a short chunk, a C-speed scan per first character for a long one);
only a chunk's last few
characters are held back while they could still grow into a trigger (``~~``
at a line start, ``<tool_``).  When a trigger matches, the text before it is
released and the detector takes over until its markup ends; a bare-JSON
candidate that turns out not to be a call is given back as text, and
scanning resumes where the detector stopped -- nothing is scanned twice, so
the work is linear in the text.  What a detector consumes is recorded in its
:class:`~streamcalls.detectors._markup.Markup`, which the channel ends when
the detector stops (reporting a failed call with its markup as ``raw``) or
discards when the candidate was prose.

The fallback policy (``native=True``): explicit markup counts only while no
native call has been seen, bare JSON only while no call at all has.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import NamedTuple

from .._events import Event, TextDelta
from ._base import ACTIVE, DONE, MARKUP, REJECTED, Detector, Hold, Trigger
from ._triggers import Found, TriggerSearch

__all__ = ("TextChannel",)

_LINE_START = r"(?:\A|(?<=\n))"
_MID_LINE = r"(?<=\n)"
_HOLD_WINDOW = 96  # no held prefix is longer than this
_NEVER = re.compile(r"(?!)")


def _start_pattern(triggers: Sequence[Trigger], *, line_start: bool) -> re.Pattern[str]:
    """The triggers that may begin exactly where a match is tried (``n<number>`` groups)."""
    alternatives = [
        f"(?P<n{number}>{trigger.pattern})"
        for number, trigger in enumerate(triggers)
        if line_start or not trigger.line_start
    ]
    return re.compile("|".join(alternatives)) if alternatives else _NEVER


def _hold_pattern(holds: Sequence[Hold], line_start: str) -> re.Pattern[str]:
    alternatives = [(line_start if hold.line_start else "") + f"(?:{hold.pattern})" for hold in holds]
    return re.compile("(?:" + "|".join(alternatives) + ")\\Z") if alternatives else _NEVER


class _Patterns(NamedTuple):
    """What the channel searches with, for one set of detector classes."""

    owners: tuple[tuple[Trigger, int], ...]  # each trigger, with its detector's position
    triggers: TriggerSearch
    starts: tuple[re.Pattern[str], re.Pattern[str]]  # [may begin mid-line, ... at a line start]
    holds: tuple[
        re.Pattern[str], re.Pattern[str]
    ]  # [for text whose first char is mid-line, ... at a line start]
    quiet: re.Pattern[str]
    line_first: frozenset[str]


@functools.lru_cache(maxsize=64)
def _patterns(kinds: tuple[type[Detector], ...]) -> _Patterns:
    """Built once per set of detectors, not once per parser (it is most of a parser's set-up)."""
    # Explicit markup first: where a marker and a bare-JSON trigger match at
    # the same place ("[TOOL_CALLS]" and "["), the marker wins.
    owners = tuple(
        sorted(
            ((trigger, number) for number, kind in enumerate(kinds) for trigger in kind.triggers),
            key=lambda pair: pair[0].tier,
        )
    )
    triggers = [trigger for trigger, _ in owners]
    holds = [hold for kind in kinds for hold in kind.holds]
    # The fast path: text that continues a line and holds no line end and no
    # character an anywhere-trigger can begin with cannot start any markup.
    anywhere = {t.lead for t in triggers if not t.line_start} | {
        c for h in holds if not h.line_start for c in h.first
    }
    return _Patterns(
        owners,
        TriggerSearch(triggers),
        (_start_pattern(triggers, line_start=False), _start_pattern(triggers, line_start=True)),
        (_hold_pattern(holds, _MID_LINE), _hold_pattern(holds, _LINE_START)),
        re.compile("[" + re.escape("".join(sorted({"\n", *anywhere}))) + "]"),
        frozenset({t.lead for t in triggers if t.line_start})
        | {c for h in holds if h.line_start for c in h.first},
    )


class TextChannel:
    __slots__ = (
        "_active",
        "_calls",
        "_candidate",
        "_candidate_size",
        "_fallback",
        "_holds",
        "_line_first",
        "_line_start",
        "_max_candidate",
        "_out",
        "_owners",
        "_pending",
        "_quiet",
        "_starts",
        "_triggers",
    )

    def __init__(
        self, out: list[Event], detectors: Sequence[Detector], *, fallback: bool, max_candidate: int
    ) -> None:
        self._out = out
        self._fallback = fallback
        self._max_candidate = max_candidate
        patterns = _patterns(tuple(type(detector) for detector in detectors))
        self._owners = [(trigger, detectors[number]) for trigger, number in patterns.owners]
        self._triggers = patterns.triggers
        self._starts = patterns.starts
        self._holds = patterns.holds
        self._quiet = patterns.quiet
        self._line_first = patterns.line_first
        self._calls = detectors[0].calls if detectors else None
        self._pending = ""  # held text: a possible trigger, or what the active detector left
        self._line_start = True  # is the next text's first character at a line start?
        self._active: Detector | None = None
        self._candidate: list[str] = []  # an uncommitted detector's text, to give back
        self._candidate_size = 0

    # -- input -----------------------------------------------------------------

    def push(self, text: str) -> None:
        """More assistant text."""
        if (
            self._active is None
            and not self._pending
            and text
            and not (self._line_start and text[0] in self._line_first)
            and self._quiet.search(text) is None
        ):
            self._out.append(TextDelta(text))  # nothing here can begin markup
            self._line_start = False
            return
        if self._pending:
            text = self._pending + text
            self._pending = ""
        line_start = self._line_start
        pos = 0
        end = len(text)
        found = self._triggers.new_text(text)  # what the search keeps about this text
        while pos < end:
            detector = self._active
            if detector is not None:
                pos = self._drive(detector, text, pos)
                if self._active is not None:
                    self._hold(text, pos, line_start)  # it needs more text to decide
                    return
                continue
            first = self._find(text, pos, line_start, found)
            if first is None:
                self._release_up_to_hold(text, pos, line_start)
                return
            start, stop, number = first
            trigger, detector = self._owners[number]
            if trigger.tier != MARKUP and self._holds[line_start].match(text, start):
                # "[TOOL_" at the very end may yet be "[TOOL_CALLS]": explicit markup wins, so wait
                # (whether or not the bare-JSON trigger itself could count).
                self._text(text[pos:start])
                self._hold(text, start, line_start)
                return
            if not self._eligible(trigger):
                self._text(text[pos : start + 1])
                pos = start + 1
                continue
            self._text(text[pos:start])
            self._begin(detector, text[start:stop])
            pos = stop
        self._line_start = text[end - 1] == "\n" if end else line_start

    def _find(self, text: str, pos: int, line_start: bool, found: list[Found | None]) -> Found | None:
        """The first trigger at or after ``pos``: (start, stop, trigger number)."""
        if (text[pos - 1] == "\n") if pos else line_start:  # a line starts right here
            match = self._starts[True].match(text, pos)
            if match is not None:
                assert match.lastgroup is not None
                return pos, match.end(), int(match.lastgroup[1:])
        return self._triggers.first(text, pos, found)

    def end(self) -> None:
        """The text ended (a text block closed, or the stream did)."""
        rest = self._pending
        self._pending = ""
        detector = self._active
        if detector is not None:
            self._active = None
            if detector.committed:
                self._finish(detector, rest)
            else:
                detector.abandon()
                detector.markup.discard()
                self._text("".join(self._candidate) + rest)
            self._candidate.clear()
        elif rest:
            # A held trigger that the end of the text completes (an opening
            # fence line with nothing after it) is markup; anything else is text.
            match = self._starts[self._line_start].match(rest + "\n")
            if match is not None and match.end() == len(rest) + 1:
                assert match.lastgroup is not None
                trigger, detector = self._owners[int(match.lastgroup[1:])]
                if self._eligible(trigger):
                    self._begin(detector, rest)
                    self._active = None
                    self._finish(detector, "")
                    self._candidate.clear()
                    self._line_start = True
                    return
            self._text(rest)
        self._line_start = True

    # -- internals -------------------------------------------------------------------

    def _text(self, text: str) -> None:
        if text:
            self._out.append(TextDelta(text))

    def _hold(self, text: str, pos: int, line_start: bool) -> None:
        self._pending = text[pos:]
        if pos:
            self._line_start = text[pos - 1] == "\n"
        else:
            self._line_start = line_start

    def _release_up_to_hold(self, text: str, pos: int, line_start: bool) -> None:
        end = len(text)
        held = self._holds[line_start].search(text, max(pos, end - _HOLD_WINDOW))
        cut = held.start() if held is not None else end
        self._text(text[pos:cut])
        if cut < end:
            self._hold(text, cut, line_start)
        else:
            self._line_start = text[end - 1] == "\n" if end else line_start

    def _eligible(self, trigger: Trigger) -> bool:
        if not self._fallback or self._calls is None:
            return True
        sources = self._calls.sources
        if trigger.tier == MARKUP:
            return "native" not in sources
        return not sources

    def _begin(self, detector: Detector, trigger: str) -> None:
        detector.markup.start(trigger)
        detector.begin(trigger)
        self._active = detector
        self._candidate.clear()
        if not detector.committed:
            self._candidate.append(trigger)
            self._candidate_size = len(trigger)

    def _drive(self, detector: Detector, text: str, pos: int) -> int:
        room = -1
        full = text
        if not detector.committed:
            # A candidate may hold at most max_candidate characters: it sees no more
            # than that, so that where it stops does not depend on the chunking.
            room = self._max_candidate - self._candidate_size
            if len(text) - pos > room:
                text = text[: pos + room]
        markup = detector.markup
        markup.attach(text, pos)
        stop = detector.feed(text, pos)
        markup.detach(stop)
        status = detector.status
        if status == ACTIVE:
            if detector.committed:
                self._candidate.clear()
                if text is not full:
                    # It committed: the rest is its own.  Where it stopped short of the cut, it
                    # waits for what the cut withheld (the start of an end token), so it gets it.
                    return self._drive(detector, full, stop)
            else:
                self._candidate.append(text[pos:stop])
                self._candidate_size += stop - pos
                if stop - pos == room:
                    # Too long to be held as a maybe: it is prose.
                    detector.abandon()
                    markup.discard()
                    self._active = None
                    self._text("".join(self._candidate))
                    self._candidate.clear()
            return stop
        self._active = None
        if status == REJECTED:
            markup.discard()
            self._text("".join(self._candidate) + text[pos:stop])
        else:
            assert status == DONE
            markup.end()
        self._candidate.clear()
        return stop

    def _finish(self, detector: Detector, rest: str) -> None:
        """The text ended inside a committed detector's markup."""
        markup = detector.markup
        markup.attach(rest, 0)
        prose = detector.finish(rest)  # what of rest is prose after all: its end
        markup.detach(len(rest) - len(prose))
        markup.end()
        self._text(prose)
