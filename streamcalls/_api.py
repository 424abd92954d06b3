"""One-call helpers over :class:`StreamParser`."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ._errors import MalformedStreamError, ProviderFailure, StreamInterrupted
from ._events import Event
from ._names import ProviderName
from ._parser import StreamParser

__all__ = ("closing_events", "parse", "parse_iter", "parser_iter")

Chunk = bytes | bytearray | memoryview | str


def parse_iter(
    chunks: Iterable[Chunk] | Chunk, provider: ProviderName = "auto", **options: Any
) -> Iterator[Event]:
    """Parse a whole stream lazily: yields each event as soon as its chunk is fed.

    ``chunks`` is ``bytes``/``str`` or any iterable of them (a file opened in
    binary mode, ``httpx.Response.iter_bytes()``, ...).  Options are those
    of :class:`StreamParser`.

    If the iterable raises (the connection dropped), the events that end a
    cut-off stream are yielded (the open call as ``ToolCallFailed``,
    ``StreamFinished("error")``), then :class:`StreamInterrupted` is raised
    from the iterable's error.  With ``strict=True`` or
    ``raise_provider_errors=True``, the events before the error that raises
    are yielded first.

    :raises UsageError: at the call, for an option's value that is wrong.
    """
    return parser_iter(chunks, StreamParser(provider, **options))


def parser_iter(chunks: Iterable[Chunk] | Chunk, parser: StreamParser) -> Iterator[Event]:
    """The events of ``chunks`` through ``parser`` (built, and its options checked, by the caller)."""
    if isinstance(chunks, (bytes, bytearray, memoryview, str)):
        chunks = (chunks,)
    iterator = iter(chunks)
    try:
        while True:
            try:
                chunk = next(iterator)
            except StopIteration:
                break
            except Exception as exc:
                yield from closing_events(parser)
                raise StreamInterrupted(f"the stream broke off before its end: {exc!r}") from exc
            yield from parser.feed(chunk)
        yield from parser.close()
    except (MalformedStreamError, ProviderFailure) as exc:
        yield from exc.events  # strict=True, raise_provider_errors=True: what came before it
        raise


def closing_events(parser: StreamParser) -> list[Event]:
    """What ``close()`` gives for a stream cut off by its source, whatever the options.

    Under ``strict=True`` or ``raise_provider_errors=True`` the error that
    would raise is kept as an event: the source's failure is what is raised.
    """
    try:
        return parser.close()
    except (MalformedStreamError, ProviderFailure) as exc:
        return [*exc.events, exc.error]


def parse(data: Iterable[Chunk] | Chunk, provider: ProviderName = "auto", **options: Any) -> list[Event]:
    """Parse a whole stream (bytes, str, or an iterable of chunks) into a list of events."""
    return list(parse_iter(data, provider, **options))
