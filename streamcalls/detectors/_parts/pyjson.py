"""The JSON side of the ``pythonic`` reader: a call's arguments written left to right.

:class:`JsonWriter` keeps what writing JSON as values arrive needs: the open
containers (the call's object at the bottom, then lists, tuples written as
lists, dicts), each dict's keys (JSON keys must not repeat), the comma before
each item, and the room the call has -- past it the call fails at the very
character that would not fit, however the text was chunked.  It hands each
piece to ``write``.  What cannot be JSON raises :class:`Failure`, which the
reader turns into the call's failure.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

__all__ = ("CALL", "DICT", "LIST", "TUPLE", "Failure", "JsonWriter")

_encode = msgspec.json.encode

# Container kinds: the character that closes each.  (A tuple is told from the
# call by its depth: only the bottom container is the call.)
CALL = ")"
LIST = "]"
TUPLE = ")"
DICT = "}"


def _json_string(chars: str) -> str:
    """``chars`` as they stand inside a JSON string."""
    return _encode(chars).decode()[1:-1]


class Failure(Exception):
    """The call failed at ``pos`` (``limit``: at a size limit)."""

    def __init__(self, error: str, pos: int, *, limit: bool = False) -> None:
        self.error = error
        self.pos = pos
        self.limit = limit


class _Container:
    __slots__ = ("close", "comma", "count", "keys")

    def __init__(self, close: str, keyed: bool) -> None:
        self.close = close
        self.count = 0
        self.comma = False  # a comma after the last item (a tuple of one)
        self.keys: set[str] | None = set() if keyed else None


class JsonWriter:
    """Writes one call's arguments as JSON, piece by piece, into ``write``."""

    __slots__ = ("_key_chars", "_max_depth", "_open", "_room", "_room_error", "_write", "_written", "in_key")

    def __init__(self, write: Callable[[str], None], *, max_depth: int, room: int, room_error: str) -> None:
        self._write = write
        self._max_depth = max_depth
        self._room = room  # JSON characters the call may have
        self._room_error = room_error
        self._written = 0
        self._open = [_Container(CALL, True)]
        self.in_key = False  # the value being written is a dict's key
        self._key_chars: list[str] = []  # a string key so far

    @property
    def depth(self) -> int:
        """Containers open inside the call."""
        return len(self._open) - 1

    def out(self, piece: str, pos: int) -> None:
        if self._written + len(piece) > self._room:
            raise Failure(self._room_error, pos, limit=True)
        self._written += len(piece)
        self._write(piece)

    def keyword(self, name: str, pos: int) -> None:
        """A call's keyword, before its value."""
        call = self._open[0]
        self._note_key(name, pos)
        self.out(("," if call.count else "") + f"{_encode(name).decode()}:", pos)
        call.count += 1

    def item(self, pos: int) -> None:
        """A list's element or a dict's key begins."""
        container = self._open[-1]
        if container.count:
            self.out(",", pos)
        container.count += 1
        container.comma = False
        self.in_key = container.close == DICT

    def comma(self) -> None:
        self._open[-1].comma = True

    def colon(self, pos: int) -> None:
        """A dict's key ended: its value follows."""
        self.in_key = False
        self.out(":", pos)

    def open(self, close: str, pos: int) -> None:
        if self.in_key:
            raise Failure("a dict key must be a string, a number, a boolean or None", pos)
        if len(self._open) >= self._max_depth:
            raise Failure(f"arguments nest deeper than max_json_depth={self._max_depth}", pos)
        self.out("{" if close == DICT else "[", pos)
        self._open.append(_Container(close, close == DICT))

    def close(self, char: str, pos: int) -> bool:
        """Close the innermost container with ``char``; True if it was the call itself."""
        stack = self._open
        container = stack[-1]
        if char != container.close:
            raise Failure(f"unexpected {char!r}", pos)
        if len(stack) == 1:
            self.out("}", pos)
            return True
        if container.close == TUPLE and container.count == 1 and not container.comma:
            raise Failure("a value in parentheses (a tuple of one is written (x,))", pos)
        self.out("}" if container.close == DICT else "]", pos)
        stack.pop()
        return False

    def scalar(self, json_text: str, pos: int) -> None:
        """A complete value other than a string: written whole (quoted, as a dict's key)."""
        if self.in_key:
            self._note_key(json_text, pos)
            json_text = f'"{json_text}"'
        self.out(json_text, pos)

    def string_open(self, pos: int) -> None:
        self._key_chars = []
        self.out('"', pos)

    def chars(self, chars: str, pos: int) -> None:
        """A string's characters (``pos``: where they are in the text)."""
        if not chars:
            return
        piece = _json_string(chars)
        if self._written + len(piece) > self._room:
            # As many characters as fit, so that the limit cuts at the same character
            # however the text was chunked.
            room = self._room - self._written
            fit = 0
            for char in chars:
                room -= len(_json_string(char))
                if room < 0:
                    break
                fit += 1
            if fit:
                self.out(_json_string(chars[:fit]), pos)
            raise Failure(self._room_error, pos + fit, limit=True)
        if self.in_key:
            self._key_chars.append(chars)
        self.out(piece, pos)

    def string_close(self, pos: int) -> None:
        if self.in_key:
            self._note_key("".join(self._key_chars), pos)
            self._key_chars = []
        self.out('"', pos)

    def _note_key(self, key: str, pos: int) -> None:
        keys = self._open[-1].keys
        assert keys is not None
        if key in keys:
            raise Failure(f"the key {key!r} is repeated", pos)
        keys.add(key)
