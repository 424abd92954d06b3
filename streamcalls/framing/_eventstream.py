"""AWS event-stream framing (``application/vnd.amazon.eventstream``), used by Bedrock.

A stream is a sequence of binary messages, all integers big-endian::

    total length      u32   the whole message, these 4 bytes included
    headers length    u32
    prelude CRC       u32   CRC-32 of the 8 bytes above
    headers           headers-length bytes
    payload           total - headers length - 16 bytes
    message CRC       u32   CRC-32 of every byte before it

A header is: name length (u8), name (UTF-8), value type (u8), value.  Value
types and sizes: 0 true and 1 false (no value), 2 byte (1), 3 short (2),
4 int (4), 5 long (8), 6 bytes and 7 string (u16 length, then the bytes),
8 timestamp (8, milliseconds), 9 UUID (16).

``:message-type`` says what a message is:

- ``event``: ``:event-type`` names it, the payload is JSON.  Handed on as
  ``on_record(event_type, payload)``.
- ``exception``: a modelled error, ``:exception-type`` names it (Bedrock:
  ``throttlingException``, ...), the payload is JSON.  Handed on as
  ``on_record(exception_type, payload)``: in the service's model exceptions
  are members of the same union as events, as in boto3's decoded dicts.
- ``error``: an unmodelled error, in headers only (``:error-code``,
  ``:error-message``).  Handed on as ``on_record(":error", payload)`` with a
  JSON payload ``{"code": ..., "message": ...}`` (header names starting with
  ``:`` are reserved, so no event or exception can have this name).

With ``invalid_utf8="report"`` each payload's invalid UTF-8 is dropped and
reported at its stream offset before the payload is handed on (``clean``).

Problems are :class:`~streamcalls.ParseError` events.  A message whose CRC
does not match, or whose headers cannot be read, is skipped by its length
and framing goes on.  A prelude whose CRC does not match cannot be trusted
for the length, so nothing after it can be framed: that is reported once and
the rest of the input is ignored; likewise a message longer than
``max_event_bytes`` (skipping its bytes could splice the events around it
into something they never said).

Bytes are appended to one bytearray and each message is cut out once it is
complete; the prelude tells how many bytes to wait for, so nothing is ever
rescanned, and the buffer is compacted once per ``feed``.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable

import msgspec

from ._records import RecordSink

__all__ = ("ERROR_RECORD", "EventStreamFramer", "HeaderValue", "read_headers", "valid_prelude")

PRELUDE_BYTES = 12
_OVERHEAD = PRELUDE_BYTES + 4  # prelude and message CRC
ERROR_RECORD = ":error"

HeaderValue = bool | int | bytes | str
# (payload, its stream offset, where to report) -> the payload without what it reported
PayloadCleaner = Callable[[bytes, int, RecordSink], bytes]

_u16 = struct.Struct(">H")
_u32 = struct.Struct(">I")
_prelude = struct.Struct(">III")
# Value types with a fixed size: (size, struct format or "" for raw bytes).
_FIXED = {2: (1, ">b"), 3: (2, ">h"), 4: (4, ">i"), 5: (8, ">q"), 8: (8, ">q"), 9: (16, "")}


class HeaderError(ValueError):
    """Headers that cannot be read."""


def valid_prelude(data: bytes | bytearray) -> bool:
    """Do the first 12 bytes hold a prelude whose CRC matches?"""
    if len(data) < PRELUDE_BYTES:
        return False
    crc: int = _u32.unpack_from(data, 8)[0]
    return zlib.crc32(bytes(data[:8])) == crc


def read_headers(data: bytes | memoryview) -> dict[str, HeaderValue]:
    """Decode a message's header block.  Raises :class:`HeaderError`."""
    headers: dict[str, HeaderValue] = {}
    pos = 0
    end = len(data)
    while pos < end:
        size = data[pos]
        pos += 1
        name = bytes(data[pos : pos + size]).decode("utf-8", "replace")
        pos += size
        if pos >= end:
            raise HeaderError(f"header {name!r} has no value type")
        kind = data[pos]
        pos += 1
        value: HeaderValue
        if kind in (0, 1):
            value = kind == 0
        elif kind in (6, 7):
            if pos + 2 > end:
                raise HeaderError(f"header {name!r} is cut off")
            (length,) = _u16.unpack_from(data, pos)
            pos += 2
            raw = bytes(data[pos : pos + length])
            pos += length
            value = raw if kind == 6 else raw.decode("utf-8", "replace")
        elif kind in _FIXED:
            width, fmt = _FIXED[kind]
            raw = bytes(data[pos : pos + width])
            pos += width
            if len(raw) < width:
                raise HeaderError(f"header {name!r} is cut off")
            value = struct.unpack(fmt, raw)[0] if fmt else raw
        else:
            raise HeaderError(f"header {name!r} has unknown value type {kind}")
        if pos > end:
            raise HeaderError(f"header {name!r} is cut off")
        headers[name] = value
    return headers


class EventStreamFramer:
    """Cuts an event stream into messages and hands on their payloads."""

    __slots__ = ("_broken", "_buf", "_clean", "_max", "_offset", "sink")

    def __init__(self, sink: RecordSink, max_event_bytes: int, clean: PayloadCleaner | None = None) -> None:
        self.sink = sink
        self._max = max_event_bytes
        self._clean = clean  # drops a payload's invalid UTF-8 (invalid_utf8="report")
        self._buf = bytearray()
        self._offset = 0  # stream offset of _buf[0], for error messages
        self._broken = False  # framing was lost: the rest is ignored

    def feed(self, data: bytes) -> None:
        if self._broken:
            return
        buf = self._buf
        buf += data
        pos = 0
        size = len(buf)
        while size - pos >= PRELUDE_BYTES:
            total, headers_length, prelude_crc = _prelude.unpack_from(buf, pos)
            if zlib.crc32(buf[pos : pos + 8]) != prelude_crc:
                self._lost(pos, "prelude CRC does not match")
                return
            if total < _OVERHEAD or headers_length > total - _OVERHEAD:
                self._lost(pos, f"prelude lengths are impossible (total {total}, headers {headers_length})")
                return
            if total > self._max:
                self._lost(pos, f"message of {total} bytes exceeds max_event_bytes={self._max}")
                return
            if size - pos < total:
                break  # wait for the rest of this message
            self._message(buf, pos, total, headers_length)
            pos += total
        if pos:
            del buf[:pos]
            self._offset += pos

    def close(self) -> None:
        if self._buf and not self._broken:
            self.sink.on_framing_error(
                f"event stream ended inside a message at byte {self._offset} "
                f"({len(self._buf)} bytes of it arrived; truncated)"
            )
        self._buf = bytearray()

    def _lost(self, pos: int, why: str) -> None:
        self._broken = True
        self._buf = bytearray()
        where = f"event stream message at byte {self._offset + pos}"
        self.sink.on_framing_error(f"{where}: {why}; the rest of the stream is ignored")

    def _message(self, buf: bytearray, pos: int, total: int, headers_length: int) -> None:
        end = pos + total
        view = memoryview(buf)
        try:
            (crc,) = _u32.unpack_from(buf, end - 4)
            if zlib.crc32(view[pos : end - 4]) != crc:
                self._skip(pos, "message CRC does not match")
                return
            headers_end = pos + PRELUDE_BYTES + headers_length
            try:
                headers = read_headers(view[pos + PRELUDE_BYTES : headers_end])
            except HeaderError as exc:
                self._skip(pos, f"headers cannot be read: {exc}")
                return
            payload = bytes(view[headers_end : end - 4])
        finally:
            view.release()  # a live export would make the caller's ``del buf[...]`` fail
        if self._clean is not None:
            payload = self._clean(payload, self._offset + headers_end, self.sink)
        kind = headers.get(":message-type")
        if kind == "event":
            name = headers.get(":event-type")
            if isinstance(name, str) and name:
                self.sink.on_record(name, payload)
            else:
                self._skip(pos, "event message has no :event-type header")
        elif kind == "exception":
            name = headers.get(":exception-type")
            self.sink.on_record(name if isinstance(name, str) and name else "exception", payload)
        elif kind == "error":
            error = {"code": headers.get(":error-code"), "message": headers.get(":error-message")}
            self.sink.on_record(ERROR_RECORD, msgspec.json.encode(error))
        else:
            self._skip(pos, f"unknown :message-type {kind!r}")

    def _skip(self, pos: int, why: str) -> None:
        self.sink.on_framing_error(f"event stream message at byte {self._offset + pos}: {why}; skipped")
