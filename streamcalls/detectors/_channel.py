"""The text channel: where assistant text meets the text detectors.

Text is released as :class:`~streamcalls.TextDelta` as soon as it can no
longer be the start of markup.  Each chunk is searched once, by one compiled
regex holding every enabled detector's triggers; only a chunk's last few
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

from .._calls import CallAssembler
from .._events import Event, TextDelta
from ._base import ACTIVE, DONE, MARKUP, REJECTED, Detector, Hold, Trigger

__all__ = ("TextChannel",)

_LINE_START = r"(?:\A|(?<=\n))"
_MID_LINE = r"(?<=\n)"
_TEXT_START = r"\A"

# Where the text being searched begins: its first character continues a line,
# starts one, or is the very first character of the text.
_MID = 0
_LINE = 1
_FIRST = 2
_HOLD_WINDOW = 96  # no held prefix is longer than this
_NEVER = re.compile(r"(?!)")


_SPECIAL = frozenset(".^$*+?{}[]\\|()")
_QUANTIFIERS = frozenset("*+?{")


def _first_literal(source: str) -> tuple[str, str] | None:
    """A regex source's first character, if it always matches that one character, and the rest."""
    if source[:1] == "\\" and len(source) > 1 and not source[1].isalnum():
        char, rest = source[1], source[2:]
    elif source and source[0] not in _SPECIAL:
        char, rest = source[0], source[1:]
    else:
        return None
    return None if rest[:1] in _QUANTIFIERS else (char, rest)


def _alternation(branches: Sequence[tuple[str, str]], depth: int = 3) -> str:
    """``(?:(?P<name>source)|...)``, with branches that begin with the same character
    sharing it: at each place tried, the regex engine checks one character per
    distinct first character instead of one per branch.  Branches keep their
    order wherever two of them could match at one place."""
    groups: list[tuple[str | None, list[tuple[str, str]]]] = []
    open_groups: dict[str, list[tuple[str, str]]] = {}
    for name, source in branches:
        first = _first_literal(source) if depth else None
        if first is None:
            groups.append((None, [(name, source)]))
            open_groups = {}  # it may match where any later branch does: nothing moves past it
            continue
        char, rest = first
        if char in open_groups:
            open_groups[char].append((name, rest))
        else:
            members = open_groups[char] = [(name, rest)]
            groups.append((char, members))
    parts = []
    for shared, members in groups:
        if shared is None:
            name, source = members[0]
            parts.append(f"(?P<{name}>{source})")
        elif len(members) == 1:
            name, rest = members[0]
            parts.append(f"(?P<{name}>{re.escape(shared)}{rest})")
        else:
            parts.append(re.escape(shared) + _alternation(members, depth - 1))
    return "(?:" + "|".join(parts) + ")"


def _search_patterns(triggers: Sequence[Trigger]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The patterns that find triggers, one per first character, each starting with it.

    A line trigger is found through the line end before it: ``\n`` then the
    trigger (``n<number>`` groups); an anywhere trigger through its own first
    character (``a<number>`` groups).  A pattern whose every match begins with
    one literal character is searched for at C speed: about 10x faster than
    one pattern of several branches with different first characters, which
    the regex engine scans for one position at a time (and 100x faster than a
    pattern that starts with a lookbehind).  Where triggers of two patterns
    begin at one place, the lower number wins (markup first, so
    ``\n[TOOL_CALLS]`` beats a bare-JSON ``[``).  Each comes with its first
    character, which ``str.find`` skips to faster still (memchr) before the
    regex engine looks.
    """
    line = [
        (f"n{number}", trigger.pattern)
        for number, trigger in enumerate(triggers)
        if trigger.line_start and not trigger.text_start
    ]
    by_lead: dict[str, list[tuple[str, str]]] = {}
    for number, trigger in enumerate(triggers):
        if not trigger.line_start and not trigger.text_start:
            by_lead.setdefault(trigger.lead, []).append((f"a{number}", trigger.rest))
    patterns = [("\n", re.compile("\\n" + _alternation(line)))] if line else []
    patterns += [(lead, re.compile(re.escape(lead) + _alternation(rests))) for lead, rests in by_lead.items()]
    return tuple(patterns)


def _start_pattern(triggers: Sequence[Trigger], where: int) -> re.Pattern[str]:
    """The triggers that may begin exactly where a match is tried (``n<number>`` groups)."""
    alternatives = [
        (f"n{number}", trigger.pattern)
        for number, trigger in enumerate(triggers)
        if where == _FIRST
        or (where == _LINE and not trigger.text_start)
        or not (trigger.line_start or trigger.text_start)
    ]
    return re.compile(_alternation(alternatives)) if alternatives else _NEVER


def _hold_pattern(holds: Sequence[Hold], where: int) -> re.Pattern[str]:
    line_start = _MID_LINE if where == _MID else _LINE_START
    alternatives = [
        (_TEXT_START if hold.text_start else line_start if hold.line_start else "") + f"(?:{hold.pattern})"
        for hold in holds
        if where == _FIRST or not hold.text_start
    ]
    return re.compile("(?:" + "|".join(alternatives) + ")\\Z") if alternatives else _NEVER


class _Patterns(NamedTuple):
    """What the channel searches with, for one set of detector classes."""

    owners: tuple[tuple[Trigger, int], ...]  # each trigger, with its detector's position
    searches: tuple[tuple[str, re.Pattern[str]], ...]  # (first character, pattern)
    # Each indexed by where the text begins (_MID, _LINE, _FIRST): the triggers that may begin
    # right there, and what the text may end with while one could still follow.
    starts: tuple[re.Pattern[str], ...]
    holds: tuple[re.Pattern[str], ...]
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
    anywhere = {t.lead for t in triggers if not (t.line_start or t.text_start)} | {
        c for h in holds if not (h.line_start or h.text_start) for c in h.first
    }
    return _Patterns(
        owners,
        _search_patterns(triggers),
        tuple(_start_pattern(triggers, where) for where in (_MID, _LINE, _FIRST)),
        tuple(_hold_pattern(holds, where) for where in (_MID, _LINE, _FIRST)),
        re.compile("[" + re.escape("".join(sorted({"\n", *anywhere}))) + "]"),
        frozenset({t.lead for t in triggers if t.line_start or t.text_start})
        | {c for h in holds if h.line_start or h.text_start for c in h.first},
    )


class TextChannel:
    __slots__ = (
        "_active",
        "_calls",
        "_candidate",
        "_candidate_size",
        "_detectors",
        "_fallback",
        "_found",
        "_found_in",
        "_holds",
        "_line_first",
        "_line_start",
        "_max_candidate",
        "_out",
        "_owners",
        "_pending",
        "_quiet",
        "_searched",
        "_searches",
        "_starts",
        "_text_start",
    )

    def __init__(
        self, out: list[Event], detectors: Sequence[Detector], *, fallback: bool, max_candidate: int
    ) -> None:
        self._out = out
        self._fallback = fallback
        self._max_candidate = max_candidate
        self._detectors: list[Detector] = []
        self._calls: CallAssembler | None = None
        self.add(detectors)
        self._pending = ""  # held text: a possible trigger, or what the active detector left
        self._line_start = True  # is the next text's first character at a line start?
        self._text_start = True  # ... the very first character of the text?
        self._active: Detector | None = None
        self._candidate: list[str] = []  # an uncommitted detector's text, to give back
        self._candidate_size = 0
        # For the text being scanned: each search pattern's first match from where it was
        # last searched (None: none there), and whether it was searched at all.
        self._found_in = ""
        self._found: list[re.Match[str] | None] = []
        self._searched: list[bool] = []

    @property
    def names(self) -> tuple[str, ...]:
        """The names of the detectors the channel runs."""
        return tuple(detector.name for detector in self._detectors)

    def add(self, detectors: Sequence[Detector]) -> None:
        """Run these detectors too, from the next text on (the stream named its model).

        What was already released stays as it was; text held back is searched
        again, with every trigger, when the next text comes.
        """
        self._detectors += detectors
        everyone = self._detectors
        if self._calls is None and everyone:
            self._calls = everyone[0].calls
        patterns = _patterns(tuple(type(detector) for detector in everyone))
        self._owners = [(trigger, everyone[number]) for trigger, number in patterns.owners]
        self._searches = patterns.searches
        self._starts = patterns.starts
        self._holds = patterns.holds
        self._quiet = patterns.quiet
        self._line_first = patterns.line_first

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
            self._line_start = self._text_start = False
            return
        if self._pending:
            text = self._pending + text
            self._pending = ""
        self._scan(text)
        # Still at the text's start only while all of it is held back, none consumed.
        self._text_start = self._text_start and len(self._pending) == len(text) and self._active is None

    def _scan(self, text: str) -> None:
        line_start = self._line_start
        where = _FIRST if self._text_start else _LINE if line_start else _MID
        pos = 0
        end = len(text)
        while pos < end:
            detector = self._active
            if detector is not None:
                pos = self._drive(detector, text, pos)
                if self._active is not None:
                    self._hold(text, pos, line_start)  # it needs more text to decide
                    return
                continue
            found = self._find(text, pos, where)
            if found is None:
                self._release_up_to_hold(text, pos, line_start, where)
                return
            start, stop, number = found
            trigger, detector = self._owners[number]
            if trigger.tier != MARKUP and self._holds[where].match(text, start):
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

    def _find(self, text: str, pos: int, where: int) -> tuple[int, int, int] | None:
        """The first trigger at or after ``pos``: (start, stop, trigger number)."""
        here = (_LINE if text[pos - 1] == "\n" else _MID) if pos else where
        if here:  # a line (or the text) starts right here
            match = self._starts[here].match(text, pos)
            if match is not None:
                assert match.lastgroup is not None
                return pos, match.end(), int(match.lastgroup[1:])
        if self._found_in is not text:
            self._found_in = text
            self._found = [None] * len(self._searches)
            self._searched = [False] * len(self._searches)
        found = self._found
        searched = self._searched
        best: tuple[int, int, int] | None = None
        for which, (lead, pattern) in enumerate(self._searches):
            match = found[which]
            # A match still ahead stays valid, and so does having found none.
            if not searched[which] or (match is not None and match.start() < pos):
                at = text.find(lead, pos)
                match = found[which] = pattern.search(text, at) if at >= 0 else None
                searched[which] = True
            if match is None:
                continue
            group = match.lastgroup
            assert group is not None
            start = match.start() + 1 if group[0] == "n" else match.start()  # "n": after its "\n"
            candidate = (start, int(group[1:]), match.end())
            if best is None or candidate < best:
                best = candidate
        if best is None:
            return None
        start, number, stop = best
        return start, stop, number

    def end(self) -> None:
        """The text ended (a text block closed, or the stream did)."""
        rest = self._pending
        self._pending = ""
        detector = self._active
        text_start = self._text_start
        self._text_start = text_start and not rest and detector is None
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
            where = _FIRST if text_start else _LINE if self._line_start else _MID
            match = self._starts[where].match(rest + "\n")
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

    def _release_up_to_hold(self, text: str, pos: int, line_start: bool, where: int) -> None:
        end = len(text)
        held = self._holds[where].search(text, max(pos, end - _HOLD_WINDOW))
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
