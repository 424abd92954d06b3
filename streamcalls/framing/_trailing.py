"""Bytes after a body's end -- a JSON array's ``]``, a JSON document's value.

They are reported once, as a :class:`~streamcalls.ParseError` showing the
same bytes however the body was cut: when enough of them have arrived to
show, or at the end of input.  Blank bytes before them are not data.
"""

from __future__ import annotations

import re

from .._emitter import preview
from .._events import Event, ParseError

__all__ = ("Trailing",)

_NOT_BLANK = re.compile(rb"[^ \t\r\n]")
_SHOWN = 200  # bytes kept for the error message


class Trailing:
    __slots__ = ("_held", "_message", "_out")

    def __init__(self, out: list[Event], message: str) -> None:
        self._out = out
        self._message = message
        self._held: bytearray | None = bytearray()  # the first bytes shown; None once reported

    def feed(self, data: bytes | bytearray, pos: int = 0) -> None:
        """More bytes after the end (``data`` from ``pos``)."""
        held = self._held
        if held is None:
            return
        if not held:
            found = _NOT_BLANK.search(data, pos)
            if found is None:
                return
            pos = found.start()
        held += data[pos : pos + _SHOWN + 1 - len(held)]
        if len(held) > _SHOWN:
            self._report()

    def close(self) -> None:
        """The end of input: report what came, if anything did."""
        if self._held:
            self._report()

    def _report(self) -> None:
        shown = preview(self._held or b"")
        self._held = None
        self._out.append(ParseError(self._message, shown))
