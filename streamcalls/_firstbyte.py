"""A framer that lets the stream's first byte choose the framing.

One provider can answer in more than one framing: Gemini's
``streamGenerateContent`` is SSE with ``?alt=sse`` and one streamed JSON
array without it, and the caller who names the provider need not say which
URL was used.  The first byte that is not whitespace decides (the parser
has already dropped a BOM), and the real framer is built then and gets every
byte from that one on.  Leading whitespace is dropped, not held.
"""

from __future__ import annotations

from collections.abc import Callable

from ._records import Framer, RecordSink

__all__ = ("FirstByteFramer", "json_or_sse")

_WHITESPACE = b" \t\r\n"


def json_or_sse(first: int) -> str:
    """``[`` or ``{`` means a JSON body (a streamed array, or an error object); anything else SSE."""
    return "json-array" if first in b"[{" else "sse"


class FirstByteFramer:
    """Holds back until the first significant byte, then delegates to the chosen framer."""

    __slots__ = ("_build", "_choose", "_framer", "_sink")

    def __init__(
        self,
        sink: RecordSink,
        choose: Callable[[int], str],
        build: Callable[[str, RecordSink], Framer],
    ) -> None:
        self._sink = sink
        self._choose = choose
        self._build = build
        self._framer: Framer | None = None

    @property
    def sink(self) -> RecordSink:
        return self._sink

    @sink.setter
    def sink(self, sink: RecordSink) -> None:
        self._sink = sink
        if self._framer is not None:
            self._framer.sink = sink

    def feed(self, data: bytes) -> None:
        framer = self._framer
        if framer is None:
            data = data.lstrip(_WHITESPACE)
            if not data:
                return
            framer = self._build(self._choose(data[0]), self._sink)
            self._framer = framer
        framer.feed(data)

    def close(self) -> None:
        if self._framer is not None:
            self._framer.close()
