"""Python's lexical pieces, for the ``pythonic`` format: string escapes, number literals, and
a skipper that follows failed text to its end.

Pure functions and a small state holder, written from Python's own grammar
(the language reference's "Lexical analysis"), never handing model output to
``eval`` or ``ast``: :func:`escape` decodes one backslash escape,
:func:`number_json` turns a number literal into its JSON text, and
:class:`Skipper` counts brackets, outside strings, to where a failed call or
element ends.
"""

from __future__ import annotations

import math
import re

import msgspec

__all__ = ("STRING_STOPS", "Skipper", "escape", "is_float", "number_json")

_encode = msgspec.json.encode

_SIMPLE_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\n": "",  # a line continued inside the string
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
_OCTAL = "01234567"
# Inside a string, what needs a look: its quote, a backslash, a line end (one-line strings).
STRING_STOPS = {
    ("'", False): re.compile(r"['\\\r\n]"),
    ('"', False): re.compile(r'["\\\r\n]'),
    ("'", True): re.compile(r"['\\]"),
    ('"', True): re.compile(r'["\\]'),
}
_SKIP_OUTSIDE = re.compile(r"['\"()\[\]{},]")


def escape(text: str, pos: int, *, raw: bool) -> tuple[str, int] | None:
    """The backslash escape at ``pos`` in a string: (the characters it stands for, where
    it ends), or None if the text ends before it does.

    A raw string keeps the backslash (and the quote after it); an unknown escape
    keeps its backslash, as Python does.

    :raises ValueError: for a malformed escape, one of a surrogate or of no
        character, and ``\\N{...}`` (not read).
    """
    end = len(text)
    if pos + 1 == end:
        return None
    char = text[pos + 1]
    if raw:
        return text[pos : pos + 2], pos + 2
    simple = _SIMPLE_ESCAPES.get(char)
    if simple is not None:
        return simple, pos + 2
    digits = _HEX_ESCAPES.get(char)
    if digits is not None:
        if pos + 2 + digits > end:
            return None
        try:
            code = int(text[pos + 2 : pos + 2 + digits], 16)
        except ValueError:
            raise ValueError(f"a malformed \\{char} escape") from None
        if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            raise ValueError(f"\\{char} escapes a surrogate or no character")
        return chr(code), pos + 2 + digits
    if char in _OCTAL:
        stop = pos + 2
        while stop < end and stop < pos + 4 and text[stop] in _OCTAL:
            stop += 1
        if stop == end and stop < pos + 4:
            return None  # more octal digits may follow
        return chr(int(text[pos + 1 : stop], 8)), stop
    if char == "N":
        raise ValueError("a \\N{...} escape (not read)")
    return "\\" + char, pos + 2


def is_float(token: str) -> bool:
    """Is this number token a float (a decimal one with a point or an exponent)?"""
    if token[:2].lower() in ("0x", "0o", "0b"):
        return False
    return "." in token or "e" in token or "E" in token


def number_json(token: str, *, negative: bool) -> str:
    """A Python number literal (``-`` before it when ``negative``) as JSON text.

    Ints may be decimal, ``0x``, ``0o`` or ``0b``, with ``_`` between digits,
    and are exact however big; floats must be finite.

    :raises ValueError: for anything else.
    """
    try:
        value: int | float = float(token) if is_float(token) else int(token, 0)
    except ValueError:
        raise ValueError(f"{token!r} is not a number") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{token} is not a finite number")
    return _encode(-value if negative else value).decode()


class Skipper:
    """Follows Python text that failed to its end, in constant memory.

    It counts brackets outside strings and stops (without consuming it) at
    one of ``ends`` (closing brackets, maybe ``,``) at depth 0, or at another
    closing bracket there, which closes nothing it opened: ``stop`` says which.
    """

    __slots__ = ("_depth", "_ends", "_quote", "_raw", "_triple", "stop")

    def __init__(
        self, ends: str, *, depth: int = 0, quote: str = "", triple: bool = False, raw: bool = False
    ) -> None:
        self._ends = ends
        self._depth = depth
        self._quote = quote  # inside a string
        self._triple = triple
        self._raw = raw
        self.stop = ""

    def feed(self, text: str, pos: int) -> int:
        end = len(text)
        while pos < end:
            if self._quote:
                stops = STRING_STOPS[self._quote, self._triple]
                found = stops.search(text, pos)
                if found is None:
                    return end
                pos = found.start()
                char = text[pos]
                if char == "\\":
                    if pos + 1 == end:
                        return pos
                    pos += 2
                elif char in "\r\n":
                    self._quote = ""  # a one-line string broken by the line end: count on outside it
                    pos += 1
                elif not self._triple:
                    self._quote = ""
                    pos += 1
                elif text.startswith(self._quote * 3, pos):
                    self._quote = ""
                    pos += 3
                elif pos + 3 > end and self._quote * (end - pos) == text[pos:]:
                    return pos
                else:
                    pos += 1
                continue
            found = _SKIP_OUTSIDE.search(text, pos)
            if found is None:
                return end
            pos = found.start()
            char = text[pos]
            if char in "'\"":
                if pos + 2 >= end:
                    return pos  # '' or '''? wait
                self._triple = text.startswith(char * 3, pos)
                self._quote = char
                pos += 3 if self._triple else 1
            elif char in "([{":
                self._depth += 1
                pos += 1
            elif char == ",":
                if not self._depth and "," in self._ends:
                    self.stop = char
                    return pos
                pos += 1
            elif self._depth:
                self._depth -= 1
                pos += 1
            else:
                self.stop = char  # a closer at depth 0: one of ends, or one that breaks the text
                return pos
        return pos

    @property
    def broken(self) -> bool:
        return bool(self.stop) and self.stop not in self._ends
