"""Server-sent events for the targets that write them: one JSON object per event.

JSON strings escape CR and LF, so a record is always one ``data:`` line.
"""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = ("DONE", "json", "sse")

json = msgspec.json.encode
"""A value as JSON bytes (UTF-8, compact)."""

DONE = b"data: [DONE]\n\n"
"""The end marker of OpenAI's streams and of the AI SDK's UI message stream."""


def sse(record: Any, event: str | None = None) -> bytes:
    """One event: ``record`` as JSON on a ``data:`` line, after an ``event:`` line if it is named."""
    if event is None:
        return b"data: " + json(record) + b"\n\n"
    return b"event: " + event.encode() + b"\ndata: " + json(record) + b"\n\n"
