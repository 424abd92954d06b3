"""The patterns the text channel searches with, built once per set of detectors.

Every enabled detector's triggers (:class:`~streamcalls.detectors._base.Trigger`)
become a few compiled regexes (:class:`Patterns`, cached per set of detector
classes, since building them is most of a parser's set-up):

- the *searches*: one pattern per first character that starts a trigger
  (``\n`` for the line triggers, then ``<``, ``[``, ...), each searched for at
  C speed -- a pattern whose matches all begin with one literal character is
  about 10x faster to search for than one whose branches begin with several;
- the *starts*: the triggers that may begin exactly at a place, by where the
  text begins (mid-line, at a line start, at the text's very start);
- the *holds*: what a chunk may end with while a trigger could still follow;
- *quiet* and *line_first*, for the channel's fast path.

Branches that begin with the same characters share them
(:func:`alternation`), so that at each place tried the regex engine checks
one character per distinct first character, not one per trigger.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import NamedTuple

from ._base import Detector, Hold, Trigger

__all__ = ("FIRST", "HOLD_WINDOW", "LINE", "MID", "Patterns", "alternation", "patterns")

_LINE_START = r"(?:\A|(?<=\n))"
_MID_LINE = r"(?<=\n)"
_TEXT_START = r"\A"

# Where the text being searched begins: its first character continues a line,
# starts one, or is the very first character of the text.
MID = 0
LINE = 1
FIRST = 2
HOLD_WINDOW = 96  # no held prefix is longer than this
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


def alternation(branches: Sequence[tuple[str, str]], depth: int = 3) -> str:
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
            parts.append(re.escape(shared) + alternation(members, depth - 1))
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
    patterns = [("\n", re.compile("\\n" + alternation(line)))] if line else []
    patterns += [(lead, re.compile(re.escape(lead) + alternation(rests))) for lead, rests in by_lead.items()]
    return tuple(patterns)


def _start_pattern(triggers: Sequence[Trigger], where: int) -> re.Pattern[str]:
    """The triggers that may begin exactly where a match is tried (``n<number>`` groups)."""
    alternatives = [
        (f"n{number}", trigger.pattern)
        for number, trigger in enumerate(triggers)
        if where == FIRST
        or (where == LINE and not trigger.text_start)
        or not (trigger.line_start or trigger.text_start)
    ]
    return re.compile(alternation(alternatives)) if alternatives else _NEVER


def _hold_pattern(holds: Sequence[Hold], where: int) -> re.Pattern[str]:
    line_start = _MID_LINE if where == MID else _LINE_START
    alternatives = [
        (_TEXT_START if hold.text_start else line_start if hold.line_start else "") + f"(?:{hold.pattern})"
        for hold in holds
        if where == FIRST or not hold.text_start
    ]
    return re.compile("(?:" + "|".join(alternatives) + ")\\Z") if alternatives else _NEVER


class Patterns(NamedTuple):
    """What the channel searches with, for one set of detector classes."""

    owners: tuple[tuple[Trigger, int], ...]  # each trigger, with its detector's position
    searches: tuple[tuple[str, re.Pattern[str]], ...]  # (first character, pattern)
    # Each indexed by where the text begins (MID, LINE, FIRST): the triggers that may begin
    # right there, and what the text may end with while one could still follow.
    starts: tuple[re.Pattern[str], ...]
    holds: tuple[re.Pattern[str], ...]
    quiet: re.Pattern[str]
    line_first: frozenset[str]


@functools.lru_cache(maxsize=64)
def patterns(kinds: tuple[type[Detector], ...]) -> Patterns:
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
    return Patterns(
        owners,
        _search_patterns(triggers),
        tuple(_start_pattern(triggers, where) for where in (MID, LINE, FIRST)),
        tuple(_hold_pattern(holds, where) for where in (MID, LINE, FIRST)),
        re.compile("[" + re.escape("".join(sorted({"\n", *anywhere}))) + "]"),
        frozenset({t.lead for t in triggers if t.line_start or t.text_start})
        | {c for h in holds if h.line_start or h.text_start for c in h.first},
    )
