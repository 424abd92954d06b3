"""Server-sent events, per the WHATWG HTML "interpreting an event stream" rules.

- Lines end at CR, LF or CRLF (see :mod:`streamcalls.framing._lines`); the leading
  BOM is stripped before bytes reach this module.
- ``:`` starts a comment (keep-alives); ``field: value`` loses exactly one
  space after the colon; a line without a colon is a field with value "".
- ``data`` lines accumulate, joined by LF; ``event`` sets the type; ``id``
  sets the last event id unless it holds NUL; ``retry`` and unknown fields
  are ignored.
- A blank line dispatches the event if it has data (``event: x`` alone
  dispatches nothing; ``data:`` alone dispatches ""), then clears the data
  and type buffers.
- ``data: [DONE]`` is OpenAI's end sentinel, passed on as ``on_done``.

At end of input the spec discards an event with no blank line after it.
Here it is delivered instead, unfinished last line included: payloads are
JSON objects, which are self-delimiting, so a cut-off payload fails to
decode and is reported as a :class:`~streamcalls.ParseError` by the adapter,
while a server that merely omits the last line end loses nothing.
"""

from __future__ import annotations

from ._lines import LineBuffer
from ._records import RecordSink

__all__ = ("SSEFramer",)


class SSEFramer:
    __slots__ = (
        "_clean",
        "_data",
        "_event",
        "_fast_max",
        "_lines",
        "_max_event",
        "_size",
        "last_event_id",
        "sink",
    )

    def __init__(self, sink: RecordSink, max_line_bytes: int, max_event_bytes: int) -> None:
        self.sink = sink
        self._lines = LineBuffer(max_line_bytes, "SSE")
        self._max_event = max_event_bytes
        self._data: list[bytes] | None = None  # the event's data lines so far (made at the first)
        self._size = 0
        self._event: str | None = None
        self.last_event_id = ""
        # Nothing is held from the chunks before (no unfinished line, no data lines): the next
        # chunk may take the fast path.
        self._clean = True
        self._fast_max = min(max_line_bytes, max_event_bytes)  # a chunk no longer fits both limits

    def feed(self, data: bytes) -> None:
        # The common chunk -- one whole event: a "data: " line, after an "event: " line or not,
        # then the blank line -- read at once, when nothing is held from the chunks before.  It
        # gives what the line by line reading below would: no CR, no other line, within both
        # limits.  Anything else is read line by line.  (Slices and ``in`` here, rather than
        # startswith, endswith and find: those take their arguments as a tuple.)
        if self._clean and data[-2:] == b"\n\n" and len(data) <= self._fast_max and 13 not in data:
            first = data[0]
            if first == 100 and data[:6] == b"data: ":  # "d"
                payload = data[6:-2]
                if 10 not in payload:
                    event = self._event
                    if event is not None:
                        self._event = None
                    if payload == b"[DONE]":
                        self.sink.on_done()
                    else:
                        self.sink.on_record(event, payload)
                    return
            elif first == 101 and data[:7] == b"event: ":  # "e"
                line, _, rest = data.partition(b"\n")
                if rest[:6] == b"data: ":
                    payload = rest[6:-2]
                    if 10 not in payload:
                        self._event = None
                        if payload == b"[DONE]":
                            self.sink.on_done()
                        else:
                            self.sink.on_record(_name(line[7:]), payload)
                        return
        self._lines_in(self._lines.split(data))
        self._clean = not self._data and self._lines.clean

    def _lines_in(self, lines: list[bytes | None]) -> None:
        for line in lines:
            if not line:
                if line is None:
                    self._lines.report_long(self.sink)
                else:
                    self._dispatch()
            elif line[:5] == b"data:":
                value = line[6:] if line[5:6] == b" " else line[5:]
                data = self._data
                if data is None:
                    self._data = [value]
                else:
                    data.append(value)
                self._size += len(value)
                if self._size > self._max_event:
                    self._overflow()
            elif line[0] == 58:  # ":" -- a comment
                continue
            elif line[:7] == b"event: ":  # the other common line, without _field's partition
                try:
                    self._event = line[7:].decode()
                except UnicodeDecodeError:
                    self._event = line[7:].decode("utf-8", "replace")
            else:
                self._field(line)

    def _field(self, line: bytes) -> None:
        name, colon, value = line.partition(b":")
        if colon and value[:1] == b" ":
            value = value[1:]
        if name == b"event":
            self._event = _name(value)
        elif name == b"data":  # "data" with no colon: an empty data line
            self._add(value)
        elif name == b"id":
            if b"\0" not in value:
                self.last_event_id = value.decode("utf-8", "replace")
        # "retry" and unknown fields are ignored.

    def _add(self, value: bytes) -> None:
        if self._data is None:
            self._data = [value]
        else:
            self._data.append(value)

    def _dispatch(self) -> None:
        data = self._data
        event = self._event
        self._event = None
        if not data:
            return
        payload = data[0] if len(data) == 1 else b"\n".join(data)
        data.clear()
        self._size = 0
        if payload == b"[DONE]":
            self.sink.on_done()
        else:
            self.sink.on_record(event, payload)

    def _overflow(self) -> None:
        data = self._data
        assert data is not None
        self.sink.on_framing_error(
            f"SSE event data exceeds max_event_bytes={self._max_event}; event dropped", data[0]
        )
        data.clear()
        self._size = 0
        self._event = None

    def close(self) -> None:
        rest = self._lines.take_rest()
        if rest:
            self._lines_in([rest])
        self._dispatch()


def _name(raw: bytes) -> str:
    """An event's name: UTF-8, invalid bytes as U+FFFD."""
    try:
        return raw.decode()  # (with no arguments: the fastest decode)
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace")
