"""The occurrences of a scan's first character worth matching its triggers at (see :mod:`.triggers`).

A scan of the trigger search (:class:`Scan`) jumps with ``str.find`` from one occurrence of its
first character (``<``, ``[``) to the next; most of them, in prose, begin no trigger, and the
character after one (or before it) tells so without the regex: :func:`occurrence` makes that test
in Python, :func:`native_occurrence` lets the native module (``streamcalls/_native/triggers.c``)
step over every occurrence that fails it, so that only the candidates (:func:`candidate`, the
reference of the native test) take a trip through Python.  Both hand a text dense with candidates
that begin nothing to the regex engine, which scans it faster.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from ..._native import active, speedups

__all__ = ("GAP", "MISSES", "Scan", "candidate", "candidates", "occurrence")

MISSES = 64  # occurrences of a first character that are no trigger, before the engine may take over
GAP = 256  # ... if they came at most this many characters apart, on average


class Scan(NamedTuple):
    """One scan, and how to tell which trigger it found."""

    pattern: re.Pattern[str]  # the triggers of one first character, without groups
    line: bool  # it matches the line end before its trigger
    triggers: tuple[tuple[int, re.Pattern[str]], ...]  # (trigger number, its own pattern), in order
    literal: str  # its one trigger, if that is a plain string: found by str.find
    lead: str  # the first character its triggers share (not for line triggers)
    rest: re.Pattern[str]  # its triggers after the first character, anchored
    # What an occurrence of ``lead`` must stand between to be worth matching ``rest`` against:
    # one of ``nexts`` after it (None: any character), or one of ``prevs`` before it (a token found
    # by a later character of it, or a line trigger that joined this scan, behind its line end).
    nexts: frozenset[str] | None
    prevs: frozenset[str]
    after: str | None  # nexts and prevs as strings, for the native occurrence test
    before: str


Candidate = Callable[[str, int, str, "str | None", str], int]  # candidate(), or the native one

# The native occurrence test (streamcalls/_native/triggers.c), where it is built: None on the pure path.
_NATIVE: Candidate | None = getattr(speedups, "next_candidate", None)


def occurrence(scan: Scan, text: str, pos: int) -> int:
    """Where the first occurrence of ``scan``'s first character at or after ``pos`` that begins one
    of its triggers is, or -1; or ``-2 - where`` the next one is, if the engine should scan on from
    there (a text dense with occurrences that begin none): the native test where it is on."""
    if _NATIVE is not None and active():
        return candidates(scan, text, pos, _NATIVE)
    return _in_python(scan, text, pos)


def _in_python(scan: Scan, text: str, pos: int) -> int:
    """Where the first occurrence of ``scan``'s first character at or after ``pos`` that begins one
    of its triggers is, or -1; or, once :data:`MISSES` occurrences that were none came less than
    :data:`GAP` characters apart on average, ``-2 - where`` the next one is.

    Only where a trigger may begin (one of ``nexts`` after the occurrence, or one of ``prevs``
    before it) is the regex tried.  Most occurrences are prose, and each test costs about as much
    as the ``str.find`` that found the occurrence, so each loop below makes only the tests its
    triggers need.
    """
    find, lead, rest, nexts, prevs = text.find, scan.lead, scan.rest, scan.nexts, scan.prevs
    last = len(text) - 1
    at = begin = find(lead, pos)
    limit = MISSES
    misses = 0
    if nexts is None:
        while at >= 0:
            if misses == limit:
                if at - begin <= misses * GAP:
                    return -2 - at
                limit += MISSES
            if rest.match(text, at + 1) is not None:
                return at
            misses += 1
            at = find(lead, at + 1)
    elif not prevs:
        while at >= 0:
            if misses == limit:
                if at - begin <= misses * GAP:
                    return -2 - at
                limit += MISSES
            if at < last and text[at + 1] in nexts and rest.match(text, at + 1) is not None:
                return at
            misses += 1
            at = find(lead, at + 1)
    else:
        while at >= 0:
            if misses == limit:
                if at - begin <= misses * GAP:
                    return -2 - at
                limit += MISSES
            if ((at < last and text[at + 1] in nexts) or (at and text[at - 1] in prevs)) and rest.match(
                text, at + 1
            ) is not None:
                return at
            misses += 1
            at = find(lead, at + 1)
    return -1


def candidate(text: str, pos: int, lead: str, nexts: str | None, prevs: str) -> int:
    """Where the first occurrence of ``lead`` at or after ``pos`` is that a trigger may begin at:
    followed by one of ``nexts`` (None: by anything, or by nothing), or preceded by one of ``prevs``;
    or -1.  The reference of the native ``next_candidate``."""
    last = len(text) - 1
    at = text.find(lead, pos)
    while at >= 0:
        if nexts is None or (at < last and text[at + 1] in nexts) or (at and text[at - 1] in prevs):
            return at
        at = text.find(lead, at + 1)
    return -1


def candidates(scan: Scan, text: str, pos: int, next_candidate: Candidate) -> int:
    """:func:`occurrence` by ``next_candidate`` (the native one: the occurrences that begin no
    trigger for sure are stepped over in C, and only the candidates take a trip through Python, to
    be matched); the engine takes over after :data:`MISSES` candidates that began nothing."""
    lead, rest, after, before = scan.lead, scan.rest, scan.after, scan.before
    at = begin = next_candidate(text, pos, lead, after, before)
    limit = MISSES
    misses = 0
    while at >= 0:
        if misses == limit:
            if at - begin <= misses * GAP:
                return -2 - at
            limit += MISSES
        if rest.match(text, at + 1) is not None:
            return at
        misses += 1
        at = next_candidate(text, at + 1, lead, after, before)
    return -1
