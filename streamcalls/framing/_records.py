"""The seam between framing and provider adapters.

A framer cuts bytes into records -- an SSE event, an NDJSON line, an element
of a JSON array, a binary event-stream frame -- and hands each to a
:class:`RecordSink`.  It knows nothing about providers; adapters know
nothing about bytes on the wire.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ("Framer", "RecordSink")


class RecordSink(Protocol):
    def on_record(self, name: str | None, data: bytes) -> None:
        """One record: ``name`` is the SSE event type (or frame event type), if any."""

    def on_done(self) -> None:
        """The stream's ``[DONE]`` sentinel arrived."""


class Framer(Protocol):
    sink: RecordSink

    def feed(self, data: bytes) -> None:
        """Add bytes; completed records go to ``sink``."""

    def close(self) -> None:
        """End of input: report or deliver what is left."""
