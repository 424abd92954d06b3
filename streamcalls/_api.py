"""One-call helpers over :class:`StreamParser`."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ._errors import StreamInterrupted
from ._events import Event
from ._names import ProviderName
from ._parser import StreamParser

__all__ = ("parse", "parse_iter", "parser_iter")

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
    from the iterable's error.

    :raises UsageError: at the call, for an option's value that is wrong.
    """
    return parser_iter(chunks, StreamParser(provider, **options))


def parser_iter(chunks: Iterable[Chunk] | Chunk, parser: StreamParser) -> Iterator[Event]:
    """The events of ``chunks`` through ``parser`` (built, and its options checked, by the caller)."""
    if isinstance(chunks, (bytes, bytearray, memoryview, str)):
        chunks = (chunks,)
    iterator = iter(chunks)
    while True:
        try:
            chunk = next(iterator)
        except StopIteration:
            break
        except Exception as exc:
            yield from parser.close()
            raise StreamInterrupted(f"the stream broke off before its end: {exc!r}") from exc
        yield from parser.feed(chunk)
    yield from parser.close()


def parse(data: Iterable[Chunk] | Chunk, provider: ProviderName = "auto", **options: Any) -> list[Event]:
    """Parse a whole stream (bytes, str, or an iterable of chunks) into a list of events."""
    return list(parse_iter(data, provider, **options))
