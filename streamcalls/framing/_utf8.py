"""Invalid UTF-8: replaced where text is decoded, or dropped and reported before framing.

Two policies, chosen with ``StreamParser(invalid_utf8=...)``:

- ``"replace"`` (default): each invalid sequence becomes U+FFFD where the
  text is decoded (the WHATWG rule for event streams): payloads by msgspec,
  a text stream by :class:`Utf8Decoder`.
- ``"report"``: :class:`Utf8Filter` sits between the bytes and the framer
  (the parser feeds the framer its valid pieces) and drops only the invalid bytes, whatever
  framing they are in -- inside a JSON string, a comment, an SSE field name --
  so that the valid text of the same event still comes through.  Each run of
  invalid bytes is one :class:`~streamcalls.ParseError` naming its offset in
  the stream (bytes from the stream's first byte, a BOM included).  A binary
  AWS event stream is not text: its frames pass untouched and each payload is
  checked on its own (:func:`drop_invalid`).

Either way the result does not depend on where the chunks split: a sequence
cut by a chunk's end waits for the next chunk, a run of invalid bytes is
reported once it ends, and its report comes after the events of the bytes
before it and before those of the bytes after it.
"""

from __future__ import annotations

import codecs
import re

from .._events import ParseError
from ._eventstream import PRELUDE_BYTES, valid_prelude
from ._records import RecordSink

__all__ = ("Utf8Decoder", "Utf8Filter", "drop_invalid")

_utf8_decode = codecs.utf_8_decode
# "surrogateescape" turns each invalid byte into one lone surrogate
# U+DC80..U+DCFF, which valid UTF-8 never decodes to: one C-level decode and
# one regex search find every run, in time linear in the chunk.
_ESCAPED = re.compile("[\udc80-\udcff]+")
_SHOWN = 16  # bytes of a run shown in its report


class Utf8Decoder:
    """Incremental UTF-8 decoding with U+FFFD for invalid bytes (a text stream's)."""

    __slots__ = ("_carry",)

    def __init__(self) -> None:
        self._carry = b""  # an incomplete sequence at the end of the last chunk

    def decode(self, data: bytes, final: bool = False) -> str:
        """The text ``data`` completes (``final``: no more bytes follow)."""
        if self._carry:
            data = self._carry + data
        text, used = _utf8_decode(data, "replace", final)
        self._carry = data[used:]
        return text


def _invalid_runs(data: bytes, final: bool) -> tuple[list[tuple[int, int]], int]:
    """The runs of invalid bytes in ``data`` as (start, end), and how many bytes are settled.

    The unsettled rest is the start of a character that the next bytes may
    complete (none when ``final``).
    """
    if data.isascii():
        return [], len(data)
    text, used = _utf8_decode(data, "surrogateescape", final)
    runs = []
    byte = char = 0
    for match in _ESCAPED.finditer(text):
        start = match.start()
        byte += len(text[char:start].encode())
        end = byte + match.end() - start  # one surrogate per byte
        runs.append((byte, end))
        byte, char = end, match.end()
    return runs, used


def _report(offset: int, length: int, shown: bytes) -> tuple[str, str]:
    """The message and the raw text of the report of a run of invalid bytes."""
    raw = shown.hex(" ") + (" ..." if length > len(shown) else "")
    plural = "" if length == 1 else "s"
    return f"invalid UTF-8 at stream byte {offset} ({length} byte{plural}); dropped", raw


def drop_invalid(data: bytes, offset: int, sink: RecordSink) -> bytes:
    """A self-contained block (an event-stream payload at stream ``offset``) without its invalid
    bytes, each run reported to ``sink``."""
    runs, _ = _invalid_runs(data, True)
    if not runs:
        return data
    kept = []
    pos = 0
    for start, end in runs:
        kept.append(data[pos:start])
        sink.on_framing_error(*_report(offset + start, end - start, data[start : min(end, start + _SHOWN)]))
        pos = end
    kept.append(data[pos:])
    return b"".join(kept)


class Utf8Filter:
    """Cuts a byte stream into its valid UTF-8 pieces and a report for each invalid run between them.

    ``binary_gate``: the stream may be a binary AWS event stream (``provider="auto"``):
    while its first byte is 0x00 the first 12 bytes are held, and a valid
    event-stream prelude there turns the filter off for good.
    """

    __slots__ = ("_carry", "_gate", "_offset", "_run_at", "_run_length", "_run_shown", "binary")

    def __init__(self, *, binary_gate: bool) -> None:
        self._gate = binary_gate
        self.binary = False
        self._carry = b""  # bytes not settled yet: a cut character, or a possible prelude
        self._offset = 0  # stream offset of the first byte not settled yet
        self._run_at = 0  # the run of invalid bytes not reported yet: its offset,
        self._run_length = 0  # its length (0: none),
        self._run_shown = b""  # and its first bytes

    def skipped(self, count: int) -> None:
        """``count`` bytes at the stream's start never reach the filter (a BOM)."""
        self._offset += count

    def split(self, data: bytes) -> list[bytes | ParseError]:
        """The valid pieces of ``data`` with a report in place of each run that ended."""
        if not data:
            return []
        if self._carry:
            data = self._carry + data
            self._carry = b""
        if self._gate:
            if data[0] == 0 and len(data) < PRELUDE_BYTES:
                self._carry = data
                return []
            self._gate = False
            self.binary = data[0] == 0 and valid_prelude(data)
        if self.binary:
            return [data]
        return self._check(data, False)

    def flush(self) -> list[bytes | ParseError]:
        """At the end of input: what was held, an unfinished character reported as invalid."""
        data = self._carry
        self._carry = b""
        self._gate = False
        if self.binary:
            return [data] if data else []
        return self._check(data, True)

    def _check(self, data: bytes, final: bool) -> list[bytes | ParseError]:
        runs, used = _invalid_runs(data, final)
        pieces: list[bytes | ParseError] = []
        pos = 0
        for start, end in runs:
            if start > pos:
                self._valid(data[pos:start], pieces)
            if not self._run_length:
                self._run_at = self._offset + start
            room = _SHOWN - len(self._run_shown)
            if room > 0:
                self._run_shown += data[start : min(end, start + room)]
            self._run_length += end - start
            pos = end
        if used > pos:
            self._valid(data[pos:used], pieces)
        self._carry = data[used:]
        self._offset += used
        if final and self._run_length:
            pieces.append(self._end_run())
        return pieces

    def _valid(self, piece: bytes, pieces: list[bytes | ParseError]) -> None:
        if self._run_length:
            pieces.append(self._end_run())
        pieces.append(piece)

    def _end_run(self) -> ParseError:
        report = ParseError(*_report(self._run_at, self._run_length, self._run_shown))
        self._run_length = 0
        self._run_shown = b""
        return report
