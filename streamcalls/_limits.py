"""Size limits that keep a parser's memory bounded on hostile input."""

from __future__ import annotations

import msgspec

from ._errors import UsageError

__all__ = ("DEFAULT_LIMITS", "Limits")

_MiB = 1024 * 1024

# The smallest value each limit takes.  Every limit is a count of at least 1,
# except max_calls, which may be 0: a stream whose calls must all fail (each
# is reported, none runs) while its text still comes through.
_MINIMUM = {"max_calls": 0}


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
    - ``max_calls``: calls in one stream (0: every call fails, naming this limit).
    - ``max_detect_bytes``: bytes held while ``provider="auto"`` decides.

    Every value is an ``int`` of at least 1 (``max_calls``: at least 0).

    :raises UsageError: for any other value.
    """

    max_line_bytes: int = 80 * _MiB
    max_event_bytes: int = 80 * _MiB
    max_arguments_bytes: int = 64 * _MiB
    max_buffered_bytes: int = 256 * _MiB
    max_json_depth: int = 512
    max_calls: int = 10_000
    max_detect_bytes: int = 1 * _MiB

    def __post_init__(self) -> None:
        # msgspec checks annotations only when decoding, never in __init__:
        # without this, Limits(max_calls=-1) would silently drop every call.
        for name in self.__struct_fields__:
            value = getattr(self, name)
            least = _MINIMUM.get(name, 1)
            if type(value) is not int or value < least:
                raise UsageError(f"Limits({name}=...) must be an int of at least {least}, not {value!r}")


DEFAULT_LIMITS = Limits()
"""What a parser gets without ``limits=`` (one instance, checked once)."""
