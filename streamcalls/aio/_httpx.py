"""Events straight from an httpx streaming response (the ``http`` extra).

httpx itself is never imported: these functions use only the response's
``status_code``, ``reason_phrase``, ``headers``, ``aiter_bytes()``/
``iter_bytes()`` and ``aclose()``/``close()``, so responses of httpx-like
clients work too.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator
from contextlib import aclosing
from typing import Any, Protocol

from .._api import parser_iter
from .._events import Event
from .._names import ProviderName
from .._options import check_idle_timeout
from .._parser import StreamParser
from ..framing._error_bodies import MAX_ERROR_BODY
from ._aparse import aclose_quietly, parser_events
from ._http import bad_response_events, problem_with

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
    **options: Any,
) -> AsyncGenerator[Event, None]:
    """The events of an ``httpx.Response`` opened with ``AsyncClient.stream(...)``.

    The status and content type are checked first: a non-2xx response, or a
    2xx one that is not a stream (an HTML page from a proxy, ...), gives a
    :class:`~streamcalls.ProviderError` with the provider's own message when
    the body is a JSON error object, then ``StreamFinished("error")``.
    Otherwise ``response.aiter_bytes()`` goes through :func:`streamcalls.aparse`
    with ``provider``, ``idle_timeout`` and the
    :class:`~streamcalls.StreamParser` options.

    The response is closed when the events end, fail, are cancelled or are
    closed early (``contextlib.aclosing``).

    ::

        async with httpx.AsyncClient() as client:
            async with client.stream("POST", url, json=request) as response:
                async for event in streamcalls.from_httpx(response):
                    ...

    :raises UsageError: at the call, for an option's value that is wrong
        (before anything is read).
    """
    timeout = check_idle_timeout(idle_timeout)
    return _response_events(response, StreamParser(provider, **options), timeout)


async def _response_events(
    response: AsyncResponse, parser: StreamParser, idle_timeout: float
) -> AsyncGenerator[Event, None]:
    try:
        content_type = response.headers.get("content-type")
        if problem_with(response.status_code, content_type) is not None:
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) >= MAX_ERROR_BODY:
                    break
            for event in bad_response_events(
                response.status_code,
                response.reason_phrase,
                content_type,
                bytes(body[:MAX_ERROR_BODY]),
                response.headers.get("x-amzn-errortype"),
            ):
                yield event
            return
        async with aclosing(parser_events(response.aiter_bytes(), parser, idle_timeout)) as events:
            async for event in events:
                yield event
    finally:
        await aclose_quietly(response)


def from_httpx_sync(
    response: SyncResponse, provider: ProviderName = "auto", **options: Any
) -> Generator[Event, None, None]:
    """:func:`from_httpx` for a response of a sync ``httpx.Client.stream(...)``, through ``parse_iter``.

    :raises UsageError: at the call, for an option's value that is wrong.
    """
    return _sync_response_events(response, StreamParser(provider, **options))


def _sync_response_events(response: SyncResponse, parser: StreamParser) -> Generator[Event, None, None]:
    try:
        content_type = response.headers.get("content-type")
        if problem_with(response.status_code, content_type) is not None:
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) >= MAX_ERROR_BODY:
                    break
            yield from bad_response_events(
                response.status_code,
                response.reason_phrase,
                content_type,
                bytes(body[:MAX_ERROR_BODY]),
                response.headers.get("x-amzn-errortype"),
            )
            return
        yield from parser_iter(response.iter_bytes(), parser)
    finally:
        response.close()
