"""Dropping the one UTF-8 byte-order mark a stream may start with.

The WHATWG event-stream rules strip a leading BOM, and a BOM is never text
or JSON, so every stream loses it, whatever the provider.  It is stripped
as bytes, at offset 0 only, and may arrive split over up to three chunks.
"""

from __future__ import annotations

__all__ = ("LeadingBom",)

BOM = b"\xef\xbb\xbf"


class LeadingBom:
    __slots__ = ("_held", "done", "removed")

    def __init__(self) -> None:
        self._held = b""  # the start of a BOM, until its last byte arrives
        self.done = False
        self.removed = 0  # bytes dropped from the stream's start (3 once a BOM was)

    def strip(self, data: bytes) -> bytes:
        """The chunk without the BOM (or the part of it this chunk holds)."""
        held = self._held + data
        if held.startswith(BOM):
            self.done = True
            self.removed = len(BOM)
            return held[3:]
        if len(held) < 3 and BOM.startswith(held):
            self._held = held
            return b""
        self.done = True
        return held

    def flush(self) -> bytes:
        """At end of input: bytes held as a possible BOM that never completed."""
        held = self._held
        self._held = b""
        self.done = True
        return held
