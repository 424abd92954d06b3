"""The async front: a parser driven by an async iterable of chunks.

Like every I/O-facing module of streamcalls, this one only loops over
:meth:`StreamParser.feed`; the parsing itself stays sans-IO.  It is imported
on first use of ``streamcalls.aparse`` (never by ``import streamcalls``).
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator, AsyncIterable
from contextlib import aclosing
from typing import Any

import anyio

from .._api import Chunk
from .._errors import UsageError
from .._events import Event
from .._names import ProviderName
from .._parser import StreamParser
from ._drive import Patience, drive, patience

__all__ = ("CLOSE_TIMEOUT", "aclose_quietly", "aparse", "parser_events")

CLOSE_TIMEOUT = 5.0
"""Seconds a source's ``aclose()`` may take when a stream ends or is cancelled."""


async def aclose_quietly(*resources: object) -> None:
    """Close each resource: its ``aclose()``, else its ``close()`` (awaited if async).

    Called from ``finally`` blocks: a cancelled stream must still release its
    connection, so the closing runs in a shielded scope, bounded by
    :data:`CLOSE_TIMEOUT`.  A resource given twice is closed once.
    """
    seen: set[int] = set()
    with anyio.move_on_after(CLOSE_TIMEOUT, shield=True):
        for resource in resources:
            if id(resource) in seen:
                continue
            seen.add(id(resource))
            close = getattr(resource, "aclose", None) or getattr(resource, "close", None)
            if close is None:
                continue
            result = close()
            if inspect.isawaitable(result):
                await result


def aparse(
    source: AsyncIterable[Chunk],
    provider: ProviderName = "auto",
    *,
    idle_timeout: float | None = None,
    first_content_timeout: float | None = None,
    **options: Any,
) -> AsyncGenerator[Event, None]:
    """Parse an async stream of chunks: yields each event as soon as its chunk is fed.

    ``source`` is any async iterable of ``bytes``/``str`` chunks, e.g.
    ``httpx.Response.aiter_bytes()``; for sync iterables use
    :func:`streamcalls.parse_iter`.  Options are those of
    :class:`~streamcalls.StreamParser` (``raise_provider_errors=True`` makes
    a provider's error raise :class:`~streamcalls.ProviderFailure`).

    Reading is pulled by the consumer: the next chunk is read only when the
    events of the previous one have been taken, so a slow consumer slows the
    reading and nothing buffers the whole response.  When the stream ends,
    fails, is cancelled or is closed early (``aclose()``, e.g. through
    ``contextlib.aclosing``), the source is closed: its iterator's ``aclose()``
    and its own, if it has them.

    Faults: if the source raises (the connection dropped), the events that
    end a cut-off stream are yielded -- the call that was open as
    ``ToolCallFailed``, ``StreamFinished("error")`` -- and then
    :class:`~streamcalls.StreamInterrupted` is raised from the source's error.

    Stalls end the same way, with :class:`~streamcalls.StreamStalled`; only
    content counts (text, reasoning, call data, the end, an error), never a
    keep-alive (SSE comments, Anthropic ``ping`` events, blank lines):

    - ``idle_timeout``: seconds without content, once content has come;
    - ``first_content_timeout``: seconds for the first content.  Until it
      comes -- a reasoning model may think for minutes, with keep-alives --
      ``idle_timeout`` counts only silence (no bytes at all).

    Only the time spent waiting for the source counts, not the consumer's
    time between events.

    :raises UsageError: at the call, if ``source`` is not an async iterable,
        a timeout is not a positive number of seconds, or an option's value
        is wrong (see :class:`~streamcalls.StreamParser`).
    """
    if not hasattr(source, "__aiter__"):
        hint = (
            "use streamcalls.parse_iter() for sync iterables"
            if hasattr(source, "__iter__")
            else "pass an async iterable of bytes or str chunks"
        )
        raise UsageError(f"aparse() takes an async iterable, not {type(source).__name__}: {hint}")
    limits = patience(idle_timeout, first_content_timeout)
    return parser_events(source, StreamParser(provider, **options), limits)


async def parser_events(
    source: AsyncIterable[Chunk], parser: StreamParser, limits: Patience
) -> AsyncGenerator[Event, None]:
    """The events of ``source`` through ``parser`` (options already checked); the source is closed at the end."""
    chunks = source.__aiter__()
    try:
        async with aclosing(drive(chunks, parser.feed, parser, limits)) as events:
            async for event in events:
                yield event
    finally:
        await aclose_quietly(chunks, source)
