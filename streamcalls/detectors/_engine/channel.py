"""The text channel: where assistant text meets the text detectors.

Text is released as :class:`~streamcalls.TextDelta` as soon as it can no
longer be the start of markup.  Each chunk is searched once for every enabled
detector's triggers (:mod:`.triggers`: one compiled
regex for a short chunk, a C-speed scan per first character for a long one);
only a chunk's last few characters are held back while they could still grow
into a trigger (``~~`` at a line start, ``<tool_``).  When a trigger matches,
the text before it is released and the detector takes over until its markup
ends; a bare-JSON candidate that turns out not to be a call is given back as
text, and scanning resumes where the detector stopped -- nothing is scanned
twice, so the work is linear in the text.  What a detector consumes is
recorded in its :class:`.markup.Markup`, which the
channel ends when the detector stops (reporting a failed call with its markup
as ``raw``) or discards when the candidate was prose.

A format's framing tokens (the answer tags around a family's answer) are dropped where they
stand; the text on both sides is text, searched as usual.  Where a region of reasoning ends, a
line starts: the answer begins there, so ``</think>[{"name": ...}]`` is read as a bare call list
would be at a line's start.

The fallback policy (``native=True``): explicit markup counts only while no
native call has been seen, bare JSON only while no call at all has.  Where the
policy reads no bare JSON (:mod:`streamcalls._policy`), the parser leaves the
``json`` detector out and turns the bare-JSON triggers of the others off
(:meth:`TextChannel.read_bare_json`: the ``llama`` detector's bare object).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping

from ..._calls import CallAssembler
from ..._errors import UsageError
from ..._events import Event, TextDelta
from .detector import Detector, Tier, Trigger
from .machine import Status, fast
from .markup import Markup
from .shared import Plan, build, share
from .tools import ToolTypes
from .triggers import HOLD_WINDOW, SHORT, Found, Where, patterns

__all__ = ("TextChannel",)


class TextChannel:
    """The text of one stream (or one text block) and the detectors that search it.

    Built by :func:`streamcalls.detectors.build_channel`.  A parser holds one for as long as its
    stream is open, and most hold no markup at all, so a channel keeps little of its own (a few
    hundred bytes, however many formats are on): what it searches with is shared by every
    channel of the same detectors (:func:`.triggers.patterns`, :func:`.shared.share`), each
    detector is built at its first region, and its markup record (:class:`.markup.Markup`, one
    for all its detectors, as only one reads at a time) and the list of a candidate's text are
    made when they are first needed.
    """

    __slots__ = (
        "_active",
        "_bare",
        "_built",
        "_calls",
        "_candidate",
        "_candidate_size",
        "_fallback",
        "_lead_or_word",
        "_line_first",
        "_line_start",
        "_markup",
        "_names",
        "_out",
        "_patterns",
        "_pending",
        "_plans",
        "_quiet",
        "_registry",
        "_short",
        "_text_start",
        "_tools",
        "_types",
    )

    def __init__(
        self,
        out: list[Event],
        calls: CallAssembler,
        names: Iterable[str],
        *,
        registry: Mapping[str, type[Detector]],
        tools: frozenset[str] | None,
        types: ToolTypes,
        fallback: bool,
    ) -> None:
        self._out = out
        self._calls = calls
        self._registry = registry  # the detectors by name (streamcalls.detectors.DETECTORS)
        self._tools = tools  # the names tools= gave, or None
        self._types = types
        self._fallback = fallback
        self._bare = True  # do bare-JSON triggers count?
        self._names: tuple[str, ...] = ()
        self._plans: tuple[Plan, ...] = ()  # what to build for each detector (shared; see .shared)
        self._built: list[Detector | None] | None = None  # the detectors, each built at its first region
        self._markup: Markup | None = None
        self._pending = ""  # held text: a possible trigger, or what the active detector left
        self._line_start = True  # is the next text's first character at a line start?
        self._text_start = True  # ... the very first character of the text?
        self._active: Detector | None = None
        self._candidate: list[str] | None = None  # an uncommitted detector's text, to give back
        self._candidate_size = 0
        self.add(names)

    @property
    def names(self) -> tuple[str, ...]:
        """The names of the detectors the channel runs."""
        return self._names

    def add(self, names: Iterable[str]) -> None:
        """Run these detectors too (those not running yet), from the next text on (the stream
        named its model).

        What was already released stays as it was; text held back is searched
        again, with every trigger, when the next text comes.  The detectors
        added are planned together, so those among them that share the
        ``<tool_call>`` opener share it; the ones running already (the
        defaults, when a stream names its model) open with none of theirs.
        """
        new = tuple(name for name in dict.fromkeys(names) if name not in self._names)
        if not new and self._names:
            return
        kinds = []
        for name in new:
            cls = self._registry.get(name)
            if cls is None:
                known = ", ".join(repr(n) for n in self._registry)
                raise UsageError(f"unknown detector {name!r}; expected some of {known}")
            kinds.append(cls)
        self._names = _interned(self._names + new)
        first = len(self._plans)
        self._plans = _interned_plans(self._plans + share(tuple(kinds)))
        if self._built is not None:
            self._built += [None] * (len(self._plans) - first)
        found = patterns(tuple(kind for kind, _ in self._plans))
        self._patterns = found
        self._quiet = found.quiet
        self._lead_or_word = found.lead_or_word
        self._short = found.short
        self._line_first = found.line_first
        # A format that reads from the text's first character (the template opened reasoning
        # in the prompt) starts now, if no text has come yet.
        opening = next((n for n in range(first, len(self._plans)) if self._plans[n][0].opens_text), None)
        if opening is not None and self._text_start and self._active is None and not self._pending:
            self._begin(self._detector(opening), "")

    def _detector(self, number: int) -> Detector:
        """The channel's detector ``number`` (its place in ``_plans``), built at its first region:
        most channels read no markup (every detector built with the channel cost ~6 KB)."""
        built = self._built
        if built is None:
            built = self._built = [None] * len(self._plans)
        detector = built[number]
        if detector is None:
            detector = built[number] = build(
                self._plans[number], self._calls, self._tools, self._out, self._types
            )
        return detector

    def read_bare_json(self, on: bool) -> None:
        """Whether bare-JSON triggers (a bare ``{`` at a line's start, the ``RAW`` tier) count.

        Off, such a ``{`` is text like any other character, released at once.
        """
        self._bare = on

    # -- input -----------------------------------------------------------------

    def push(self, text: str) -> None:
        """More assistant text."""
        if self._pending:
            text = self._pending + text
            self._pending = ""
        detector = self._active
        if detector is not None:
            if text:  # the active detector reads on (every chunk of a call's arguments)
                pos = self._drive(detector, text, 0)
                if self._active is not None:
                    self._hold(text, pos, self._line_start)  # it needs more text to decide
                    self._text_start = False
                    return
                self._scan(text, pos, pos if detector.ends_line else -1)
                self._text_start = (
                    self._text_start and len(self._pending) == len(text) and self._active is None
                )
            return
        line_start = self._line_start
        if text and not (line_start and text[0] in self._line_first):
            quiet = self._quiet.search(text)
            if quiet is None:
                self._out.append(TextDelta(text))  # nothing here can begin markup
                self._line_start = self._text_start = False
                return
            at = quiet.start()
            words = self._lead_or_word
            if words is not None:
                found = words.search(text, at)
                if found is None or found.lastindex is None:
                    # Only letters a token found by a later character of it begins with
                    # ("functools["): no trigger here, and only the text's end may be held (no
                    # line starts in it).
                    cut = len(text) if found is None else found.start()
                    self._text(text[:cut])
                    self._pending = text[cut:]
                    if cut:
                        self._line_start = self._text_start = False
                    return
                at = found.start()
            if len(text) <= SHORT and self._short.search(text, at) is None:
                # No trigger begins in it (none at its start: see above): it is text, but for
                # a trigger's beginning at its end (most chunks that hold a line end).
                text_start = self._text_start
                where = _Where.FIRST if text_start else _Where.LINE if line_start else _Where.MID
                self._release_up_to_hold(text, 0, line_start, where)
                if text_start:
                    self._text_start = len(self._pending) == len(text)
                return
        self._scan(text, 0, -1)
        # Still at the text's start only while all of it is held back, none consumed.
        self._text_start = self._text_start and len(self._pending) == len(text) and self._active is None

    def _scan(self, text: str, pos: int, fresh: int) -> None:
        """Search ``text`` from ``pos`` (``fresh``: where a region that ends a line (reasoning)
        ended, so a line starts there; else -1), and read its markup."""
        line_start = self._line_start  # (of the text's first character)
        where = _Where.FIRST if self._text_start else _Where.LINE if line_start else _Where.MID
        end = len(text)
        found = None  # what the search keeps about this text, once it searches it
        while pos < end:
            detector = self._active
            if detector is not None:
                pos = self._drive(detector, text, pos)
                if self._active is not None:
                    self._hold(text, pos, line_start)  # it needs more text to decide
                    return
                if detector.ends_line:
                    fresh = pos
                continue
            if found is None:
                found = self._patterns.search.new_text(text)
            first = self._find(text, pos, _Where.LINE if pos == fresh else where, found, fresh=pos == fresh)
            if first is None:
                if pos == fresh and self._hold_line(text, pos):
                    return
                self._release_up_to_hold(text, pos, line_start, where)
                return
            start, stop, number = first
            trigger, owner = self._patterns.owners[number]
            if trigger.behind:  # found by a later character: the token begins before it
                if start - len(trigger.behind) < pos:  # in what a region consumed: not a token
                    self._text(text[pos : start + 1])
                    pos = start + 1
                    continue
                start -= len(trigger.behind)
            if trigger.framing:  # a token that frames the text around it: dropped
                self._text(text[pos:start])
                pos = stop
                continue
            if trigger.tier != _Tier.MARKUP and self._patterns.holds[where].at(text, start):
                # "[TOOL_" at the very end may yet be "[TOOL_CALLS]": explicit markup wins, so wait
                # (whether or not the bare-JSON trigger itself could count).
                self._text(text[pos:start])
                self._hold(text, start, line_start)
                if start == fresh:
                    self._line_start = True
                return
            if not self._eligible(trigger):
                self._text(text[pos : start + 1])
                pos = start + 1
                continue
            self._text(text[pos:start])
            self._begin(self._detector(owner), text[start:stop])
            pos = stop
        self._line_start = (text[end - 1] == "\n" or end == fresh) if end else line_start

    def _find(
        self, text: str, pos: int, where: Where, found: list[Found | None], *, fresh: bool = False
    ) -> Found | None:
        """The first trigger at or after ``pos``: (start, stop, trigger number); ``fresh``: a
        line starts at ``pos`` (``where`` says so)."""
        here = (_Where.LINE if text[pos - 1] == "\n" else _Where.MID) if pos and not fresh else where
        if here:  # a line (or the text) starts right here
            told = self._patterns.starts[here].match(text, pos)
            if told is not None:
                return pos, told[0], told[1]
        return self._patterns.search.first(text, pos, found)

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
                self._text(self._given_back() + rest)
            self._candidate = None
        elif rest:
            # A held trigger that the end of the text completes (an opening
            # fence line with nothing after it) is markup; anything else is text.
            where = _Where.FIRST if text_start else _Where.LINE if self._line_start else _Where.MID
            told = self._patterns.starts[where].match(rest + "\n", 0)
            if told is not None and told[0] == len(rest) + 1:
                trigger, owner = self._patterns.owners[told[1]]
                if self._eligible(trigger):
                    detector = self._detector(owner)
                    # The markup is what the text held; the detector is told the trigger it
                    # declared (which opener, with its line end: gigachat's, a thought channel's).
                    self._begin(detector, rest, rest + "\n")
                    self._active = None
                    if detector.committed:
                        self._finish(detector, "")
                    else:  # a candidate (a ```json line) with nothing after it: prose
                        detector.abandon()
                        detector.markup.discard()
                        self._text(self._given_back())
                    self._candidate = None
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

    def _hold_line(self, text: str, pos: int) -> bool:
        """A line starts at ``pos`` (after reasoning): hold the rest if it may still grow into a
        trigger there (the start of a code fence's opening line)."""
        rest = text[pos:]
        if len(rest) > HOLD_WINDOW or not self._patterns.holds[_Where.LINE].at(rest, 0):
            return False
        self._pending = rest
        self._line_start = True
        return True

    def _release_up_to_hold(self, text: str, pos: int, line_start: bool, where: Where) -> None:
        end = len(text)
        holds = self._patterns.holds[where]
        if holds.pattern is not None:  # a few: one search (this runs for most chunks)
            held = holds.pattern.search(text, max(pos, end - HOLD_WINDOW))
            cut = held.start() if held is not None else end
        else:
            cut = holds.first(text, max(pos, end - HOLD_WINDOW))
            if cut < 0:
                cut = end
        self._text(text[pos:cut])
        if cut < end:
            self._hold(text, cut, line_start)
        else:
            self._line_start = text[end - 1] == "\n" if end else line_start

    def _eligible(self, trigger: Trigger) -> bool:
        if trigger.tier == _Tier.RAW and not self._bare:
            return False
        if not self._fallback:
            return True
        sources = self._calls.sources
        if trigger.tier == _Tier.MARKUP:
            return "native" not in sources
        return not sources

    def _begin(self, detector: Detector, trigger: str, matched: str | None = None) -> None:
        """``trigger`` starts ``detector``'s region (``matched``: what its trigger matched, when the
        text's end stood for the line end it ends with)."""
        markup = self._markup
        if markup is None:  # the first markup of the text: its record, for every detector
            markup = self._markup = Markup(self._calls, detector.name)
        else:
            markup.retag(detector.name)
        detector.markup = markup
        markup.start(trigger)
        detector.begin(trigger if matched is None else matched)
        self._active = detector
        self._candidate = None
        self._candidate_size = 0
        if not detector.committed:
            self._keep(trigger)

    def _keep(self, text: str) -> None:
        """Keep an uncommitted candidate's text, to give it back if it turns out to be prose."""
        candidate = self._candidate
        if candidate is None:
            self._candidate = [text]
        else:
            candidate.append(text)
        self._candidate_size += len(text)

    def _given_back(self) -> str:
        """The candidate's text, prose after all (no longer kept)."""
        candidate = self._candidate
        self._candidate = None
        return "".join(candidate) if candidate is not None else ""

    def _drive(self, detector: Detector, text: str, pos: int) -> int:
        room = -1
        full = text
        if not detector.committed:
            # A candidate may hold at most max_arguments_bytes characters: it sees no more
            # than that, so that where it stops does not depend on the chunking.
            room = self._calls.limits.max_arguments_bytes - self._candidate_size
            if len(text) - pos > room:
                text = text[: pos + room]
        markup = detector.markup
        markup.attach(text, pos)
        stop = detector.feed(text, pos)
        markup.detach(stop)
        status = detector.status
        if status is _Status.ACTIVE:
            if detector.committed:
                self._candidate = None
                if text is not full:
                    # It committed: the rest is its own.  Where it stopped short of the cut, it
                    # waits for what the cut withheld (the start of an end token), so it gets it.
                    return self._drive(detector, full, stop)
            else:
                self._keep(text[pos:stop])
                if stop - pos == room:
                    # Too long to be held as a maybe: it is prose.
                    detector.abandon()
                    markup.discard()
                    self._active = None
                    self._text(self._given_back())
            return stop
        self._active = None
        if status is _Status.REJECTED:
            markup.discard()
            self._text(self._given_back() + text[pos:stop])
        else:
            assert status is _Status.DONE
            markup.end()
        self._candidate = None
        return stop

    def _finish(self, detector: Detector, rest: str) -> None:
        """The text ended inside a committed detector's markup."""
        markup = detector.markup
        markup.attach(rest, 0)
        prose = detector.finish(rest)  # what of rest is prose after all: its end
        markup.detach(len(rest) - len(prose))
        markup.end()
        self._text(prose)


@functools.lru_cache(maxsize=64)
def _interned(names: tuple[str, ...]) -> tuple[str, ...]:
    """One tuple for the channels of the same detectors (the first such, as the cache keeps it)."""
    return names


@functools.lru_cache(maxsize=64)
def _interned_plans(plans: tuple[Plan, ...]) -> tuple[Plan, ...]:
    """The same for what they build."""
    return plans


_Status = fast(Status)
_Where = fast(Where)
_Tier = fast(Tier)
