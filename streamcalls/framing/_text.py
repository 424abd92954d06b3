"""A plain text stream's bytes, decoded: the text framing has no records.

A model's raw output (``provider="text"``, or a stream ``"auto"`` found to be
text) is decoded as UTF-8 incrementally -- a character split across chunks is
joined; invalid bytes become U+FFFD, or were dropped before framing with
``invalid_utf8="report"`` -- and goes straight to the text channel, where the
text detectors look for calls.
"""

from __future__ import annotations

from .._emitter import Emitter
from ._records import RecordSink
from ._utf8 import Utf8Decoder

__all__ = ("TextFramer",)


class TextFramer:
    """Text has no records: decoded text goes straight to the text channel."""

    __slots__ = ("_decoder", "_emit", "sink")

    def __init__(self, sink: RecordSink, emit: Emitter) -> None:
        self.sink = sink
        self._emit = emit
        self._decoder = Utf8Decoder()

    def feed(self, data: bytes) -> None:
        text = self._decoder.decode(data)
        if text and not self._emit.finished:
            self._emit.text(text)

    def close(self) -> None:
        text = self._decoder.decode(b"", final=True)
        if text and not self._emit.finished:
            self._emit.text(text)
