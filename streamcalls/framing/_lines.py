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

    __slots__ = ("_discarding", "_long", "_max", "_shown", "_skip_lf", "_tail", "_what")

    def __init__(self, max_line_bytes: int, what: str) -> None:
        self._max = max_line_bytes
        # The bytes of a too-long line its report shows: as many as arrive before it is known to
        # be too long however it is cut (a whole line, or one that grows over several chunks).
        self._shown = min(201, max_line_bytes + 1)
        self._what = what  # "SSE" or "NDJSON", for error messages
        # The unfinished last line, and the previews of the too-long lines not yet reported:
        # made when first needed (a stream read a whole line per chunk needs neither).
        self._tail: bytearray | None = None
        self._long: list[bytes] | None = None
        self._skip_lf = False  # the last chunk ended with CR
        self._discarding = False  # inside a line that went over the limit

    @property
    def clean(self) -> bool:
        """Nothing is held: the next chunk starts a line, and no CR waits for its LF."""
        return not self._tail and not self._skip_lf and not self._discarding

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
        tail = self._tail
        if _LF not in data:
            if data and not self._discarding:
                if tail is None:
                    tail = self._tail = bytearray()
                tail += data
                if len(tail) > self._max:
                    self._overflow()
                    return [None]
            return []
        lines: list[bytes | None] = data.split(b"\n")  # type: ignore[assignment]
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
            if tail is None:
                tail = self._tail = bytearray()
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
                self._held_long(line[: self._shown])
                lines[number] = None

    def take_rest(self) -> bytes:
        """At end of input: the unfinished last line (no line end came)."""
        tail = self._tail
        self._tail = None
        self._discarding = False
        return b"" if tail is None else bytes(tail)

    def _overflow(self) -> None:
        tail = self._tail
        assert tail is not None
        self._held_long(bytes(tail[: self._shown]))
        tail.clear()
        self._discarding = True

    def _held_long(self, shown: bytes) -> None:
        if self._long is None:
            self._long = [shown]
        else:
            self._long.append(shown)

    def report_long(self, sink: RecordSink) -> None:
        """Report the too-long line that a ``None`` stood for to ``sink``."""
        assert self._long is not None
        line = self._long.pop(0)
        sink.on_framing_error(
            f"{self._what} line exceeds max_line_bytes={self._max}; skipped to the next line", line
        )
