"""Building the framer for a framing name."""

from __future__ import annotations

from ._emitter import Emitter
from ._eventstream import EventStreamFramer
from ._firstbyte import FirstByteFramer, json_or_sse
from ._jsonarray import JSONArrayFramer
from ._ndjson import NDJSONFramer
from ._records import Framer, RecordSink
from ._sse import SSEFramer
from ._utf8 import drop_invalid
from .providers.text import TextFramer

__all__ = ("make_framer",)


def make_framer(framing: str, sink: RecordSink, emit: Emitter) -> Framer:
    limits = emit.limits
    if framing == "sse":
        return SSEFramer(sink, emit.out, limits.max_line_bytes, limits.max_event_bytes)
    if framing == "ndjson":
        return NDJSONFramer(sink, emit.out, limits.max_line_bytes)
    if framing == "text":
        return TextFramer(sink, emit)
    if framing == "json-array":
        return JSONArrayFramer(sink, emit.out, limits.max_line_bytes)
    if framing == "eventstream":
        clean = drop_invalid if emit.report_invalid_utf8 else None
        return EventStreamFramer(sink, emit.out, limits.max_event_bytes, clean)
    if framing == "json-array-or-sse":  # Gemini: the URL's ?alt=sse decides
        return FirstByteFramer(sink, json_or_sse, lambda chosen, to: make_framer(chosen, to, emit))
    raise AssertionError(f"no framer for {framing!r}")
