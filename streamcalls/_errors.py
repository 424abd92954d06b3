"""Exceptions.  They signal misuse of the API, never bad input bytes.

Bad bytes from the network are reported as events (:class:`ParseError`,
:class:`ToolCallFailed`, :class:`ProviderError`); the only exception bad input
can cause is :class:`MalformedStreamError`, and only when the caller opted in
with ``strict=True``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._events import Event, ParseError

__all__ = (
    "MalformedStreamError",
    "StreamError",
    "StreamInterrupted",
    "StreamStalled",
    "ToolCallError",
    "UsageError",
)


class StreamError(Exception):
    """Base class of every exception streamcalls raises.

    Bad input is never one of them: it is an event.  They are
    :class:`UsageError` for misuse, :class:`MalformedStreamError` with
    ``strict=True``, :class:`ToolCallError` from ``extract``, and
    :class:`StreamInterrupted` / :class:`StreamStalled` when the source of a
    stream breaks off.
    """


class UsageError(StreamError, ValueError):
    """The caller used the API wrongly: an unknown provider, ``feed()`` after ``close()``, ..."""


class MalformedStreamError(StreamError):
    """Raised instead of a :class:`ParseError` event when the parser is ``strict``.

    ``error`` is the ParseError event; ``events`` holds the events that the
    same ``feed()``/``close()`` call produced before it, so nothing is lost.
    """

    def __init__(self, error: ParseError, events: Sequence[Event]) -> None:
        super().__init__(error.message)
        self.error = error
        self.events = list(events)


class ToolCallError(StreamError, ValueError):
    """A complete response holds a tool call that cannot be decoded.

    ``raw`` is the offending text.
    """

    def __init__(self, message: str, raw: str) -> None:
        super().__init__(message)
        self.raw = raw


class StreamInterrupted(StreamError):
    """The source of a stream failed before its end (the connection dropped, ...).

    Raised by the iterating helpers (``parse_iter``, ``aparse``, ``from_httpx``)
    after they have yielded what the parser's ``close()`` gives for a cut-off
    stream: the call that was open as ``ToolCallFailed``, and
    ``StreamFinished("error")``.  The source's own exception is ``__cause__``.
    """


class StreamStalled(StreamInterrupted):
    """No data came for ``idle_timeout`` seconds (``aparse(..., idle_timeout=...)``)."""
