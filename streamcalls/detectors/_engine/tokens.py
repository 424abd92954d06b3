"""Reading markup tokens out of text that arrives in pieces: what a step looks at before it moves.

Every helper here answers "is this token here?" with three outcomes, because a token may be cut
by a chunk's end: it is here; the text ends with a prefix of it (wait for more); it is not.
"""

from __future__ import annotations

import functools
import re
from enum import IntEnum

from .detector import prefixes

__all__ = ("Seen", "Tokens", "literal_at", "literal_prefix_at", "skip_blanks")


class Seen(IntEnum):
    """What :func:`literal_prefix_at` saw when none of its literals is there whole."""

    NONE = -1  # none of them
    WAIT = -2  # the text ends with a prefix of one of them


_BLANK_RUN = re.compile(r"[ \t\r\n]*")


def skip_blanks(text: str, pos: int) -> int:
    """Where the blanks (spaces, tabs, line ends) from ``pos`` end."""
    match = _BLANK_RUN.match(text, pos)
    assert match is not None
    return match.end()


def literal_at(text: str, pos: int, literal: str) -> int:
    """1 if ``literal`` is at ``pos``; 0 if the text ends with a prefix of it there; -1 if not."""
    if text.startswith(literal, pos):
        return 1
    rest = text[pos:]
    return 0 if len(rest) < len(literal) and literal.startswith(rest) else -1


def literal_prefix_at(text: str, pos: int, literals: tuple[str, ...]) -> int:
    """Which of ``literals`` is at ``pos``: its index, else Seen.WAIT or Seen.NONE."""
    rest = len(text) - pos
    waiting = False
    for number, literal in enumerate(literals):
        if text.startswith(literal, pos):
            return number
        if rest < len(literal) and literal.startswith(text[pos:]):
            waiting = True
    return Seen.WAIT if waiting else Seen.NONE


class Tokens:
    """A set of literal tokens, searched for in text: the first one at or after a place, or,
    when none is there, where a prefix of one may begin at the text's end (to be held)."""

    __slots__ = ("hold", "literals", "pattern", "window")

    def __init__(self, literals: tuple[str, ...]) -> None:
        self.literals = literals
        self.pattern, self.hold = _patterns(literals)  # any of them; a prefix of one at the end
        self.window = max(map(len, literals))  # how far back from the end a prefix may begin

    def held(self, text: str, pos: int) -> int:
        """Where text that may still become one of the tokens begins at the text's end (or its length)."""
        found = self.hold.search(text, max(pos, len(text) - self.window))
        return found.start() if found is not None else len(text)

    def find(self, text: str, pos: int) -> tuple[int, re.Match[str] | None]:
        """(where the text surely holds none of the tokens up to, the token found there or None)."""
        found = self.pattern.search(text, pos)
        if found is not None:
            return found.start(), found
        held = self.hold.search(text, max(pos, len(text) - self.window))
        return (held.start() if held is not None else len(text)), None


@functools.cache
def _patterns(literals: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Patterns for any of ``literals``, and for a text that ends with a prefix of one (once per set)."""
    return (
        re.compile("|".join(re.escape(literal) for literal in literals)),
        re.compile("(?:" + "|".join(prefixes(literal) for literal in literals) + r")\Z"),
    )
