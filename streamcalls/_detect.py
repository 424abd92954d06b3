"""``provider="auto"``: choosing framing and provider from what arrives.

Two steps.  The first bytes choose the framing: a 0x00 byte opening a
12-byte prelude whose CRC matches means a binary AWS event stream, an SSE
field (``data:``, ``event:``, ``id:``, ``retry:``, ``:``) means SSE, ``{``
NDJSON, ``[{`` a streamed JSON array of objects, anything else plain text
(a model's text may well start with ``[``).  Then the first complete
record chooses the provider: each adapter's ``recognizes`` is asked in
turn.  A record no adapter claims is reported as a
:class:`~streamcalls.ParseError` naming what it held, and the next record
is tried.

A stream that looked like NDJSON or a JSON array but whose first record is
not JSON, or is a bare ``{"name": ..., "arguments": ...}`` object, is the
model's own text: its bytes, kept until then (up to ``max_detect_bytes``),
are replayed into a text stream.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from ._adapter import Adapter
from ._emitter import Emitter
from ._eventstream import PRELUDE_BYTES, valid_prelude
from ._framing import make_framer
from ._records import Framer, RecordSink
from .providers import ADAPTERS, DETECTABLE
from .providers.text import TextAdapter

__all__ = ("AutoDetector", "sniff_framing")

_BOM = b"\xef\xbb\xbf"
_SSE_FIELDS = (b"data:", b"event:", b"id:", b"retry:", b":")
_WHITESPACE = b" \t\r\n"
# What a framing's provider is when its first record is an error object,
# which no provider can be told from, or when its end sentinel comes first.
_ERROR_DEFAULT = {"sse": "openai", "ndjson": "ollama", "json-array": "gemini", "eventstream": "bedrock"}

Resolved = Callable[[Framer, Adapter], None]


def sniff_framing(raw: bytes | bytearray) -> tuple[str, int] | None:
    """The framing the stream's first bytes show, and where its data starts
    (after a BOM); None while the bytes seen so far could still be either."""
    if raw[:1] == b"\0":  # an event-stream message's length starts with 0 below 16 MiB
        if len(raw) < PRELUDE_BYTES:
            return None
        if valid_prelude(raw):
            return "eventstream", 0
    start = 0
    if raw[:3] == _BOM:
        start = 3
    elif _BOM.startswith(raw):
        return None
    body = bytes(raw[start:]).lstrip(_WHITESPACE)
    if not body:
        return None
    first = body[:1]
    if first == b"{":
        return "ndjson", start
    if first == b"[" and "json-array" in _FRAMINGS:
        second = body[1:].lstrip(_WHITESPACE)[:1]
        if not second:
            return None
        return ("json-array" if second == b"{" else "text"), start
    for field in _SSE_FIELDS:
        if body.startswith(field):
            return "sse", start
        if len(body) < len(field) and field.startswith(body):
            return None
    return "text", start


# Framings with a framer; extended as framers are added.
_FRAMINGS = {"sse", "ndjson", "text", "json-array", "eventstream"}


def _keys(obj: Any) -> str:
    if isinstance(obj, dict):
        return "an object with keys " + ", ".join(sorted(map(str, obj))[:8])
    return f"a JSON {type(obj).__name__}"


class AutoDetector:
    """Stands in for the framer until the provider is known."""

    __slots__ = (
        "_emit",
        "_first",
        "_framer",
        "_framing",
        "_keep_raw",
        "_raw",
        "_resolved",
        "_to_text_done",
        "adapter",
        "sink",
    )

    def __init__(self, emit: Emitter, resolved: Resolved) -> None:
        self._emit = emit
        self._resolved = resolved
        self._raw = bytearray()
        self._framer: Framer | None = None
        self._framing = ""
        self._keep_raw = False
        self._first = True
        self._to_text_done = False  # fell back to text: the old framer's records are replayed
        self.adapter: Adapter | None = None
        self.sink: RecordSink = self

    # -- bytes -----------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        framer = self._framer
        if framer is not None:
            if self._keep_raw:
                self._hold(data)
            framer.feed(data)
            return
        self._raw += data
        found = sniff_framing(self._raw)
        if found is None:
            if len(self._raw) <= self._emit.limits.max_detect_bytes:
                return
            found = ("text", 0)
        framing, start = found
        raw = bytes(self._raw[start:])
        self._raw = bytearray()
        if framing == "text":
            self._to_text(raw)
            return
        self._framing = framing
        self._keep_raw = framing in ("ndjson", "json-array")  # could still turn out to be text
        if self._keep_raw:
            self._raw += raw
        self._framer = make_framer(framing, self, self._emit)
        self._framer.feed(raw)

    def _hold(self, data: bytes) -> None:
        self._raw += data
        if len(self._raw) > self._emit.limits.max_detect_bytes:
            self._keep_raw = False  # too late to be text: stop keeping bytes
            self._raw = bytearray()

    def close(self) -> None:
        framer = self._framer
        if framer is not None:
            framer.close()
        elif self._raw.strip(_WHITESPACE).lstrip(_BOM):
            raw = bytes(self._raw)
            self._to_text(raw[3:] if raw.startswith(_BOM) else raw)
        if self._framer is not framer and self._framer is not None:
            self._framer.close()  # the text framer that closing made us fall back to

    # -- the first records ---------------------------------------------------

    def on_record(self, name: str | None, data: bytes) -> None:
        if self._to_text_done:
            return  # these bytes were replayed as text already
        adapter = self.adapter
        if adapter is not None:  # a record after the decision, in the same feed
            adapter.on_record(name, data)
            return
        first = self._first
        self._first = False
        try:
            obj = msgspec.json.decode(data)
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
            if first and self._keep_raw:
                self._to_text(bytes(self._raw))
            else:
                self._emit.parse_error(f"cannot tell the provider: {self._framing} record is not JSON", data)
            return
        for cls in DETECTABLE:
            if cls.recognizes(name, obj):
                self._use(cls).on_record(name, data)
                return
        if first and self._keep_raw and TextAdapter.recognizes(name, obj):
            self._to_text(bytes(self._raw))
            return
        default = ADAPTERS.get(_ERROR_DEFAULT.get(self._framing, ""))
        if default is not None and isinstance(obj, dict) and "error" in obj:
            self._use(default).on_record(name, data)
            return
        self._emit.parse_error(
            f"cannot tell the provider from a {self._framing} record holding {_keys(obj)}", data
        )

    def on_done(self) -> None:
        if self._to_text_done:
            return
        # Only OpenAI sends [DONE]; a JSON array's "]" ends a Gemini stream.
        adapter = self.adapter or self._use(ADAPTERS[_ERROR_DEFAULT[self._framing]])
        adapter.on_done()

    def _use(self, cls: type[Adapter]) -> Adapter:
        adapter = cls(self._emit)
        self.adapter = adapter
        self._keep_raw = False
        self._raw = bytearray()
        framer = self._framer
        assert framer is not None
        framer.sink = adapter
        self._resolved(framer, adapter)
        return adapter

    def _to_text(self, raw: bytes) -> None:
        adapter = TextAdapter(self._emit)
        self.adapter = adapter
        self._to_text_done = True
        self._keep_raw = False
        self._raw = bytearray()
        framer = make_framer("text", adapter, self._emit)
        self._framer = framer
        self._resolved(framer, adapter)
        framer.feed(raw)
