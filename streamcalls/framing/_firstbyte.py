"""A framer that lets a body's first byte choose how it is read.

One provider can answer in more than one way.  Gemini's
``streamGenerateContent`` is SSE with ``?alt=sse`` and one streamed JSON
array without it, and the caller who names the provider need not say which
URL was used.  And any provider answers a rejected request with one JSON
error object, a request without ``stream: true`` with one complete
response, and a proxy in front of it with an HTML page.  The first byte
that is not whitespace tells them apart (the parser has already dropped a
BOM; see :func:`body_framing`), and the chosen framer is built then and gets
every byte from that one on: :meth:`FirstByteFramer.feed` returns it, and the
parser feeds it from then on.  Leading whitespace is dropped, not held.
"""

from __future__ import annotations

from collections.abc import Callable

from ._records import RecordFramer, RecordSink

__all__ = ("FirstByteFramer", "body_framing", "json_or_sse")

_WHITESPACE = b" \t\r\n"
_LT = ord("<")
_BRACE = ord("{")
_BRACKET = ord("[")


def body_framing(framing: str, first: int) -> str:
    """How to read a body that starts with byte ``first``, from a provider whose streams use ``framing``.

    No stream starts with ``<``: that is a page, a proxy's error page
    (``"html"``).  An SSE or AWS event-stream body never starts with ``{`` or
    ``[``: that is one JSON document (``"json-document"``) -- except Gemini's
    ``[``, its streamed JSON array.  An NDJSON body that starts with ``{`` or
    ``[`` is a stream if its first value closes on its first line (and is
    not an error object), else one pretty-printed document
    (``"json-or-ndjson"``).
    """
    if first == _LT:
        return "html"
    if framing == "ndjson":
        return "json-or-ndjson" if first in (_BRACE, _BRACKET) else "ndjson"
    if framing == "json-array-or-sse":  # Gemini: the URL's ?alt=sse decides
        return "json-document" if first == _BRACE else json_or_sse(first)
    return "json-document" if first in (_BRACE, _BRACKET) else framing


def json_or_sse(first: int) -> str:
    """The framing of a Gemini stream that starts with byte ``first``: ``[`` or ``{`` a JSON body, else SSE."""
    return "json-array" if first in b"[{" else "sse"


class FirstByteFramer:
    """Holds back until the first significant byte, then hands over to the framer it chooses."""

    __slots__ = ("_build", "_choose", "sink")

    def __init__(
        self,
        sink: RecordSink,
        choose: Callable[[int], str],
        build: Callable[[str, RecordSink], RecordFramer],
    ) -> None:
        self.sink = sink
        self._choose = choose
        self._build = build

    def feed(self, data: bytes) -> RecordFramer | None:
        """Returns the chosen framer (or the one it handed over to), fed ``data``, once a byte chose it."""
        data = data.lstrip(_WHITESPACE)
        if not data:
            return None
        framer = self._build(self._choose(data[0]), self.sink)
        return framer.feed(data) or framer

    def close(self) -> None:
        return None  # nothing came but blank space
