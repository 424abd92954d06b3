"""The loop every async front runs, and how a stream ends when its source fails or stalls.

:func:`drive` reads an item (a chunk of bytes, an SDK's event object), feeds
it to the parser and yields the events, one read at a time, as the consumer
pulls.  It keeps the fault contract once for every front:

- the source raises (the connection dropped): the events that end a cut-off
  stream -- the calls that were open as ``ToolCallFailed``,
  ``StreamFinished("error")`` -- then :class:`~streamcalls.StreamInterrupted`
  from the source's error;
- the source stops carrying content (:class:`Patience`): the same events, then
  :class:`~streamcalls.StreamStalled`;
- ``strict=True`` or ``raise_provider_errors=True`` raises: the events the
  same feed gave before it, then that exception.

Whether a read carried content is the parser's to say
(:attr:`StreamParser.progress <streamcalls.StreamParser.progress>`); how long
a read may take is :class:`Patience`'s, which only adds up the seconds it is
told; the clock is read here.
"""

from __future__ import annotations

import math
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import TypeVar

import anyio

from .._api import closing_events
from .._errors import MalformedStreamError, ProviderFailure, StreamInterrupted, StreamStalled
from .._events import Event
from .._options import check_timeout
from .._parser import StreamParser

__all__ = ("Patience", "closing_events", "drive", "patience")

T = TypeVar("T")

ErrorEvents = Callable[[Exception], "list[Event] | None"]
"""What a front reads in its source's exception: the events of the provider's error it carries (None: none)."""


class Patience:
    """How long the next read may wait before the stream counts as stalled.

    Two limits, in seconds (``math.inf``: none):

    - ``idle``: once content has come, the longest time without content.
      Keep-alives (SSE comments, pings, blank lines) do not count as
      content: a stalled model behind a live connection is caught.
    - ``first``: the longest time for the first content.  Before it, the
      model may think for minutes while the server sends keep-alives; those
      show the connection is alive, so until then ``idle`` counts silence
      (no item at all), and ``first`` bounds the whole wait.

    Only the time spent waiting for the source counts, never the time the
    consumer takes between two events.
    """

    __slots__ = ("_silent", "_waited", "first", "idle", "started")

    def __init__(self, idle: float = math.inf, first: float = math.inf) -> None:
        self.idle = idle
        self.first = first
        self.started = False  # content has come
        self._silent = 0.0  # seconds waited since the last content
        self._waited = 0.0  # seconds waited before the first content

    @property
    def bounded(self) -> bool:
        """Is there a limit at all?  (Without one, nothing needs to tell content from keep-alives.)"""
        return self.idle != math.inf or self.first != math.inf

    def allowance(self) -> float:
        """Seconds the next read may take."""
        if self.started:
            return self.idle - self._silent
        return min(self.idle, self.first - self._waited)

    def read(self, seconds: float, content: bool) -> None:
        """A read took ``seconds`` and brought an item; ``content``: the item carried content."""
        if content:
            self.started = True
            self._silent = 0.0
        elif self.started:
            self._silent += seconds
        else:
            self._waited += seconds

    def stalled(self) -> str:
        """Why the stream is abandoned, once a read ran out of its allowance."""
        if self.started:
            return f"no content for {self.idle:g} s (keep-alives do not count); the stream was abandoned"
        if self.first - self._waited <= self.idle:
            return f"no content within first_content_timeout={self.first:g} s; the stream was abandoned"
        return f"no data for {self.idle:g} s; the stream was abandoned"


def patience(idle_timeout: object, first_content_timeout: object) -> Patience:
    """The :class:`Patience` of a front's options.

    :raises UsageError: for a limit that is not a positive number of seconds (or None).
    """
    return Patience(
        check_timeout("idle_timeout", idle_timeout),
        check_timeout("first_content_timeout", first_content_timeout),
    )


async def drive(
    items: AsyncIterator[T],
    feed: Callable[[T], list[Event]],
    parser: StreamParser,
    limits: Patience,
    error_events: ErrorEvents | None = None,
) -> AsyncGenerator[Event, None]:
    """The events of ``items`` fed one by one through ``feed`` (the caller closes ``items``).

    ``error_events`` reads an exception of the source that carries the
    provider's own error (an SDK raises one for an error event in the
    stream): its events end the stream as that error would have, with no
    exception.
    """
    watch = limits.bounded  # reading parser.progress starts its counting: only when a limit needs it
    while True:
        started = anyio.current_time()
        failure: Exception | None = None
        # Nothing is yielded inside the scope: a cancel scope must not span a yield.
        with anyio.move_on_after(limits.allowance()) as scope:
            try:
                item = await items.__anext__()
            except StopAsyncIteration:
                break
            except Exception as exc:
                failure = exc
        if failure is not None:
            try:
                said = None if error_events is None else error_events(failure)
            except ProviderFailure as exc:  # raise_provider_errors=True
                for event in exc.events:
                    yield event
                raise exc from failure
            if said is None:
                for event in closing_events(parser):
                    yield event
                raise StreamInterrupted(f"the stream broke off before its end: {failure!r}") from failure
            for event in said:
                yield event
            break
        if scope.cancelled_caught:
            for event in closing_events(parser):
                yield event
            raise StreamStalled(limits.stalled())
        waited = anyio.current_time() - started
        before = parser.progress if watch else 0
        try:
            events = feed(item)
        except (MalformedStreamError, ProviderFailure) as exc:
            for event in exc.events:
                yield event
            raise
        if watch:
            limits.read(waited, parser.progress != before)
        for event in events:
            yield event
    try:
        events = parser.close()
    except (MalformedStreamError, ProviderFailure) as exc:
        for event in exc.events:
            yield event
        raise
    for event in events:
        yield event
