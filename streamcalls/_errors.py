"""Exceptions.  They signal misuse of the API, never bad input bytes.

Bad bytes from the network are reported as events (:class:`ParseError`,
:class:`ToolCallFailed`, :class:`ProviderError`); the only exception bad input
can cause is :class:`MalformedStreamError` with ``strict=True``, and
:class:`ProviderFailure` with ``raise_provider_errors=True``: only when the
caller opted in.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._events import Event, ParseError, ProviderError

__all__ = (
    "MalformedStreamError",
    "ProviderFailure",
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
    ``strict=True``, :class:`ProviderFailure` with
    ``raise_provider_errors=True``, :class:`ToolCallError` from ``extract``, and
    :class:`StreamInterrupted` / :class:`StreamStalled` when the source of a
    stream breaks off.
    """


class UsageError(StreamError, ValueError):
    """The caller used the API wrongly: an unknown provider, ``feed()`` after ``close()``, ..."""


class MalformedStreamError(StreamError):
    """Raised instead of a :class:`ParseError` event when the parser is ``strict``.

    ``error`` is the ParseError event; ``events`` holds the events that the
    same ``feed()``/``close()`` call produced before it, so nothing is lost
    (the iterating helpers -- ``parse_iter``, ``aparse``, ``from_httpx``, the
    SDK fronts -- yield those events before they raise).
    """

    def __init__(self, error: ParseError, events: Sequence[Event]) -> None:
        super().__init__(error.message)
        self.error = error
        self.events = list(events)


class ProviderFailure(StreamError):
    """Raised instead of a :class:`ProviderError` event with ``raise_provider_errors=True``.

    For a loop that handles a refused or failed request in one ``except``
    (``if exc.status == 429: await anyio.sleep(exc.retry_after or 1)``).
    ``error`` is the ProviderError event; ``events`` holds the events that
    the same ``feed()``/``close()`` call produced before it -- the calls the
    error cut off, as ``ToolCallFailed`` -- which the iterating helpers
    (``aparse``, ``from_httpx``, the SDK fronts, ``run_tools``) yield before
    they raise.
    """

    def __init__(self, error: ProviderError, events: Sequence[Event] = ()) -> None:
        status = "" if error.status is None else f" (HTTP {error.status})"
        super().__init__(f"the provider reported an error{status}: {error.message}")
        self.error = error
        self.events = list(events)

    @property
    def status(self) -> int | None:
        """The error's HTTP status, where known (:attr:`.status <streamcalls.ProviderError.status>`)."""
        return self.error.status

    @property
    def retry_after(self) -> float | None:
        """Seconds to wait before trying again, if it said (:attr:`.retry_after <streamcalls.ProviderError.retry_after>`)."""
        return self.error.retry_after


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
    """The stream stopped carrying content: ``idle_timeout`` or ``first_content_timeout`` ran out.

    Raised by ``aparse``, ``from_httpx`` and the async SDK fronts.  Only
    content counts (text, reasoning, call data, the end, an error): SSE
    comments, Anthropic ``ping`` events and blank keep-alive lines do not
    show that the model is still writing.
    """
