"""What the text channel searches with, built once per set of detectors, and the search itself.

Every enabled detector's triggers (:class:`.detector.Trigger`)
become a few compiled regexes (:class:`Patterns`, cached per set of detector
classes, since building them is most of a parser's set-up):

- the *search* (:class:`TriggerSearch`): the first trigger at or after a place,
  at C speed, in linear time;
- the *starts*: the triggers that may begin exactly at a place, by where the
  text begins (mid-line, at a line start, at the text's very start: a
  ``text_start`` trigger, such as the recipient a completion's first Harmony
  header begins with, is found only there);
- the *holds*: what a chunk may end with while a trigger could still follow;
- *quiet* and *line_first*, for the channel's fast path.

A detector's framing tokens (:attr:`.detector.Detector.framing`) are literal triggers like the
others, marked ``framing``: the channel drops them where it finds them.  A token two formats
declare alike (``[TOOL_CALLS]``) is searched for once.  A token that begins with a word
(``functools[``) is found by a later, rarer character of it that another scan looks for anyway
(``Trigger.literal(token, lead=...)``: its pattern looks behind for the word), since a scan for a
letter would cost a pass over all the text; only its holds look at letters, and only at a text's
end (:attr:`Patterns.lead_or_word`).

Where triggers of several tiers match at one place, the lower tier wins
(markup, then a shaped bare call list, then bare JSON: ``[TOOL_CALLS]`` beats
a bare-JSON ``[``): the triggers are numbered in tier order, and the search
and the starts both pick the lowest number.

How the search is fast.  A short text (a token or a few) is searched by one
pattern holding every trigger: one call.  A long one (a 64 KiB read) is
searched by one scan per character an anywhere-trigger begins with (``<`` and
``[``, with every format on) and one regex scan for the line triggers (``\\n``
then any of them, the default detectors' whole search), because of what
CPython offers (measured on the bench's prose, 1 MB held as 4-byte characters):

- ``str.find`` of one character runs at memchr speed (~0.05 ms per MB); the
  regex engine's scan for a pattern's first character costs ~0.5 ms per MB,
  and for a set of first characters (one alternation of every trigger) ~1.5 ms
  -- more than all the per-character scans together, which is why they are
  not one union;
- so a character's scan jumps with ``str.find`` from one occurrence to the
  next, and what costs is each occurrence's trip through Python (~0.1 us):
  the regex of that character's triggers (folded into a trie) is tried only
  where the character after the occurrence is one a trigger goes on with, or
  the one before it ends what a token found by a later character begins with
  (``functools[``), or a line (a line trigger whose first character the scan
  looks for anyway joins it: ``<think>``, a bare ``[``).  MiniMax M3's opener,
  ``]<]minimax[>[``, is found by its ``<``, so no format adds a scan for ``]``;
- a character whose one trigger is a plain literal (``[TOOL_CALLS]`` with
  only ``mistral`` on) is found by ``str.find`` of the literal itself;
- once :data:`.occurrences.MISSES` occurrences that began no trigger came less than
  :data:`.occurrences.GAP` characters apart on average (a text dense with ``<``), the
  engine scans the rest, faster there;
- a group before an alternative's first character keeps the engine from
  skipping that alternative at a glance, so the scans hold no groups: which
  trigger a scan found is told afterwards by matching the triggers' own
  patterns there, in order, as the alternation chooses.

Where the native path is built, the occurrence test is made in C
(:mod:`.occurrences`): only the occurrences a trigger may begin at come back to
Python, to be matched.

So a new format whose triggers begin with ``<`` or ``[`` adds no pass over the
text and no test per occurrence.  Each scan's next match is kept
(:meth:`TriggerSearch.new_text`), so no part of a text is scanned twice by the
same scan.  The holds (:class:`Holds`) are tried the same way: only where a
text's last characters hold one a hold begins with.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from enum import IntEnum
from typing import Any, NamedTuple

from .detector import Detector, Hold, Trigger
from .occurrences import Scan, occurrence

__all__ = ("HOLD_WINDOW", "SHORT", "Found", "Holds", "Patterns", "TriggerSearch", "Where", "patterns")

_LINE_START = r"(?:\A|(?<=\n))"
_MID_LINE = r"(?<=\n)"
_TEXT_START = r"\A"


class Where(IntEnum):
    """Where the text being searched begins: its first character continues a line, starts one,
    or is the very first character of the text."""

    MID = 0
    LINE = 1
    FIRST = 2


HOLD_WINDOW = 96  # no held prefix is longer than this

SHORT = 1024  # up to this many characters, one search holding every trigger

Found = tuple[int, int, int]  # a trigger found: (start, stop, trigger number)
NONE: Found = (-1, -1, -1)  # a scan with no match left in the text
_NEVER = re.compile(r"(?!)")
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_FEW = 4  # alternatives the engine tries one by one as fast as it would fold them


# -- the search --------------------------------------------------------------------------------


def _distinct(triggers: Sequence[Trigger]) -> list[tuple[int, Trigger]]:
    """The numbered triggers, each match once: a token two formats declare alike (``[TOOL_CALLS]``)
    is searched for once, and the first of them wins it, as it would anyway."""
    seen: set[tuple[str, bool, bool]] = set()
    out = []
    for number, trigger in enumerate(triggers):
        key = (trigger.pattern, trigger.line_start, trigger.text_start)
        if key not in seen:
            seen.add(key)
            out.append((number, trigger))
    return out


def _searched(
    triggers: Sequence[Trigger],
) -> tuple[list[tuple[int, Trigger]], dict[str, list[tuple[int, Trigger]]]]:
    """The numbered triggers a search finds: the line triggers, and the others by first character.
    A text-start trigger is no search's: only the starts find it."""
    distinct = _distinct(triggers)
    line = [(number, t) for number, t in distinct if t.line_start and not t.text_start]
    by_lead: dict[str, list[tuple[int, Trigger]]] = {}
    for number, trigger in distinct:
        if not (trigger.line_start or trigger.text_start):
            by_lead.setdefault(trigger.lead, []).append((number, trigger))
    return line, by_lead


def _literal(trigger: Trigger) -> str:
    """The trigger as a plain string, or "" if its pattern is more than one."""
    rest = _ESCAPE.sub(r"\1", trigger.rest)
    return trigger.lead + rest if re.escape(rest) == trigger.rest else ""


def _unescaped(source: str) -> str | None:
    """The plain string a regex source stands for, or None if it stands for more than one."""
    plain = _ESCAPE.sub(r"\1", source)
    return plain if re.escape(plain) == source else None


def _alternatives(sources: Sequence[str], firsts: str = "") -> str:
    """A regex source matching any of ``sources``, its literal ones folded into a trie.

    The regex engine tries an alternation's branches one after another, so a search of every
    trigger would cost more with every trigger added; folded by their common prefixes, a
    character that starts none of them is turned away by one branch per distinct character,
    however many formats share a lead (``<`` starts most of them).  Which trigger matched is
    told afterwards, by the triggers' own patterns, in order.  ``firsts``: every character a match
    can begin with, checked at once before any branch (a line end is most often followed by none).
    """
    literals = [(source, plain) for source in sources if (plain := _unescaped(source)) is not None]
    if len(literals) <= _FEW:  # a few: the engine tries them as fast as a trie
        return "(?:" + "|".join(sources) + ")"
    tree: dict[str, Any] = {}
    for _, plain in literals:
        node = tree
        for char in plain:
            node = node.setdefault(char, {})
        node[""] = {}
    others = [f"(?:{source})" for source in sources if _unescaped(source) is None]
    distinct = "".join(sorted(set(firsts)))
    ahead = f"(?=[{re.escape(distinct)}])" if len(distinct) > _FEW else ""
    return ahead + "(?:" + "|".join([_trie(tree), *others]) + ")"


def _trie(node: dict[str, Any]) -> str:
    """The regex source of a trie of literals (``""`` marks where one ends)."""
    ends = "" in node
    children = sorted((char, child) for char, child in node.items() if char)
    if not children:
        return ""
    parts = [re.escape(char) + _trie(child) for char, child in children]
    body = parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"
    if ends:
        return f"(?:{body})?"
    return body


class _Identified:
    """Triggers tried at one place: a pattern of them all, then their own patterns, in order."""

    __slots__ = ("_any", "_own")

    def __init__(self, members: Sequence[tuple[int, Trigger]]) -> None:
        self._any = re.compile(_alternatives([t.pattern for _, t in members])) if members else _NEVER
        self._own = tuple((number, re.compile(t.pattern)) for number, t in members)

    def match(self, text: str, pos: int) -> tuple[int, int] | None:
        """(where the first of the triggers, in order, that begins at ``pos`` ends, its number), or None."""
        if self._any.match(text, pos) is None:
            return None
        for number, pattern in self._own:
            found = pattern.match(text, pos)
            if found is not None:
                return found.end(), number
        raise AssertionError("the triggers matched, none of them alone")  # pragma: no cover


def _scans(triggers: Sequence[Trigger]) -> tuple[Scan, ...]:
    line, by_lead = _searched(triggers)
    # A line trigger whose first character another scan looks for anyway, occurrence by occurrence
    # (``<think>`` beside the ``<`` markers, a bare ``[`` beside ``[TOOL_CALLS]``), joins that scan,
    # behind a line end, instead of costing the line scan; not one that str.find looks for alone
    # (``[TOOL_CALLS]``), which it would slow.
    joined = {lead: list(members) for lead, members in by_lead.items()}
    engine = {lead for lead, members in by_lead.items() if len(members) > 1 or not _literal(members[0][1])}
    for number, trigger in line:
        if trigger.lead in engine:
            joined[trigger.lead].append((number, trigger))
    line = [(number, t) for number, t in line if t.lead not in engine]
    scans = []
    if line:
        source = "\\n" + _alternatives([t.pattern for _, t in line], "".join(t.lead for _, t in line))
        own = tuple((number, re.compile(t.pattern)) for number, t in line)
        scans.append(Scan(re.compile(source), True, own, "", "", _NEVER, None, frozenset(), None, ""))
    for lead, members in joined.items():
        members.sort(key=lambda member: member[0])
        after_line = f"(?<=\\n{re.escape(lead)})"
        at_line = [t.rest for _, t in members if t.line_start]
        rests = _alternatives(
            [t.rest for _, t in members if not t.line_start]
            + ([after_line + _alternatives(at_line)] if at_line else [])
        )
        own = tuple(
            (number, re.compile("(?<=\\n)" + t.pattern if t.line_start else t.pattern))
            for number, t in members
        )
        literal = _literal(members[0][1]) if len(members) == 1 and not members[0][1].line_start else ""
        nexts, prevs = _neighbours([t for _, t in members])
        scans.append(
            Scan(
                re.compile(re.escape(lead) + rests),
                False,
                own,
                literal,
                lead,
                re.compile(rests),
                nexts,
                prevs,
                None if nexts is None else "".join(sorted(nexts)),
                "".join(sorted(prevs)),
            )
        )
    return tuple(scans)


def _neighbours(members: Sequence[Trigger]) -> tuple[frozenset[str] | None, frozenset[str]]:
    """What an occurrence of the members' first character stands between where one of them may
    begin: one of the characters that may follow it (None: any), or one of those before it."""
    nexts: set[str] | None = set()
    prevs = set()
    for trigger in members:
        rest = _after_lead(trigger)
        if rest:
            if nexts is not None:
                nexts.add(rest[0])
        elif trigger.line_start:
            prevs.add("\n")  # a line trigger that joined the scan: its line end
        elif trigger.behind:
            prevs.add(trigger.behind[-1])  # a token found by its last character ("functools[")
        else:
            nexts = None
    return (None if nexts is None else frozenset(nexts)), frozenset(prevs)


def _after_lead(trigger: Trigger) -> str:
    """The plain string a trigger's match goes on with after its lead, or "" if that is not one."""
    rest = trigger.rest
    if trigger.behind:  # its pattern looks behind for what it begins with
        behind = f"(?<={re.escape(trigger.behind + trigger.lead)})"
        if not rest.startswith(behind):
            return ""
        rest = rest[len(behind) :]
    return _unescaped(rest) or ""


def _combined(triggers: Sequence[Trigger]) -> re.Pattern[str]:
    """One pattern for every trigger, for a short text -- the same choice as the scans make: after a
    line end, every trigger (so that ``\\n[TOOL_CALLS]`` is found there, and told the marker's, not a
    line trigger's, by :class:`_Identified`); anywhere, those of each first character."""
    _, by_lead = _searched(triggers)
    line = [t for _, t in _distinct(triggers) if not t.text_start]
    branches = (
        ["\\n" + _alternatives([t.pattern for t in line], "".join(t.lead for t in line))] if line else []
    )
    branches += [
        re.escape(lead) + _alternatives([t.rest for _, t in members]) for lead, members in by_lead.items()
    ]
    return re.compile("|".join(branches)) if branches else _NEVER


class TriggerSearch:
    """The first trigger at or after a position (see the module docstring); built once per set of triggers."""

    __slots__ = ("_after_line", "_by_lead", "_scans", "short")

    def __init__(self, triggers: Sequence[Trigger]) -> None:
        self.short = _combined(triggers)  # the one pattern a text of SHORT characters or fewer gets
        self._scans = _scans(triggers)
        _, by_lead = _searched(triggers)
        self._after_line = _Identified([(n, t) for n, t in _distinct(triggers) if not t.text_start])
        self._by_lead = {lead: _Identified(members) for lead, members in by_lead.items()}

    def new_text(self, text: str) -> list[Found | None]:
        """What :meth:`first` keeps about one text: each scan's next match (None: not scanned yet)."""
        return [None] * len(self._scans) if len(text) > SHORT else []

    def first(self, text: str, pos: int, found: list[Found | None]) -> Found | None:
        """The first trigger at or after ``pos``; ``found`` is :meth:`new_text`'s for ``text``."""
        if len(text) - pos <= SHORT:
            match = self.short.search(text, pos)
            if match is None:
                return None
            start = match.start()
            if text[start] == "\n":  # a trigger after its line end (no trigger begins with one)
                start += 1
                told = self._after_line.match(text, start)
            else:
                told = self._by_lead[text[start]].match(text, start)
            assert told is not None
            return start, told[0], told[1]
        best: Found | None = None
        for number, scan in enumerate(self._scans):
            cached = found[number]
            # A match still ahead stays valid, and so does having found none.
            if cached is None or (cached is not NONE and cached[0] < pos):
                cached = found[number] = _next(scan, text, pos)
            if cached is NONE:
                continue
            # Two at the same place: the trigger numbered first (the lower tier).
            if best is None or cached[0] < best[0] or (cached[0] == best[0] and cached[2] < best[2]):
                best = cached
        return best


def _next(scan: Scan, text: str, pos: int) -> Found:
    """The next trigger ``scan`` finds at or after ``pos``, or NONE."""
    if scan.literal:
        at = text.find(scan.literal, pos)
        return (at, at + len(scan.literal), scan.triggers[0][0]) if at >= 0 else NONE
    if scan.lead:
        at = occurrence(scan, text, pos)
        if at < -1:  # a text dense with this character: the engine scans the rest faster
            pos = -2 - at
        else:
            return _which(scan, text, at) if at >= 0 else NONE
    match = scan.pattern.search(text, pos)
    if match is None:
        return NONE
    return _which(scan, text, match.start() + 1 if scan.line else match.start())


def _which(scan: Scan, text: str, start: int) -> Found:
    for number, pattern in scan.triggers:
        found = pattern.match(text, start)
        if found is not None:
            return start, found.end(), number
    raise AssertionError("a scan matched no trigger")  # pragma: no cover


# -- the rest of the patterns ------------------------------------------------------------------


def _starts(triggers: Sequence[Trigger], where: Where) -> _Identified:
    """The triggers that may begin exactly where a match is tried."""
    return _Identified(
        [
            (number, trigger)
            for number, trigger in enumerate(triggers)
            if where == Where.FIRST
            or (where == Where.LINE and not trigger.text_start)
            or not (trigger.line_start or trigger.text_start)
        ]
    )


class Holds:
    """What a text may end with while a trigger could still follow (for one :class:`Where`).

    A few holds (the default detectors') are one pattern, searched for in the text's last
    :data:`HOLD_WINDOW` characters.  Many (every format on) would be tried at each of those
    places, which costs more than the rest of a 64 KiB read's search: a hold begins with one of
    a few characters (:attr:`.detector.Hold.first`), so the window is searched for those, and
    only there are the holds of that character tried.
    """

    __slots__ = ("_by_first", "_firsts", "pattern")

    def __init__(self, holds: Sequence[Hold], where: Where) -> None:
        line_start = _MID_LINE if where == Where.MID else _LINE_START
        sources: list[str] = []
        by_first: dict[str, list[str]] = {}
        for hold in holds:
            if hold.text_start and where != Where.FIRST:
                continue
            anchor = _TEXT_START if hold.text_start else line_start if hold.line_start else ""
            source = f"{anchor}(?:{hold.pattern})"
            sources.append(source)
            for char in dict.fromkeys(hold.first):
                by_first.setdefault(char, []).append(source)
        # Every hold, when they are few (else None): the caller searches with it at once.
        self.pattern = _ended(sources) if len(sources) <= _FEW else None
        self._by_first = {char: _ended(group) for char, group in by_first.items()}
        self._firsts = re.compile("[" + re.escape("".join(sorted(by_first))) + "]") if by_first else _NEVER

    def at(self, text: str, pos: int) -> bool:
        """Is ``text[pos:]`` a hold (a trigger's beginning that the text's end cut short)?"""
        pattern = self._by_first.get(text[pos : pos + 1])
        return pattern is not None and pattern.match(text, pos) is not None

    def first(self, text: str, pos: int) -> int:
        """Where the first hold at or after ``pos`` begins (it runs to the text's end), or -1."""
        if self.pattern is not None:
            held = self.pattern.search(text, pos)
            return held.start() if held is not None else -1
        search = self._firsts.search
        found = search(text, pos)
        while found is not None:
            at = found.start()
            if self._by_first[text[at]].match(text, at) is not None:
                return at
            found = search(text, at + 1)
        return -1


def _ended(sources: Sequence[str]) -> re.Pattern[str]:
    """Any of ``sources``, running to the text's end."""
    return re.compile("(?:" + "|".join(dict.fromkeys(sources)) + ")\\Z") if sources else _NEVER


class Patterns(NamedTuple):
    """What the channel searches with, for one set of detector classes."""

    owners: tuple[tuple[Trigger, int], ...]  # each trigger, with its detector's position
    search: TriggerSearch
    # Each indexed by where the text begins (Where): the triggers that may begin
    # right there, and what the text may end with while one could still follow.
    starts: tuple[_Identified, ...]
    holds: tuple[Holds, ...]
    quiet: re.Pattern[str]  # any character a trigger, a held token or a line can begin with
    # Where some hold begins with a word's character ("functools[", found by a later character of
    # it): the first character a trigger (anywhere), a line or another hold can begin with (its
    # group 1), or else the start of such a token held at the text's end.  None: no such hold.
    lead_or_word: re.Pattern[str] | None
    line_first: frozenset[str]
    short: re.Pattern[str]  # the search of a short text (TriggerSearch.short)


def _triggers(kind: type[Detector]) -> tuple[Trigger, ...]:
    """A detector's triggers, and its framing tokens as literal triggers the channel drops."""
    return kind.triggers + tuple(Trigger.literal(token, framing=True) for token in kind.framing)


@functools.lru_cache(maxsize=64)
def patterns(kinds: tuple[type[Detector], ...]) -> Patterns:
    """Built once per set of detectors, not once per parser (it is most of a parser's set-up)."""
    # The lower tier first: where a marker and a bare-JSON trigger match at
    # the same place ("[TOOL_CALLS]" and "["), the marker wins.
    owners = tuple(
        sorted(
            ((trigger, number) for number, kind in enumerate(kinds) for trigger in _triggers(kind)),
            key=lambda pair: pair[0].tier,
        )
    )
    triggers = [trigger for trigger, _ in owners]
    holds = [hold for kind in kinds for hold in (*kind.holds, *map(Hold.literal, kind.framing))]
    # The fast path: text that continues a line and holds no line end and no
    # character an anywhere-trigger can begin with cannot start any markup.
    leads = {t.lead for t in triggers if not (t.line_start or t.text_start)}
    anywhere = leads | {c for h in holds if not (h.line_start or h.text_start) for c in h.first}
    # A hold that begins with a word's character (``functools[``) is looked for only at the text's
    # end; any other character a trigger or a hold begins with sends the text to the search (a
    # token found by a later character, ``]<]minimax[>[``, may begin before the character found).
    marks = {"\n", *leads} | {c for c in anywhere if not (c.isalnum() or c == "_")}
    words = [h.pattern for h in holds if not (h.line_start or h.text_start or set(h.first) & marks)]
    lead_or_word = "([" + re.escape("".join(sorted(marks))) + "])|(?:" + "|".join(words) + ")\\Z"
    search = TriggerSearch(triggers)
    return Patterns(
        owners,
        search,
        tuple(_starts(triggers, where) for where in (Where.MID, Where.LINE, Where.FIRST)),
        tuple(Holds(holds, where) for where in (Where.MID, Where.LINE, Where.FIRST)),
        re.compile("[" + re.escape("".join(sorted({"\n", *anywhere}))) + "]"),
        re.compile(lead_or_word) if words else None,
        frozenset({t.lead for t in triggers if t.line_start or t.text_start})
        | {c for h in holds if h.line_start or h.text_start for c in h.first},
        search.short,
    )
