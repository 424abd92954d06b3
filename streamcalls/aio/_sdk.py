"""Events from the official SDKs' stream objects (the ``sdk`` extra).

The SDKs are never imported: their stream objects are iterables of pydantic
event objects, which go through :meth:`StreamParser.feed_event` one by one.

- openai: ``client.chat.completions.create(..., stream=True)`` gives an
  ``AsyncStream[ChatCompletionChunk]`` (or a sync ``Stream``);
  ``client.chat.completions.stream(...)`` gives a ``ChatCompletionStream``
  whose ``"chunk"`` events carry the raw chunks (its derived events, such as
  ``content.delta``, are skipped).
- anthropic: ``client.messages.create(..., stream=True)`` gives an
  ``AsyncStream[RawMessageStreamEvent]``; ``async with client.messages.stream(...)
  as stream`` gives a ``MessageStream`` whose raw events are read and whose
  derived ones (``text``, ``input_json``, ...) are skipped.

Errors the SDK raises while iterating (its ``APIError`` for an error event
in the stream, connection errors) propagate as the SDK's own exceptions;
the events before them have been yielded.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Callable, Generator, Iterable
from typing import Any, overload

from .._errors import UsageError
from .._events import Event
from .._names import ProviderName
from .._parser import StreamParser
from ._aparse import aclose_quietly

__all__ = ("from_anthropic_stream", "from_openai_stream")

Select = Callable[[Any], Any]  # an SDK object -> the provider event in it, or None to skip it

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
    stream: AsyncIterable[Any], provider: ProviderName = "auto", **options: Any
) -> AsyncGenerator[Event, None]: ...
@overload
def from_openai_stream(
    stream: Iterable[Any], provider: ProviderName = "auto", **options: Any
) -> Generator[Event, None, None]: ...
def from_openai_stream(
    stream: AsyncIterable[Any] | Iterable[Any], provider: ProviderName = "auto", **options: Any
) -> AsyncGenerator[Event, None] | Generator[Event, None, None]:
    """The events of an openai SDK stream: async for an ``AsyncStream``, sync for a ``Stream``.

    ``provider="auto"`` tells the kind of stream from its first object.  The
    SDK stream is closed when the events end, fail or are closed early.
    """
    return _from_sdk(stream, _openai_event, provider, options)


@overload
def from_anthropic_stream(
    stream: AsyncIterable[Any], provider: ProviderName = "anthropic", **options: Any
) -> AsyncGenerator[Event, None]: ...
@overload
def from_anthropic_stream(
    stream: Iterable[Any], provider: ProviderName = "anthropic", **options: Any
) -> Generator[Event, None, None]: ...
def from_anthropic_stream(
    stream: AsyncIterable[Any] | Iterable[Any], provider: ProviderName = "anthropic", **options: Any
) -> AsyncGenerator[Event, None] | Generator[Event, None, None]:
    """The events of an anthropic SDK stream (``AsyncStream``, ``MessageStream``, or their sync twins)."""
    return _from_sdk(stream, _anthropic_event, provider, options)


def _from_sdk(
    stream: AsyncIterable[Any] | Iterable[Any],
    select: Select,
    provider: ProviderName,
    options: dict[str, Any],
) -> AsyncGenerator[Event, None] | Generator[Event, None, None]:
    parser = StreamParser(provider, **options)
    if isinstance(stream, AsyncIterable):
        return _aevents(stream, select, parser)
    if isinstance(stream, Iterable):
        return _events(stream, select, parser)
    raise UsageError(f"expected an SDK stream (an iterable of events), not {type(stream).__name__}")


async def _aevents(
    stream: AsyncIterable[Any], select: Select, parser: StreamParser
) -> AsyncGenerator[Event, None]:
    objects = stream.__aiter__()
    try:
        async for obj in objects:
            event = select(obj)
            if event is not None:
                for out in parser.feed_event(event):
                    yield out
        for out in parser.close():
            yield out
    finally:
        await aclose_quietly(objects, stream)


def _events(stream: Iterable[Any], select: Select, parser: StreamParser) -> Generator[Event, None, None]:
    objects = iter(stream)
    try:
        for obj in objects:
            event = select(obj)
            if event is not None:
                yield from parser.feed_event(event)
        yield from parser.close()
    finally:
        for resource in (objects, stream):
            close = getattr(resource, "close", None)
            if close is not None:
                close()
