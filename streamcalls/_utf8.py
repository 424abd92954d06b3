"""Decoding a byte stream as UTF-8 when its chunks may split characters.

Two policies for invalid bytes, chosen with ``StreamParser(invalid_utf8=...)``:
``"replace"`` puts U+FFFD in their place (the WHATWG rule for event
streams); ``"report"`` drops them and reports each run as a
:class:`~streamcalls.ParseError` naming its offset in the stream.  Either way
the result does not depend on where the chunks split: an incomplete
sequence at a chunk's end waits for the next chunk.
"""

from __future__ import annotations

import codecs

from ._emitter import Emitter

__all__ = ("Utf8Decoder",)

_utf8_decode = codecs.utf_8_decode


class Utf8Decoder:
    __slots__ = ("_carry", "_emit", "_offset", "_replace")

    def __init__(self, emit: Emitter) -> None:
        self._emit = emit
        self._replace = not emit.report_invalid_utf8
        self._carry = b""  # an incomplete sequence at the end of the last chunk
        self._offset = 0  # stream offset of _carry's first byte

    def decode(self, data: bytes, final: bool = False) -> str:
        """The text ``data`` completes (``final``: no more bytes follow)."""
        if self._carry:
            data = self._carry + data
        if self._replace:
            text, used = _utf8_decode(data, "replace", final)
        else:
            text, used = self._decode_reporting(data, final)
        self._carry = data[used:]
        self._offset += used
        return text

    def _decode_reporting(self, data: bytes, final: bool) -> tuple[str, int]:
        emit = self._emit
        pos = 0
        while True:
            try:
                text, used = _utf8_decode(data[pos:] if pos else data, "strict", final)
            except UnicodeDecodeError as exc:
                start, end = pos + exc.start, pos + exc.end
                before = _utf8_decode(data[pos:start], "strict", True)[0]
                if before and not emit.finished:
                    emit.text(before)  # the text before the bad bytes comes first
                emit.parse_error(
                    f"invalid UTF-8 at stream byte {self._offset + start}; dropped", data[start:end].hex(" ")
                )
                pos = end
                continue
            return text, pos + used
