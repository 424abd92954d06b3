"""Newline-delimited JSON: one value per line, blank lines ignored."""

from __future__ import annotations

from ._lines import LineBuffer
from ._records import RecordSink

__all__ = ("NDJSONFramer",)


class NDJSONFramer:
    __slots__ = ("_lines", "sink")

    def __init__(self, sink: RecordSink, max_line_bytes: int) -> None:
        self.sink = sink
        self._lines = LineBuffer(max_line_bytes, "NDJSON")

    def feed(self, data: bytes) -> None:
        sink = self.sink
        for line in self._lines.split(data):
            if line:
                if not line.isspace():
                    sink.on_record(None, line)
            elif line is None:
                self._lines.report_long(sink)

    def close(self) -> None:
        # A last line without a line end is common in NDJSON: deliver it; if
        # it was cut off, decoding it reports the problem.
        rest = self._lines.take_rest()
        if rest and not rest.isspace():
            self.sink.on_record(None, rest)
