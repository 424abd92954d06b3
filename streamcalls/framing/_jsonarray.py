"""A JSON array streamed element by element (Gemini without ``alt=sse``).

Gemini's ``streamGenerateContent`` without ``?alt=sse`` answers with ONE
JSON array that grows over time: each element is a pretty-printed
``GenerateContentResponse`` object, and elements are separated by ``,`` and
a CRLF::

    [{
      "candidates": [ ... ]
    }
    ,
    {
      ...
    }
    ]

Each object element is handed to the sink as a record the moment its
closing brace arrives; the closing ``]`` is the stream's end sentinel
(``sink.on_done``).  A body that is a bare object rather than an array (an
HTTP error body, ``{"error": {...}}``) is handed on the same way.

Finding where an element ends needs only three things carried across
chunks: nesting depth, whether the scan is inside a string, and whether a
chunk ended on a backslash inside one.  Each byte is looked at once, by
C-level ``re`` searches that jump over ordinary characters; an element that
fits in one chunk is passed on as a slice of it, one that spans chunks is
collected in a bytearray that only grows by appends.  Whether an element is
valid JSON is decided once, by the adapter's msgspec decode.

Bad input is reported as :class:`~streamcalls.ParseError` events and the
scan resynchronises at the next element: bytes between elements that are
not whitespace or a comma (reported once per run, when the run ends), an
element that is not an object, an element over ``max_line_bytes`` (skipped
to its end), bytes after the closing ``]``, and a stream that ends inside
an element.  Commas are not checked: ``}{`` and ``},,{`` pass.
"""

from __future__ import annotations

import re

from ._records import RecordSink
from ._trailing import Trailing

__all__ = ("JSONArrayFramer",)

# Outside strings: a run of bytes that are not quotes or brackets, and of
# strings without escapes (object keys, most values), skipped in one C-level
# match.  Inside a string: its body up to the closing quote, escapes included
# (a lone backslash at the chunk's end stops it).  Neither can backtrack more
# than the run it is on, so every byte costs O(1) however the input is cut.
_PLAIN = re.compile(rb'[^"{}\[\]]*(?:"[^"\\]*"[^"{}\[\]]*)*')
_STRING_BODY = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*', re.DOTALL)
# Between elements: the next byte that is not whitespace or a comma.
_SIGNIFICANT = re.compile(rb"[^ \t\r\n,]")
# Inside a run of garbage: the next byte that could start an element, or end
# the array if one is open.
_RESYNC = re.compile(rb'[{\["]')
_RESYNC_IN_ARRAY = re.compile(rb'[{\["\]]')

_QUOTE = 0x22
_OPEN_BRACE = 0x7B
_OPEN_BRACKET = 0x5B
_CLOSE_BRACKET = 0x5D

# Where the scan is.
_BETWEEN = 0  # before the array, or between elements
_ELEMENT = 1  # inside an element
_GARBAGE = 2  # inside bytes that are not an element
_ENDED = 3  # after the closing "]"

_GARBAGE_SHOWN = 200  # bytes of a garbage run kept for its error message


class JSONArrayFramer:
    """Cuts a streamed JSON array into its elements."""

    __slots__ = (
        "_buf",
        "_depth",
        "_escape",
        "_garbage",
        "_in_array",
        "_in_string",
        "_max",
        "_size",
        "_skipping",
        "_state",
        "_trailing",
        "sink",
    )

    def __init__(self, sink: RecordSink, max_element_bytes: int) -> None:
        self.sink = sink
        self._max = max_element_bytes
        self._state = _BETWEEN
        self._in_array = False  # the opening "[" was seen
        self._buf = bytearray()  # the element so far, when it spans chunks
        self._size = 0  # bytes of the current element seen so far
        self._skipping = False  # the current element went over the limit
        self._depth = 0
        self._in_string = False
        self._escape = False
        self._garbage = bytearray()  # the start of the current garbage run
        self._trailing = Trailing("data after the end of the JSON array; ignored")

    # -- input -------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        pos = 0
        end = len(data)
        while pos < end:
            state = self._state
            if state == _ELEMENT:
                pos = self._element(data, pos)
            elif state == _BETWEEN:
                pos = self._between(data, pos)
            elif state == _GARBAGE:
                pos = self._in_garbage(data, pos)
            else:
                self._trailing.feed(self.sink, data, pos)
                return

    def close(self) -> None:
        state = self._state
        if state == _ENDED:
            self._trailing.close(self.sink)
        elif state == _GARBAGE:
            self._garbage_done()
        elif state == _ELEMENT:
            shown = b"" if self._skipping else self._buf
            self.sink.on_framing_error("JSON array stream ended inside an element (truncated)", shown)
            self._buf = bytearray()
            self._state = _BETWEEN

    # -- between elements ------------------------------------------------------

    def _between(self, data: bytes, pos: int) -> int:
        match = _SIGNIFICANT.search(data, pos)
        if match is None:
            return len(data)
        at = match.start()
        byte = data[at]
        if byte == _OPEN_BRACKET and not self._in_array:
            self._in_array = True
            return at + 1
        if byte == _CLOSE_BRACKET and self._in_array:
            self._state = _ENDED
            self.sink.on_done()
            return at + 1
        if byte in b'{["':
            self._start_element(byte)
            return self._element(data, at + 1, at)
        self._state = _GARBAGE
        self._garbage.append(byte)
        return self._in_garbage(data, at + 1)

    def _in_garbage(self, data: bytes, pos: int) -> int:
        match = (_RESYNC_IN_ARRAY if self._in_array else _RESYNC).search(data, pos)
        stop = len(data) if match is None else match.start()
        room = _GARBAGE_SHOWN + 1 - len(self._garbage)
        if room > 0:
            self._garbage += data[pos : min(stop, pos + room)]
        if match is not None:
            self._garbage_done()
        return stop

    def _garbage_done(self) -> None:
        shown = bytes(self._garbage).rstrip(b" \t\r\n,")
        self._garbage.clear()
        self._state = _BETWEEN
        self.sink.on_framing_error("unexpected bytes between JSON array elements; skipped", shown)

    # -- inside an element -------------------------------------------------------

    def _start_element(self, first: int) -> None:
        self._state = _ELEMENT
        self._size = 0
        self._skipping = False
        self._escape = False
        if first == _QUOTE:
            self._depth = 0
            self._in_string = True
        else:
            self._depth = 1
            self._in_string = False

    def _element(self, data: bytes, pos: int, start: int | None = None) -> int:
        """Scan from ``pos``; ``start`` is where the element began if in this chunk."""
        begin = pos if start is None else start
        end = self._scan(data, pos)
        stop = len(data) if end < 0 else end
        self._size += stop - begin
        if self._skipping:
            pass
        elif self._size > self._max:
            self._overflow(data[begin:stop])
        elif end < 0:
            self._buf += data[begin:stop]
        else:
            if self._buf:
                self._buf += data[begin:stop]
                element = bytes(self._buf)
                self._buf.clear()
            else:
                element = data[begin:stop]
            self._deliver(element)
        if end >= 0:
            self._state = _BETWEEN
            self._skipping = False
        return stop

    def _scan(self, data: bytes, pos: int) -> int:
        """Offset just past the element's last byte, or -1 if it goes on."""
        end = len(data)
        if self._escape:
            # The last chunk ended on a backslash in a string: this byte is escaped.
            self._escape = False
            pos += 1
        depth = self._depth
        in_string = self._in_string
        while pos < end:
            if in_string:
                pos = _STRING_BODY.match(data, pos).end()  # type: ignore[union-attr]
                if pos >= end:
                    break
                if data[pos] != _QUOTE:  # a backslash, the chunk's last byte
                    self._escape = True
                    pos = end
                    break
                in_string = False
                pos += 1
                if depth == 0:  # a top-level string closed
                    return pos
            else:
                pos = _PLAIN.match(data, pos).end()  # type: ignore[union-attr]
                if pos >= end:
                    break
                byte = data[pos]
                pos += 1
                if byte == _QUOTE:
                    in_string = True
                elif byte in (_OPEN_BRACE, _OPEN_BRACKET):
                    depth += 1
                else:
                    depth -= 1
                    if depth == 0:
                        return pos
        self._depth = depth
        self._in_string = in_string
        return -1

    def _deliver(self, element: bytes) -> None:
        if element[0] == _OPEN_BRACE:
            self.sink.on_record(None, element)
        else:
            self.sink.on_framing_error("JSON array element is not an object; skipped", element)

    def _overflow(self, tail: bytes) -> None:
        # At least max + 1 bytes of the element have arrived, however they were cut.
        keep = min(_GARBAGE_SHOWN, self._max + 1)
        shown = (bytes(self._buf[:keep]) + tail[:keep])[:keep]
        self._buf = bytearray()
        self._skipping = True
        self.sink.on_framing_error(f"JSON array element exceeds max_line_bytes={self._max}; skipped", shown)
