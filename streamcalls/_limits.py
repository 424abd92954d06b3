"""Size limits that keep a parser's memory bounded on hostile input."""

from __future__ import annotations

import msgspec

__all__ = ("Limits",)

_MiB = 1024 * 1024


class Limits(msgspec.Struct, frozen=True, kw_only=True):
    """Bounds on what one stream may make a parser hold.

    A breach never raises: it fails the call concerned (or reports a
    :class:`~streamcalls.ParseError` for framing) with the limit's name in the
    message, and parsing goes on.

    - ``max_line_bytes``: one SSE/NDJSON line, one element of a JSON array
      stream, and a body that is one JSON document (an error, a response).
      Ollama and Gemini send a whole call in one line, so this is above
      ``max_arguments_bytes``.
    - ``max_event_bytes``: the data of one SSE event or one binary frame.
    - ``max_arguments_bytes``: the arguments of one call (counted in characters).
    - ``max_buffered_bytes``: the arguments of all the calls open at once, together.
    - ``max_json_depth``: nesting of a call's arguments.
    - ``max_calls``: calls in one stream.
    - ``max_detect_bytes``: bytes held while ``provider="auto"`` decides.
    """

    max_line_bytes: int = 80 * _MiB
    max_event_bytes: int = 80 * _MiB
    max_arguments_bytes: int = 64 * _MiB
    max_buffered_bytes: int = 256 * _MiB
    max_json_depth: int = 512
    max_calls: int = 10_000
    max_detect_bytes: int = 1 * _MiB
