"""Finding the first of the enabled detectors' triggers in the text, at C speed, in linear time.

A short text (a token or a few) is searched by one pattern holding every trigger: one call.
A long one (a 64 KiB read) is searched by several scans, one per character a trigger begins
with, because of how the regex engine searches:

- a pattern that begins with one literal is scanned for at C speed (about 100x faster than
  one that begins with a lookbehind), but an alternation of several first characters is
  tried at every position, about 4x slower on prose than one scan per character;
- a group before an alternative's first character (``(?P<a1>tool_call>)``) keeps the engine
  from skipping that alternative at a glance: it tries every one at every candidate, about
  2x slower -- so the scans hold no groups, and which trigger a scan found is told
  afterwards by matching the triggers' own patterns there, first to last, as the
  alternation chooses;
- ``str.find`` finds one character about 6x faster than the engine's own loop, and one
  literal (``[TOOL_CALLS]``) somewhat faster too: a scan of one literal trigger uses it, and
  a scan of several triggers that share a first character jumps from one occurrence of it to
  the next, until :data:`MISSES` of them were no trigger -- prose full of ``<`` then goes to
  the engine, which is faster there.

Line triggers are found through the line end before them (``\\n`` then any of them).  Where
two scans find triggers at the same place, the trigger listed first wins (markup before
bare JSON: ``[TOOL_CALLS]`` beats a bare-JSON ``[``), as in the one pattern.  Each scan's
next match is kept (``found``), so no part of a text is scanned twice by the same scan.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from ._base import Trigger

__all__ = ("SHORT", "Found", "TriggerSearch")

SHORT = 1024  # up to this many characters, one search holding every trigger
MISSES = 64  # occurrences of a first character that are no trigger, before the engine takes over

Found = tuple[int, int, int]  # a trigger: (start, stop, trigger number)
NONE: Found = (-1, -1, -1)  # a scan with no match left in the text
_NEVER = re.compile(r"(?!)")
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


class _Scan(NamedTuple):
    """One scan, and how to tell which trigger it found."""

    pattern: re.Pattern[str]  # the triggers of one first character, without groups
    line: bool  # it matches the line end before its trigger
    triggers: tuple[tuple[int, re.Pattern[str]], ...]  # (trigger number, its own pattern), in order
    literal: str  # its one trigger, if that is a plain string: found by str.find
    lead: str  # the first character its triggers share (not for line triggers)
    rest: re.Pattern[str]  # its triggers after the first character, anchored


def _literal(trigger: Trigger) -> str:
    """The trigger as a plain string, or "" if its pattern is more than one."""
    rest = _ESCAPE.sub(r"\1", trigger.rest)
    return trigger.lead + rest if re.escape(rest) == trigger.rest else ""


def _scans(triggers: Sequence[Trigger]) -> tuple[_Scan, ...]:
    line = [(number, trigger) for number, trigger in enumerate(triggers) if trigger.line_start]
    by_lead: dict[str, list[tuple[int, Trigger]]] = {}
    for number, trigger in enumerate(triggers):
        if not trigger.line_start:
            by_lead.setdefault(trigger.lead, []).append((number, trigger))
    scans = []
    if line:
        source = "\\n(?:" + "|".join(t.pattern for _, t in line) + ")"
        own = tuple((number, re.compile(t.pattern)) for number, t in line)
        scans.append(_Scan(re.compile(source), True, own, "", "", _NEVER))
    for lead, members in by_lead.items():
        rests = "(?:" + "|".join(t.rest for _, t in members) + ")"
        own = tuple((number, re.compile(t.pattern)) for number, t in members)
        literal = _literal(members[0][1]) if len(members) == 1 else ""
        scans.append(_Scan(re.compile(re.escape(lead) + rests), False, own, literal, lead, re.compile(rests)))
    return tuple(scans)


def _combined(triggers: Sequence[Trigger]) -> re.Pattern[str]:
    """One pattern for every trigger, for a short text: ``n<number>`` groups after a line end,
    ``a<number>`` groups anywhere -- the same choice as the scans make."""
    line = [f"(?P<n{number}>{trigger.pattern})" for number, trigger in enumerate(triggers)]
    by_lead: dict[str, list[str]] = {}
    for number, trigger in enumerate(triggers):
        if not trigger.line_start:
            by_lead.setdefault(trigger.lead, []).append(f"(?P<a{number}>{trigger.rest})")
    branches = ["\\n(?:" + "|".join(line) + ")"] if line else []
    branches += [re.escape(lead) + "(?:" + "|".join(rests) + ")" for lead, rests in by_lead.items()]
    return re.compile("|".join(branches)) if branches else _NEVER


class TriggerSearch:
    """The first trigger at or after a position (see the module docstring); built once per set of triggers."""

    __slots__ = ("_combined", "_scans")

    def __init__(self, triggers: Sequence[Trigger]) -> None:
        self._combined = _combined(triggers)
        self._scans = _scans(triggers)

    def new_text(self, text: str) -> list[Found | None]:
        """What :meth:`first` keeps about one text: each scan's next match."""
        return [None] * len(self._scans) if len(text) > SHORT else []

    def first(self, text: str, pos: int, found: list[Found | None]) -> Found | None:
        """The first trigger at or after ``pos``; ``found`` is :meth:`new_text`'s for ``text``."""
        if len(text) - pos <= SHORT:
            match = self._combined.search(text, pos)
            if match is None:
                return None
            group = match.lastgroup
            assert group is not None
            start = match.start() + 1 if group[0] == "n" else match.start()  # "n": after its line end
            return start, match.end(), int(group[1:])
        best: Found | None = None
        for number, scan in enumerate(self._scans):
            cached = found[number]
            if cached is None or (cached is not NONE and cached[0] < pos):
                cached = found[number] = _next(scan, text, pos)
            if cached is NONE:
                continue
            # Two at the same place: the trigger listed first (markup before bare JSON).
            if best is None or cached[0] < best[0] or (cached[0] == best[0] and cached[2] < best[2]):
                best = cached
        return best


def _next(scan: _Scan, text: str, pos: int) -> Found:
    """The next trigger ``scan`` finds at or after ``pos``, or NONE."""
    if scan.literal:
        at = text.find(scan.literal, pos)
        return (at, at + len(scan.literal), scan.triggers[0][0]) if at >= 0 else NONE
    if scan.lead:
        find, lead, rest = text.find, scan.lead, scan.rest
        at = find(lead, pos)
        for _ in range(MISSES):
            if at < 0:
                return NONE
            if rest.match(text, at + 1) is not None:
                return _which(scan, text, at)
            at = find(lead, at + 1)
        if at < 0:
            return NONE
        pos = at  # a text full of this character: the engine scans the rest faster
    match = scan.pattern.search(text, pos)
    if match is None:
        return NONE
    return _which(scan, text, match.start() + 1 if scan.line else match.start())


def _which(scan: _Scan, text: str, start: int) -> Found:
    for number, pattern in scan.triggers:
        found = pattern.match(text, start)
        if found is not None:
            return start, found.end(), number
    raise AssertionError("a scan matched no trigger")  # pragma: no cover
