"""The seam between framing and provider adapters.

A framer cuts bytes into records -- an SSE event, an NDJSON line, an element
of a JSON array, a binary event-stream frame -- and hands each to a
:class:`RecordSink`, together with what it could not frame, in the order the
bytes came.  It knows nothing about providers; adapters know nothing about
bytes on the wire.

Data flows one way.  A framer that finds the body is read by another framer
(the first byte chose one, a JSON body turned out to be an NDJSON stream,
``provider="auto"`` found the provider) returns that one from ``feed``,
having fed it the rest of the chunk; the parser feeds it from then on.  No
framer is told about its successor by a callback, and only the parser holds
the current one.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ("Framer", "RecordFramer", "RecordSink")


class RecordSink(Protocol):
    def on_record(self, name: str | None, data: bytes) -> None:
        """One record: ``name`` is the SSE event type (or frame event type), if any."""

    def on_done(self) -> None:
        """The stream's ``[DONE]`` sentinel arrived."""

    def on_framing_error(self, message: str, raw: bytes | bytearray | str = b"") -> None:
        """Bytes that could not be framed (``raw``: them, or the start of them), in their place
        among the records.  An adapter reports them; ``provider="auto"``, while it decides,
        also learns from them that the stream's start was not clean."""


class Framer(Protocol):
    def feed(self, data: bytes) -> Framer | None:
        """Add bytes.  Returns the framer that reads the stream from now on, if this one
        handed over (it has fed it the rest of ``data``); else None."""

    def close(self) -> None:
        """End of input: report or deliver what is left."""


class RecordFramer(Framer, Protocol):
    """A framer that hands records to a sink (every framer but ``provider="auto"``'s stand-in)."""

    sink: RecordSink

    def feed(self, data: bytes) -> RecordFramer | None:
        """As :meth:`Framer.feed`; the successor of a record framer is one too."""
