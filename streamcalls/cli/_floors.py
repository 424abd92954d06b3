"""The floor a chunk parser is measured against: split the framing, decode each payload, nothing else.

A floor does the least work any parser of that framing must do -- find the
records in the reads and hand each payload to ``msgspec.json.decode`` (into
plain dicts) -- with C-level ``bytes`` methods and no per-record Python
beyond a loop.  ``streamcalls bench`` and ``make bench`` report
streamcalls' time as a multiple of it, measured in the same run.

- SSE: lines split at LF; each ``data: `` payload decoded (``[DONE]`` skipped).
- NDJSON: each line that starts with ``{`` decoded.
- AWS event stream: each message cut out by its prelude's length, its payload decoded.
- Streamed JSON array: the whole body decoded once, at the end (finding
  where each element ends needs a scanner, which no floor has).
- Text: UTF-8 decoded incrementally.

A payload that does not decode is skipped.
"""

from __future__ import annotations

import codecs
import contextlib
import struct
from collections.abc import Callable, Sequence

import msgspec

__all__ = ("FLOOR_WORK", "floor")

_decode = msgspec.json.decode
_DecodeError = msgspec.DecodeError
_prelude = struct.Struct(">II")


def _lines(reads: Sequence[bytes], prefix: bytes, start: int) -> Callable[[], None]:
    done = b"data: [DONE]"

    def run() -> None:
        # The split inlined: a generator would add ~0.1 us per line to the floor.
        tail = bytearray()
        for read in reads:
            if 10 not in read:  # no LF: a piece of a long line (an int test is a memchr)
                tail += read
                continue
            lines = read.split(b"\n")
            if tail:
                tail += lines[0]
                lines[0] = bytes(tail)
                tail.clear()
            last = lines.pop()
            if last:
                tail += last
            for line in lines:
                if line.startswith(prefix) and line != done:
                    try:  # noqa: SIM105 - a with-statement per line costs as much as a small decode
                        _decode(line[start:])
                    except _DecodeError:
                        pass

    return run


def _eventstream(reads: Sequence[bytes]) -> Callable[[], None]:
    def run() -> None:
        buf = bytearray()
        for read in reads:
            buf += read
            pos = 0
            size = len(buf)
            while size - pos >= 12:
                total, headers = _prelude.unpack_from(buf, pos)
                if total < 16:  # not an event stream: nothing more to cut
                    return
                if size - pos < total:
                    break
                payload = buf[pos + 12 + headers : pos + total - 4]
                if payload:
                    try:  # noqa: SIM105 - as above
                        _decode(payload)
                    except _DecodeError:
                        pass
                pos += total
            del buf[:pos]

    return run


def _json_array(reads: Sequence[bytes]) -> Callable[[], None]:
    def run() -> None:
        body = bytearray()
        for read in reads:
            body += read
        with contextlib.suppress(_DecodeError):
            _decode(body)

    return run


def _text(reads: Sequence[bytes]) -> Callable[[], None]:
    decoder_factory = codecs.getincrementaldecoder("utf-8")

    def run() -> None:
        decoder = decoder_factory("replace")
        for read in reads:
            decoder.decode(read)
        decoder.decode(b"", True)

    return run


_FLOORS: dict[str, Callable[[Sequence[bytes]], Callable[[], None]]] = {
    "sse": lambda reads: _lines(reads, b"data: ", 6),
    "ndjson": lambda reads: _lines(reads, b"{", 0),
    "eventstream": _eventstream,
    "json-array": _json_array,
    "text": _text,
}
FLOOR_WORK = {
    "sse": "split lines + msgspec decode of each data payload",
    "ndjson": "split lines + msgspec decode of each line",
    "eventstream": "cut messages by length + msgspec decode of each payload",
    "json-array": "msgspec decode of the whole body at once",
    "text": "incremental UTF-8 decode",
}
"""What the floor of each framing does, in a few words."""


def floor(framing: str, reads: Sequence[bytes]) -> Callable[[], None]:
    """The floor's run over ``reads``; ``framing`` is a key of :data:`FLOOR_WORK`."""
    return _FLOORS[framing](reads)
