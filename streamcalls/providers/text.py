"""A plain text stream: the model's raw output, with no provider framing.

Bytes are decoded as UTF-8 incrementally (a character split across chunks
is joined; invalid bytes become U+FFFD, or were dropped before framing
with ``invalid_utf8="report"``) and go to the text channel, where
the text detectors look for calls.  The end of input is the end marker.
"""

from __future__ import annotations

from typing import Any

from .._adapter import Adapter
from .._emitter import Emitter
from .._records import RecordSink
from .._utf8 import Utf8Decoder

__all__ = ("TextAdapter", "TextFramer")


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


class TextAdapter(Adapter):
    name = "text"
    framing = "text"

    __slots__ = ()

    @classmethod
    def recognizes(cls, name: str | None, obj: Any) -> bool:
        # A bare JSON tool call as the first thing in a stream is model text.
        return (
            isinstance(obj, dict)
            and isinstance(obj.get("name"), str)
            and ("arguments" in obj or "parameters" in obj)
        )

    def on_record(self, name: str | None, data: bytes) -> None:
        self.emit.text(Utf8Decoder().decode(data, final=True))

    def on_object(self, obj: Any) -> None:
        if isinstance(obj, str):
            self.emit.text(obj)
        else:
            self.emit.parse_error("a text stream takes str events only", repr(obj)[:200])
