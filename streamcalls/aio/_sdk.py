"""Events from the official SDKs' stream objects (the ``sdk`` extra).

The SDKs are never imported: their stream objects are iterables of pydantic
event objects, which go through :meth:`StreamParser.feed_event` one by one.

- openai: ``client.chat.completions.create(..., stream=True)`` gives an
  ``AsyncStream[ChatCompletionChunk]`` (or a sync ``Stream``);
  ``client.chat.completions.stream(...)`` gives a ``ChatCompletionStream``
  whose ``"chunk"`` events carry the raw chunks (its derived events, such as
  ``content.delta``, are skipped); ``client.responses.create(..., stream=True)``
  and ``client.responses.stream(...)`` give Responses events.
- anthropic: ``client.messages.create(..., stream=True)`` gives an
  ``AsyncStream[RawMessageStreamEvent]``; ``async with client.messages.stream(...)
  as stream`` gives a ``MessageStream`` whose raw events are read and whose
  derived ones (``text``, ``input_json``, ...) are skipped.

The fault contract is the one of every front (:mod:`._drive`): an error the
provider sends in the stream, which the SDK raises as its ``APIError``, is
read from the exception as the ``ProviderError`` it is; any other exception
of the SDK's iteration (the connection dropped) ends the stream with the
events of a cut-off stream, then :class:`~streamcalls.StreamInterrupted`
from the SDK's error.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator, AsyncIterable, Callable, Generator, Iterable, Mapping
from contextlib import aclosing
from typing import Any, Protocol, overload

from .._api import closing_events
from .._errors import MalformedStreamError, ProviderFailure, StreamInterrupted, UsageError
from .._events import Event
from .._names import ProviderName
from .._parser import StreamParser
from ..framing._error_bodies import error_in
from ._aparse import aclose_quietly
from ._drive import Patience, drive, patience

__all__ = ("from_anthropic_stream", "from_openai_stream")

Select = Callable[[Any], Any]  # an SDK object -> the provider event in it, or None to skip it


class SDKObject(Protocol):
    """An SDK's event object: a pydantic model (what its ``model_dump`` is, is the SDK's)."""

    @property
    def model_dump(self) -> Callable[..., Any]: ...


StreamItem = SDKObject | Mapping[str, Any]
"""What an SDK stream yields, as the fronts' overloads take it.

A complete response (``create()`` without ``stream=True``) is a pydantic model
too, and iterable -- over ``(field, value)`` pairs, which are neither: so
type checkers refuse it here, as the fronts do at run time.
"""

_ANTHROPIC_RAW = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "ping",
        "error",
    }
)

_HOW = {
    "from_openai_stream": "client.chat.completions.create(..., stream=True) or client.responses.stream(...)",
    "from_anthropic_stream": "client.messages.create(..., stream=True) or client.messages.stream(...)",
}


def _openai_event(obj: Any) -> Any:
    kind = getattr(obj, "type", None)
    if kind == "chunk":  # ChatCompletionStream's wrapper of a raw chunk
        return obj.chunk
    if isinstance(kind, str) and not kind.startswith(("response.", "error")):
        return None  # a ChatCompletionStream's derived event: its chunk came before it
    return obj


def _anthropic_event(obj: Any) -> Any:
    kind = getattr(obj, "type", None)
    if kind is None and isinstance(obj, dict):
        kind = obj.get("type")
    return obj if kind in _ANTHROPIC_RAW else None


@overload
def from_openai_stream(
    stream: AsyncIterable[StreamItem],
    provider: ProviderName = "auto",
    *,
    idle_timeout: float | None = None,
    first_content_timeout: float | None = None,
    **options: Any,
) -> AsyncGenerator[Event, None]: ...
@overload
def from_openai_stream(
    stream: Iterable[StreamItem],
    provider: ProviderName = "auto",
    *,
    idle_timeout: None = None,  # a sync stream cannot be waited on
    first_content_timeout: None = None,
    **options: Any,
) -> Generator[Event, None, None]: ...
def from_openai_stream(
    stream: AsyncIterable[StreamItem] | Iterable[StreamItem],
    provider: ProviderName = "auto",
    *,
    idle_timeout: float | None = None,
    first_content_timeout: float | None = None,
    **options: Any,
) -> AsyncGenerator[Event, None] | Generator[Event, None, None]:
    """The events of an openai SDK stream: async for an ``AsyncStream``, sync for a ``Stream``.

    ``provider="auto"`` tells the kind of stream (Chat Completions or
    Responses) from its first object.  Options are those of
    :class:`~streamcalls.StreamParser`, and for an async stream
    ``idle_timeout`` and ``first_content_timeout`` as for
    :func:`~streamcalls.aparse`.  The SDK stream is closed when the events
    end, fail or are closed early.

    An error event in the stream, which the SDK raises as its ``APIError``,
    becomes a :class:`~streamcalls.ProviderError` (or, with
    ``raise_provider_errors=True``, raises
    :class:`~streamcalls.ProviderFailure`); any other exception from the
    SDK (the connection dropped) ends the events as for a cut-off stream --
    the open calls fail, ``StreamFinished("error")`` -- and raises
    :class:`~streamcalls.StreamInterrupted` from it.

    :raises UsageError: at the call, for what is not a stream: a complete
        response (``create()`` without ``stream=True``: pass ``stream=True``,
        or read its calls with :func:`~streamcalls.extract`), a coroutine
        (``await`` it), a stream manager (enter it with ``async with``), a
        timeout given with a sync stream, or an option's wrong value.
    """
    return _from_sdk(
        "from_openai_stream",
        stream,
        _openai_event,
        provider,
        idle_timeout=idle_timeout,
        first_content_timeout=first_content_timeout,
        options=options,
    )


@overload
def from_anthropic_stream(
    stream: AsyncIterable[StreamItem],
    provider: ProviderName = "anthropic",
    *,
    idle_timeout: float | None = None,
    first_content_timeout: float | None = None,
    **options: Any,
) -> AsyncGenerator[Event, None]: ...
@overload
def from_anthropic_stream(
    stream: Iterable[StreamItem],
    provider: ProviderName = "anthropic",
    *,
    idle_timeout: None = None,  # a sync stream cannot be waited on
    first_content_timeout: None = None,
    **options: Any,
) -> Generator[Event, None, None]: ...
def from_anthropic_stream(
    stream: AsyncIterable[StreamItem] | Iterable[StreamItem],
    provider: ProviderName = "anthropic",
    *,
    idle_timeout: float | None = None,
    first_content_timeout: float | None = None,
    **options: Any,
) -> AsyncGenerator[Event, None] | Generator[Event, None, None]:
    """The events of an anthropic SDK stream (``AsyncStream``, ``MessageStream``, or their sync twins).

    As :func:`from_openai_stream`: the same options, the same faults, the
    same misuse refused.  The SDK reads Anthropic's ``ping`` events itself,
    so they never count as content for ``idle_timeout``.
    """
    return _from_sdk(
        "from_anthropic_stream",
        stream,
        _anthropic_event,
        provider,
        idle_timeout=idle_timeout,
        first_content_timeout=first_content_timeout,
        options=options,
    )


def _from_sdk(
    front: str,
    stream: object,
    select: Select,
    provider: ProviderName,
    *,
    idle_timeout: float | None,
    first_content_timeout: float | None,
    options: dict[str, Any],
) -> AsyncGenerator[Event, None] | Generator[Event, None, None]:
    _check_stream(front, stream)
    if isinstance(stream, AsyncIterable):
        limits = patience(idle_timeout, first_content_timeout)
        return _aevents(stream, select, StreamParser(provider, **options), limits)
    if idle_timeout is not None or first_content_timeout is not None:
        raise UsageError(
            f"{front}(): idle_timeout and first_content_timeout need an async stream "
            f"(the {type(stream).__name__} given is read synchronously, and nothing can wait on it)"
        )
    return _events(stream, select, StreamParser(provider, **options))  # type: ignore[arg-type]


def _check_stream(front: str, stream: object) -> None:
    """What is not an SDK stream is refused with what to do instead.

    :raises UsageError: for a complete response, a coroutine, a stream
        manager not entered, text or bytes, or anything else that does not iterate.
    """
    kind = type(stream).__name__
    if hasattr(stream, "model_dump") or isinstance(stream, Mapping):
        raise UsageError(
            f"{front}() takes a stream, and this is a complete response ({kind}): create() was called "
            f"without stream=True.  For the events as they come, call {_HOW[front]}; for the calls of a "
            "complete response, use streamcalls.extract(response)"
        )
    if inspect.isawaitable(stream):
        raise UsageError(
            f"{front}() takes a stream, and this is a {kind} that gives one: await it first "
            f"(stream = await {_HOW[front].split(' or ')[0]})"
        )
    if isinstance(stream, (str, bytes, bytearray, memoryview)):
        raise UsageError(
            f"{front}() takes an SDK stream of event objects; parse bytes or text with streamcalls.parse()"
        )
    if isinstance(stream, (AsyncIterable, Iterable)):
        return
    if hasattr(stream, "__aenter__") or hasattr(stream, "__enter__"):
        raise UsageError(
            f"{front}() takes the stream a {kind} gives when entered: "
            f"async with ... as stream (or with ... as stream), then {front}(stream)"
        )
    raise UsageError(f"{front}() takes an SDK stream (an iterable of event objects), not {kind}")


def _error_events(parser: StreamParser, exc: Exception) -> list[Event] | None:
    """The events of the provider's error an SDK raised for an error event in the stream (None: not one).

    openai's ``APIError`` holds the record's ``error`` object as its ``body``,
    anthropic's the whole ``{"type": "error", "error": {...}}`` event; both
    are fed as the event they came as.

    :raises ProviderFailure: with ``raise_provider_errors=True``.
    """
    body = getattr(exc, "body", None)
    if not isinstance(body, Mapping):
        return None
    record = dict(body) if "error" in body else {"type": "error", "error": dict(body)}
    if error_in(record) is None:
        return None
    return parser.feed_event(record)


async def _aevents(
    stream: AsyncIterable[Any], select: Select, parser: StreamParser, limits: Patience
) -> AsyncGenerator[Event, None]:
    objects = stream.__aiter__()

    def feed(obj: Any) -> list[Event]:
        event = select(obj)
        return [] if event is None else parser.feed_event(event)

    def error_events(exc: Exception) -> list[Event] | None:
        return _error_events(parser, exc)

    try:
        async with aclosing(drive(objects, feed, parser, limits, error_events)) as events:
            async for event in events:
                yield event
    finally:
        await aclose_quietly(objects, stream)


def _events(stream: Iterable[Any], select: Select, parser: StreamParser) -> Generator[Event, None, None]:
    """The sync twin of :func:`_aevents`, with the same fault contract (and no time limits)."""
    objects = iter(stream)
    try:
        while True:
            try:
                obj = next(objects)
            except StopIteration:
                break
            except Exception as exc:
                yield from _after_failure(parser, exc)
                break
            event = select(obj)
            if event is not None:
                yield from _checked(parser.feed_event, event)
        yield from _checked(parser.close)
    finally:
        for resource in (objects, stream):
            close = getattr(resource, "close", None)
            if close is not None:
                close()


def _after_failure(parser: StreamParser, failure: Exception) -> Generator[Event, None, None]:
    """The events after the SDK raised: its provider error's, else a cut-off stream's and StreamInterrupted."""
    try:
        said = _error_events(parser, failure)
    except ProviderFailure as exc:
        yield from exc.events
        raise exc from failure
    if said is None:
        yield from closing_events(parser)
        raise StreamInterrupted(f"the stream broke off before its end: {failure!r}") from failure
    yield from said


def _checked(call: Callable[..., list[Event]], *args: Any) -> Generator[Event, None, None]:
    """``call``'s events; if an option makes it raise, the events before the error come first."""
    try:
        events = call(*args)
    except (MalformedStreamError, ProviderFailure) as exc:
        yield from exc.events
        raise
    yield from events
