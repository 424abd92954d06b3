"""Building the framer that reads a body."""

from __future__ import annotations

from functools import partial

from .._emitter import Emitter
from .._native import sse_framer
from ._document import DocumentFramer, DocumentSink, HtmlPageFramer
from ._eventstream import EventStreamFramer
from ._firstbyte import FirstByteFramer, body_framing
from ._jsonarray import JSONArrayFramer
from ._ndjson import NDJSONFramer
from ._records import RecordFramer, RecordSink
from ._text import TextFramer
from ._utf8 import drop_invalid

__all__ = ("framer_for", "make_framer")


def make_framer(framing: str, sink: RecordSink, emit: Emitter, documents: DocumentSink) -> RecordFramer:
    """The framer for a named provider's body (``framing``: its streams'; ``sink``: its adapter).

    Its first significant byte tells a stream from a JSON document or an HTML
    page (see :func:`~._firstbyte.body_framing`), and the framer chosen then
    takes over (the first ``feed`` that chooses returns it); ``documents``
    reads a body that is one JSON document.  Plain text is always text.
    """
    if framing == "text":
        return TextFramer(sink, emit)

    def build(chosen: str, sink: RecordSink) -> RecordFramer:
        return framer_for(chosen, sink, emit, documents)

    return FirstByteFramer(sink, partial(body_framing, framing), build)


def framer_for(framing: str, sink: RecordSink, emit: Emitter, documents: DocumentSink) -> RecordFramer:
    """The framer for a framing already chosen.

    ``documents`` reads a body that is one JSON document; a JSON body that
    turns out to be an NDJSON stream hands over to an NDJSON framer (its
    ``feed`` returns it).
    """
    limits = emit.limits
    if framing == "sse":
        return sse_framer(sink, limits.max_line_bytes, limits.max_event_bytes)
    if framing == "ndjson":
        return NDJSONFramer(sink, limits.max_line_bytes)
    if framing == "text":
        return TextFramer(sink, emit)
    if framing == "json-array":
        return JSONArrayFramer(sink, limits.max_line_bytes)
    if framing == "eventstream":
        clean = drop_invalid if emit.report_invalid_utf8 else None
        return EventStreamFramer(sink, limits.max_event_bytes, clean)
    if framing == "json-document":
        return DocumentFramer(sink, emit, documents)
    if framing == "json-or-ndjson":

        def lines(to: RecordSink) -> RecordFramer:
            return NDJSONFramer(to, limits.max_line_bytes)

        return DocumentFramer(sink, emit, documents, lines=lines)
    if framing == "html":
        return HtmlPageFramer(sink, emit)
    raise AssertionError(f"no framer for {framing!r}")
