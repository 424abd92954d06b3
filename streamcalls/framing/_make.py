"""Building the framer that reads a body."""

from __future__ import annotations

from functools import partial

from .._emitter import Emitter
from .._native import sse_framer
from ._document import DocumentFramer, DocumentSink, HtmlPageFramer, Replace
from ._eventstream import EventStreamFramer
from ._firstbyte import FirstByteFramer, body_framing
from ._jsonarray import JSONArrayFramer
from ._ndjson import NDJSONFramer
from ._records import Framer, RecordSink
from ._text import TextFramer
from ._utf8 import drop_invalid

__all__ = ("framer_for", "make_framer")


def make_framer(
    framing: str, sink: RecordSink, emit: Emitter, documents: DocumentSink, replace: Replace | None = None
) -> Framer:
    """The framer for a named provider's body (``framing``: its streams'; ``sink``: its adapter).

    Its first significant byte tells a stream from a JSON document or an HTML
    page (see :func:`~._firstbyte.body_framing`); ``documents`` reads a body
    that is one JSON document, and ``replace`` is told the framer chosen then.
    Plain text is always text.
    """
    if framing == "text":
        return TextFramer(sink, emit)

    def build(chosen: str, sink: RecordSink, chosen_replace: Replace) -> Framer:
        return framer_for(chosen, sink, emit, documents, chosen_replace)

    return FirstByteFramer(sink, partial(body_framing, framing), build, replace)


def framer_for(
    framing: str, sink: RecordSink, emit: Emitter, documents: DocumentSink, replace: Replace
) -> Framer:
    """The framer for a framing already chosen.

    ``documents`` reads a body that is one JSON document; ``replace`` is told
    when the framer built hands over to another (a JSON body that turns out
    to be an NDJSON stream).
    """
    limits = emit.limits
    if framing == "sse":
        return sse_framer(sink, emit.out, limits.max_line_bytes, limits.max_event_bytes)
    if framing == "ndjson":
        return NDJSONFramer(sink, emit.out, limits.max_line_bytes)
    if framing == "text":
        return TextFramer(sink, emit)
    if framing == "json-array":
        return JSONArrayFramer(sink, emit.out, limits.max_line_bytes)
    if framing == "eventstream":
        clean = drop_invalid if emit.report_invalid_utf8 else None
        return EventStreamFramer(sink, emit.out, limits.max_event_bytes, clean)
    if framing == "json-document":
        return DocumentFramer(sink, emit, documents)
    if framing == "json-or-ndjson":

        def lines(to: RecordSink) -> Framer:
            return NDJSONFramer(to, emit.out, limits.max_line_bytes)

        return DocumentFramer(sink, emit, documents, lines=(lines, replace))
    if framing == "html":
        return HtmlPageFramer(sink, emit)
    raise AssertionError(f"no framer for {framing!r}")
