"""Splitting a byte stream into lines at CR, LF and CRLF.

Only those three end a line: U+2028, U+2029, U+0085 and form feeds inside
JSON strings are content (``str.splitlines`` would split on them, which is
why nothing here decodes before splitting).  A CR that ends one chunk and an
LF that starts the next are one line end.  Each chunk's bytes are scanned
once, by C-level ``bytes`` methods; the unfinished last line waits in a
bytearray that grows by appends only, so any chunking costs O(n).
"""

from __future__ import annotations

from ._records import RecordSink

__all__ = ("LineBuffer",)

# Byte values for membership tests: ``13 in data`` is a memchr, while
# ``b"\r" in data`` first tries its argument as an int and pays for the
# TypeError it raises -- 7x slower on a 400-byte SSE event (CPython 3.11).
_CR = 13
_LF = 10


class LineBuffer:
    """Turns chunks into complete lines (without their line ends).

    A line over ``max_line_bytes`` comes out as ``None`` in its place: the
    framer calls :meth:`report_long` then, so the error takes its place among
    the records, whatever the chunking.
    """

    __slots__ = ("_discarding", "_long", "_max", "_skip_lf", "_tail", "_what")

    def __init__(self, max_line_bytes: int, what: str) -> None:
        self._max = max_line_bytes
        self._what = what  # "SSE" or "NDJSON", for error messages
        self._tail = bytearray()
        self._skip_lf = False  # the last chunk ended with CR
        self._discarding = False  # inside a line that went over the limit
        self._long: list[bytes] = []  # previews of the too-long lines not yet reported

    def split(self, data: bytes) -> list[bytes | None]:
        """Add a chunk; return the lines it completed (None for one over the limit)."""
        if self._skip_lf and data:
            self._skip_lf = False
            if data[0] == _LF:
                data = data[1:]
        if _CR in data:
            if data[-1] == _CR:
                self._skip_lf = True
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if _LF not in data:
            if data and not self._discarding:
                self._tail += data
                if len(self._tail) > self._max:
                    self._overflow()
                    return [None]
            return []
        lines: list[bytes | None] = data.split(b"\n")  # type: ignore[assignment]
        tail = self._tail
        if self._discarding:
            self._discarding = False
            del lines[0]  # the end of the line that was over the limit
        elif tail:
            tail += lines[0]  # type: ignore[arg-type]
            lines[0] = bytes(tail)
            tail.clear()
        last = lines.pop()
        if lines and (len(data) > self._max or len(lines[0]) > self._max):  # type: ignore[arg-type]
            self._mark_long(lines)
        if last:
            tail += last
            if len(tail) > self._max:
                self._overflow()
                lines.append(None)
        return lines

    def _mark_long(self, lines: list[bytes | None]) -> None:
        """Complete lines over the limit are reported like a tail that overflowed."""
        limit = self._max
        for number, line in enumerate(lines):
            if line is not None and len(line) > limit:
                self._long.append(line[:201])
                lines[number] = None

    def take_rest(self) -> bytes:
        """At end of input: the unfinished last line (no line end came)."""
        rest = bytes(self._tail)
        self._tail.clear()
        self._discarding = False
        return rest

    def _overflow(self) -> None:
        self._long.append(bytes(self._tail[:201]))
        self._tail.clear()
        self._discarding = True

    def report_long(self, sink: RecordSink) -> None:
        """Report the too-long line that a ``None`` stood for to ``sink``."""
        line = self._long.pop(0)
        sink.on_framing_error(
            f"{self._what} line exceeds max_line_bytes={self._max}; skipped to the next line", line
        )
