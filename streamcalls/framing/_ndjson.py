"""Newline-delimited JSON: one value per line, blank lines ignored."""

from __future__ import annotations

from ._lines import LineBuffer
from ._records import RecordSink

__all__ = ("NDJSONFramer",)


class NDJSONFramer:
    __slots__ = ("_clean", "_lines", "_max", "sink")

    def __init__(self, sink: RecordSink, max_line_bytes: int) -> None:
        self.sink = sink
        self._lines = LineBuffer(max_line_bytes, "NDJSON")
        self._max = max_line_bytes
        self._clean = True  # nothing is held from the chunks before (see LineBuffer.clean)

    def feed(self, data: bytes) -> None:
        # The common chunk -- one whole line, LF-ended, within the limit -- read at once when
        # nothing is held from the chunks before: what the line buffer would give.
        if self._clean and data[-1:] == b"\n" and 13 not in data:
            line = data[:-1]
            if 10 not in line and len(line) <= self._max:
                if line and not line.isspace():
                    self.sink.on_record(None, line)
                return
        sink = self.sink
        for complete in self._lines.split(data):
            if complete:
                if not complete.isspace():
                    sink.on_record(None, complete)
            elif complete is None:
                self._lines.report_long(sink)
        self._clean = self._lines.clean

    def close(self) -> None:
        # A last line without a line end is common in NDJSON: deliver it; if
        # it was cut off, decoding it reports the problem.
        rest = self._lines.take_rest()
        if rest and not rest.isspace():
            self.sink.on_record(None, rest)
