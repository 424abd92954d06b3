"""Events straight from an httpx streaming response (the ``http`` extra).

httpx itself is never imported: these functions use only the response's
``status_code``, ``reason_phrase``, ``headers``, ``aiter_bytes()``/
``iter_bytes()`` and ``aclose()``/``close()``, so responses of httpx-like
clients work too.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator
from contextlib import aclosing
from typing import Any, Protocol

from .._api import parser_iter
from .._errors import ProviderFailure, UsageError
from .._events import Event, ProviderError
from .._names import ProviderName
from .._parser import StreamParser
from ..framing._error_bodies import MAX_ERROR_BODY
from ._aparse import aclose_quietly, parser_events
from ._drive import Patience, patience
from ._http import bad_response_events, problem_with, retry_after_in

__all__ = ("from_httpx", "from_httpx_sync")


class _Headers(Protocol):
    def get(self, key: str, default: Any = None) -> Any: ...


class AsyncResponse(Protocol):
    """What :func:`from_httpx` uses of an ``httpx.Response``."""

    @property
    def status_code(self) -> int: ...
    @property
    def reason_phrase(self) -> str: ...
    @property
    def headers(self) -> _Headers: ...
    def aiter_bytes(self) -> AsyncIterator[bytes]: ...
    async def aclose(self) -> None: ...


class SyncResponse(Protocol):
    """What :func:`from_httpx_sync` uses of an ``httpx.Response``."""

    @property
    def status_code(self) -> int: ...
    @property
    def reason_phrase(self) -> str: ...
    @property
    def headers(self) -> _Headers: ...
    def iter_bytes(self) -> Iterator[bytes]: ...
    def close(self) -> None: ...


def from_httpx(
    response: AsyncResponse,
    provider: ProviderName = "auto",
    *,
    idle_timeout: float | None = None,
    first_content_timeout: float | None = None,
    **options: Any,
) -> AsyncGenerator[Event, None]:
    """The events of an ``httpx.Response`` opened with ``AsyncClient.stream(...)``.

    The status and content type are checked first: a non-2xx response, or a
    2xx one that is not a stream (an HTML page from a proxy, ...), gives a
    :class:`~streamcalls.ProviderError` with the provider's own message when
    the body is a JSON error object, the HTTP status as ``status`` and the
    ``Retry-After`` header's delay as ``retry_after``, then
    ``StreamFinished("error")``.  Otherwise ``response.aiter_bytes()`` goes
    through :func:`streamcalls.aparse` with ``provider``, ``idle_timeout``,
    ``first_content_timeout`` and the :class:`~streamcalls.StreamParser`
    options; with ``raise_provider_errors=True`` either error raises
    :class:`~streamcalls.ProviderFailure` instead.

    The response is closed when the events end, fail, are cancelled or are
    closed early (``contextlib.aclosing``).

    ::

        async with httpx.AsyncClient() as client:
            async with client.stream("POST", url, json=request) as response:
                async for event in streamcalls.from_httpx(response):
                    ...

    :raises UsageError: at the call, for the response of a sync
        ``httpx.Client`` (use :func:`from_httpx_sync`), or an option's value
        that is wrong (before anything is read).
    """
    _check_response(response, "aiter_bytes", "__aiter__", "from_httpx_sync", "a sync httpx.Client")
    limits = patience(idle_timeout, first_content_timeout)
    parser = StreamParser(provider, **options)
    return _response_events(response, parser, limits, options.get("raise_provider_errors", False))


def _check_response(response: object, method: str, iteration: str, twin: str, client: str) -> None:
    """A response for the other twin (sync for async, or the reverse) is misuse, told at the call.

    httpx gives a sync client's response a body stream that only iterates
    synchronously, and an async client's one that only iterates
    asynchronously (a body read in full does both).
    """
    if not callable(getattr(response, method, None)):
        raise UsageError(f"expected an httpx.Response (with {method}()), not {type(response).__name__}")
    stream = getattr(response, "stream", None)
    if stream is not None and not hasattr(stream, iteration):
        raise UsageError(
            f"this response comes from {client}, whose body cannot be read this way: "
            f"use streamcalls.{twin}(response)"
        )


async def _response_events(
    response: AsyncResponse, parser: StreamParser, limits: Patience, raises: bool
) -> AsyncGenerator[Event, None]:
    try:
        content_type = response.headers.get("content-type")
        if problem_with(response.status_code, content_type) is not None:
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) >= MAX_ERROR_BODY:
                    break
            for event in _error_events(response, content_type, bytes(body[:MAX_ERROR_BODY]), raises):
                yield event
            return
        async with aclosing(parser_events(response.aiter_bytes(), parser, limits)) as events:
            async for event in events:
                yield event
    finally:
        await aclose_quietly(response)


def _error_events(
    response: AsyncResponse | SyncResponse, content_type: str | None, body: bytes, raises: bool
) -> list[Event]:
    headers = response.headers
    events = bad_response_events(
        response.status_code,
        response.reason_phrase,
        content_type,
        body,
        error_type=headers.get("x-amzn-errortype"),
        retry_after=retry_after_in(headers.get("retry-after"), headers.get("retry-after-ms"), time.time()),
    )
    error = events[0]
    if raises and type(error) is ProviderError:
        raise ProviderFailure(error)
    return events


def from_httpx_sync(
    response: SyncResponse, provider: ProviderName = "auto", **options: Any
) -> Generator[Event, None, None]:
    """:func:`from_httpx` for a response of a sync ``httpx.Client.stream(...)``, through ``parse_iter``.

    :raises UsageError: at the call, for the response of an
        ``httpx.AsyncClient`` (use :func:`from_httpx`), or an option's value
        that is wrong.
    """
    _check_response(response, "iter_bytes", "__iter__", "from_httpx", "an httpx.AsyncClient")
    parser = StreamParser(provider, **options)
    return _sync_response_events(response, parser, options.get("raise_provider_errors", False))


def _sync_response_events(
    response: SyncResponse, parser: StreamParser, raises: bool
) -> Generator[Event, None, None]:
    try:
        content_type = response.headers.get("content-type")
        if problem_with(response.status_code, content_type) is not None:
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) >= MAX_ERROR_BODY:
                    break
            yield from _error_events(response, content_type, bytes(body[:MAX_ERROR_BODY]), raises)
            return
        yield from parser_iter(response.iter_bytes(), parser)
    finally:
        response.close()
