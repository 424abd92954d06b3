"""Bytes after a body's end -- a JSON array's ``]``, a JSON document's value.

They are reported once, to the framer's sink, showing the same bytes however
the body was cut: when enough of them have arrived to show, or at the end of
input.  Blank bytes before them are not data.
"""

from __future__ import annotations

import re

from ._records import RecordSink

__all__ = ("Trailing",)

_NOT_BLANK = re.compile(rb"[^ \t\r\n]")
_SHOWN = 200  # bytes kept for the error message


class Trailing:
    __slots__ = ("_held", "_message")

    def __init__(self, message: str) -> None:
        self._message = message
        self._held: bytearray | None = bytearray()  # the first bytes shown; None once reported

    def feed(self, sink: RecordSink, data: bytes | bytearray, pos: int = 0) -> None:
        """More bytes after the end (``data`` from ``pos``); ``sink`` is told once there is enough to show."""
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
            self._report(sink)

    def close(self, sink: RecordSink) -> None:
        """The end of input: report what came, if anything did."""
        if self._held:
            self._report(sink)

    def _report(self, sink: RecordSink) -> None:
        held = self._held or b""
        self._held = None
        sink.on_framing_error(self._message, held)
