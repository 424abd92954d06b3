"""Bodies that are not streams: one JSON document, or an HTML page.

A provider that rejects a request answers with one JSON error object, and a
caller who forgot ``stream: true`` gets one complete response -- both often
pretty-printed over many lines.  A proxy in front of the provider answers
with an HTML page.  The body's first significant byte tells these apart from
a stream (:mod:`._firstbyte`, :mod:`.._detect`), and the framers here take
the body whole:

- :class:`DocumentFramer` holds the JSON value from its first byte until it
  closes -- found by the resumable scanner the call assembler uses, so each
  byte is looked at once -- and hands it to its :class:`DocumentSink`, which
  decodes it once.  The value may take up to ``max_line_bytes`` (it is one
  record, like a JSON array element).  Bytes after it are reported, once.
  For an NDJSON provider (``lines=``), a value that closes on its first line
  is the stream's first record, and the NDJSON framer takes over (``feed``
  returns it, and the parser feeds it from then on) -- unless the sink says it
  is the whole body.
- :class:`HtmlPageFramer` reports the page as a
  :class:`~streamcalls.ProviderError` quoting its ``<title>``, then the end.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol

from .._emitter import Emitter
from .._jsonscan import JsonScanner
from ._error_bodies import MAX_ERROR_BODY, gist, html_title
from ._records import RecordFramer, RecordSink
from ._trailing import Trailing

__all__ = ("DocumentFramer", "DocumentSink", "HtmlPageFramer")


class DocumentSink(Protocol):
    def on_document(self, data: bytes, complete: bool) -> None:
        """The body's JSON value; ``complete`` is False when the body ended inside it."""

    def is_whole_body(self, data: bytes) -> bool:
        """(``lines=``) Is this first value, closed on its first line, the whole
        body (an error object, say) rather than an NDJSON stream's first record?"""


_LINE_END = re.compile(rb"[\r\n]")
_NOT_BLANK = re.compile(rb"[^ \t\r\n]")
# The structural scan needs no depth limit (it counts, it does not recurse);
# the decoder reports a value that nests too deeply.
_NO_DEPTH_LIMIT = 1 << 62
_SHOWN = 200  # bytes of a value over the limit shown in its error message
_TITLE_END = b"</title>"
_TITLE_TRIES = 8  # "</title>"s looked at before the page's end: a hostile page has thousands

# Where the framer is.
_FIRST_LINE = 0  # (lines=) inside the value, and no line has ended yet
_VALUE = 1  # inside the value
_AFTER = 2  # the value was handed on
_IGNORING = 3  # the value went over the limit (or the NDJSON framer took over): nothing more to read


class DocumentFramer:
    """Holds a body's one JSON value until it closes."""

    __slots__ = (
        "_buf",
        "_documents",
        "_emit",
        "_lines",
        "_max",
        "_scanner",
        "_state",
        "_trailing",
        "sink",
    )

    def __init__(
        self,
        sink: RecordSink,
        emit: Emitter,
        documents: DocumentSink,
        *,
        lines: Callable[[RecordSink], RecordFramer] | None = None,
    ) -> None:
        self.sink = sink  # the records' sink, for the NDJSON framer that may take over
        self._emit = emit
        self._documents = documents
        self._lines = lines  # the NDJSON framer's maker
        self._max = emit.limits.max_line_bytes
        self._scanner = JsonScanner(_NO_DEPTH_LIMIT)
        self._state = _FIRST_LINE if lines is not None else _VALUE
        self._buf = bytearray()  # the value so far
        self._trailing = Trailing("data after the body's JSON document; ignored")

    def feed(self, data: bytes) -> RecordFramer | None:
        """Returns the NDJSON framer when it takes over (``lines=``)."""
        state = self._state
        if state == _AFTER:
            self._trailing.feed(self.sink, data)
        elif state != _IGNORING:
            return self._value(data)
        return None

    def close(self) -> None:
        state = self._state
        if state == _FIRST_LINE:
            self._to_lines(b"").close()
        elif state == _VALUE:
            self._state = _AFTER
            data = bytes(self._buf)
            self._buf = bytearray()
            self._documents.on_document(data, False)
        elif state == _AFTER:
            self._trailing.close(self.sink)

    # -- the value -----------------------------------------------------------------

    def _value(self, data: bytes) -> RecordFramer | None:
        pos = 0
        if not self._buf:
            first = _NOT_BLANK.search(data)
            if first is None:
                return None  # blanks before the value
            pos = first.start()
        # One character per byte: the scanner's offsets are byte offsets, and
        # what it looks at (quotes, brackets, backslashes) is ASCII, which no
        # byte of a multi-byte UTF-8 character can be.
        text = data.decode("latin-1")
        if self._state == _FIRST_LINE:
            line_end = _LINE_END.search(data, pos)
            cut = len(data) if line_end is None else line_end.start()
            end = self._scanner.feed(text[pos:cut])
            closed = end >= 0
            size = len(self._buf) + (end if closed else cut - pos)
            if closed and size <= self._max:
                value = bytes(self._buf) + data[pos : pos + end]
                if self._documents.is_whole_body(value):
                    self._deliver(value, data, pos + end)
                    return None
            if closed or size > self._max:
                # It closed on its first line (or is too long for a document):
                # an NDJSON stream, whose framer reads it from the start.
                return self._to_lines(data[pos:])  # (from the value: leading blanks are dropped, however cut)
            if line_end is None:
                self._buf += data[pos:]
                return None
            self._state = _VALUE  # a value over several lines: a document
            self._buf += data[pos:cut]
            pos = cut
        end = self._scanner.feed(text[pos:])
        stop = len(data) if end < 0 else pos + end
        if len(self._buf) + stop - pos > self._max:
            self._too_long(data[pos:stop])
            return None
        self._buf += data[pos:stop]
        if end >= 0:
            self._deliver(bytes(self._buf), data, stop)
        return None

    def _deliver(self, document: bytes, data: bytes, stop: int) -> None:
        """The value closed at ``stop`` in ``data``: hand it on, then watch what follows."""
        self._state = _AFTER
        self._buf = bytearray()
        self._documents.on_document(document, True)
        self._trailing.feed(self.sink, data, stop)

    def _to_lines(self, data: bytes) -> RecordFramer:
        """The NDJSON framer takes over: it reads the value from its start (and the rest)."""
        assert self._lines is not None
        framer = self._lines(self.sink)
        self._state = _IGNORING  # from now on, bytes go to the NDJSON framer
        held = bytes(self._buf)
        self._buf = bytearray()
        framer.feed(held + data)  # (an NDJSON framer hands over to none)
        return framer

    def _too_long(self, tail: bytes) -> None:
        # At least max + 1 bytes of the value have arrived, however they were
        # cut: show the same first ones.
        keep = min(_SHOWN, self._max + 1)
        shown = (bytes(self._buf[:keep]) + tail[:keep])[:keep]
        self._state = _IGNORING
        self._buf = bytearray()
        emit = self._emit
        emit.parse_error(f"the body's JSON document exceeds max_line_bytes={self._max}; not read", shown)
        emit.finish("error")


class HtmlPageFramer:
    """Reports an HTML page (a proxy's error page) by its title, then ignores it.

    It is reported as soon as its title is known -- the head comes first --,
    else from its first ``MAX_ERROR_BODY`` bytes, or at the end of input.
    """

    __slots__ = ("_emit", "_page", "_searched", "_tries", "sink")

    def __init__(self, sink: RecordSink, emit: Emitter) -> None:
        self.sink = sink
        self._emit = emit
        self._page: bytearray | None = bytearray()  # None once reported
        self._searched = 0
        self._tries = _TITLE_TRIES

    def feed(self, data: bytes) -> None:
        page = self._page
        if page is None:
            return
        page += data[: MAX_ERROR_BODY - len(page)]
        # Each "</title>" may close the page's first title: look for one from
        # where the last look ended (less the length of one it may have cut),
        # so each byte is looked at about once.  The first title found in what
        # has arrived is the page's first title, however the page is cut.
        start = max(self._searched - len(_TITLE_END) + 1, 0)
        self._searched = len(page)
        while self._tries:
            found = bytes(page[start:]).lower().find(_TITLE_END)
            if found < 0:
                break
            self._tries -= 1
            start += found + len(_TITLE_END)
            if html_title(page.decode("utf-8", "replace")) is not None:
                self._report()
                return
        if len(page) >= MAX_ERROR_BODY:
            self._report()

    def close(self) -> None:
        if self._page is not None:
            self._report()

    def _report(self) -> None:
        page = self._page or b""
        self._page = None
        text = gist(page.decode("utf-8", "replace"), html=True)
        self._emit.provider_error(f"an HTML page, not a stream: {text}", "html_page")
        self._emit.finish("error")
