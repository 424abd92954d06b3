"""``provider="auto"``: choosing framing and provider from what arrives.

Two steps.  The first bytes choose the framing: a 0x00 byte opening a
12-byte prelude whose CRC matches means a binary AWS event stream, an SSE
field (``data:``, ``event:``, ``id:``, ``retry:``, ``:``) means SSE, ``{``
NDJSON -- or one JSON document, when the first value spans several lines --,
``[{`` a streamed JSON array of objects, ``<!doctype html`` or ``<html`` (in
any case) a proxy's error page, anything else plain text (a model's text
may well start with ``[`` or ``<``).  Then the first complete record chooses
the provider: each adapter's ``recognizes`` is asked in turn.  A record no
adapter claims is reported as a :class:`~streamcalls.ParseError` naming what
it held, and the next record is tried -- unless it is an error object in any
provider's shape (a :class:`~streamcalls.ProviderError`), or, as a body's
first JSON value, a complete response (the caller forgot ``stream: true``;
read by :mod:`._nonstream`).

A stream that looked like NDJSON or a JSON array but whose first record is
not JSON, is a bare ``{"name": ..., "arguments": ...}`` object, or (a JSON
document) is neither an error nor a response, is the model's own text: its
bytes, kept until then (up to ``max_detect_bytes``), are replayed into a
text stream.

The detector is the framer's sink while it decides, so what the framer
reports comes to it in order with the records: a report before the first
record means the stream did not start cleanly (it cannot be text then), and
once the stream fell back to text, the framer's reports about the bytes
replayed as text are dropped before they go out.  Nothing is taken back from
the events.  Once the provider is known, ``feed`` returns the framer (its
sink now the adapter) and the parser feeds it from then on.
"""

from __future__ import annotations

import re

import msgspec

from ._adapter import Adapter
from ._emitter import Emitter
from ._nonstream import Unreadable, describe, document_provider, load, read_document
from .framing._error_bodies import error_in
from .framing._eventstream import PRELUDE_BYTES, valid_prelude
from .framing._make import framer_for
from .framing._records import Framer, RecordFramer
from .providers import ADAPTERS, recognize

__all__ = ("AutoDetector", "sniff_framing")

_TEXT = ADAPTERS["text"]  # the adapter a body that is no provider's falls back to

_SSE_FIELDS = (b"data:", b"event:", b"id:", b"retry:", b":")
_WHITESPACE = b" \t\r\n"
# What a framing's provider is when its first record is an error object,
# which no provider can be told from, or when its end sentinel comes first.
_ERROR_DEFAULT = {"sse": "openai", "ndjson": "ollama", "json-array": "gemini", "eventstream": "bedrock"}


_SIGNIFICANT = re.compile(rb"[^ \t\r\n]")
# How an HTML document opens (lower-cased), and the bytes that may follow.
_HTML_STARTS = (b"<!doctype html", b"<html")
_AFTER_HTML = b" \t\r\n>"


class FramingSniffer:
    """Decides the framing from a stream's first significant bytes.

    It is asked again as bytes arrive, and looks at each byte once: leading
    whitespace (which may be long) is skipped from where the last look ended.
    """

    __slots__ = ("_first", "_scanned")

    def __init__(self) -> None:
        self._first = -1  # offset of the first byte that is not whitespace
        self._scanned = 0  # bytes known to be whitespace after the deciding one

    @property
    def first(self) -> int:
        """How many blank bytes the stream starts with (once known)."""
        return max(self._first, 0)

    def sniff(self, raw: bytes | bytearray) -> str | None:
        """The framing, or None while the bytes so far could still be either."""
        if raw[:1] == b"\0":  # an event-stream message's length starts with 0 below 16 MiB
            if len(raw) < PRELUDE_BYTES:
                return None
            if valid_prelude(raw):
                return "eventstream"
        first = self._first
        if first < 0:
            found = _SIGNIFICANT.search(raw, self._scanned)
            if found is None:
                self._scanned = len(raw)
                return None
            first = self._first = found.start()
            self._scanned = first + 1
        lead = raw[first : first + 1]
        if lead == b"{":
            return "ndjson"
        if lead == b"[":
            # A streamed JSON array of objects; "[1] a footnote" is text.
            found = _SIGNIFICANT.search(raw, self._scanned)
            if found is None:
                self._scanned = len(raw)
                return None
            return "json-array" if raw[found.start()] == ord("{") else "text"
        if lead == b"<":
            return _html_or_text(bytes(raw[first : first + 16]).lower())
        head = bytes(raw[first : first + 7])
        for field in _SSE_FIELDS:
            if head.startswith(field):
                return "sse"
            if len(head) < len(field) and field.startswith(head):
                return None
        return "text"


def _html_or_text(head: bytes) -> str | None:
    """An HTML document is an error page; other markup may be a model's text."""
    for start in _HTML_STARTS:
        if head.startswith(start):
            if len(head) == len(start):
                return None  # the next byte decides: "<html>" or "<htmlish"
            return "html" if head[len(start)] in _AFTER_HTML else "text"
        if start.startswith(head):
            return None
    return "text"


def sniff_framing(raw: bytes | bytearray) -> str | None:
    """The framing of a stream that starts with ``raw`` (None: cannot tell yet)."""
    return FramingSniffer().sniff(raw)


class AutoDetector:
    """Stands in for the framer until the provider is known, then hands over to it."""

    __slots__ = (
        "_emit",
        "_first",
        "_framer",
        "_framing",
        "_keep_raw",
        "_raw",
        "_sniffer",
        "_text_asked",
        "_to_text_done",
        "adapter",
    )

    def __init__(self, emit: Emitter) -> None:
        self._emit = emit
        self._raw = bytearray()
        self._sniffer = FramingSniffer()
        self._framer: RecordFramer | None = None
        self._framing = ""
        self._keep_raw = False
        self._first = True  # no record and no framing error came yet
        self._to_text_done = False  # fell back to text: the old framer's records and reports are void
        self._text_asked = False  # the fall back was decided, and is made once the old framer returns
        self.adapter: Adapter | None = None  # the provider's, once known

    # -- bytes -----------------------------------------------------------------

    def feed(self, data: bytes) -> Framer | None:
        """Returns the framer that reads the rest of the stream, once the provider is known."""
        framer = self._framer
        if framer is None:
            self._raw += data
            framing = self._sniffer.sniff(self._raw)
            if framing is None:
                if len(self._raw) <= self._emit.limits.max_detect_bytes:
                    return None
                framing = "text"
            data = bytes(self._raw)
            self._raw = bytearray()
            if framing == "text":
                return self._to_text(data)
            self._framing = framing
            self._keep_raw = framing in ("ndjson", "json-array")  # could still turn out to be text
            chosen = "json-or-ndjson" if framing == "ndjson" else framing
            framer = self._framer = framer_for(chosen, self, self._emit, self)
        if self._keep_raw:
            self._raw += data
        self._took_over(framer.feed(data))
        return self._after_framing()

    def _took_over(self, successor: RecordFramer | None) -> None:
        """The framer handed over (a JSON body that is an NDJSON stream): its successor reads on."""
        if successor is not None:
            self._framer = successor
            if self.adapter is not None:
                successor.sink = self.adapter

    def _after_framing(self) -> Framer | None:
        if self._text_asked:
            return self._to_text(bytes(self._raw))
        self._drop_raw_if_too_long()
        return self._framer if self.adapter is not None else None

    def _drop_raw_if_too_long(self) -> None:
        """While the first record is unfinished, every byte after the leading
        blanks is part of it: once those pass max_detect_bytes, the stream can
        no longer turn out to be text (see ``on_record``), so stop keeping bytes."""
        if self._keep_raw and len(self._raw) - self._sniffer.first > self._emit.limits.max_detect_bytes:
            self._keep_raw = False
            self._raw = bytearray()

    def close(self) -> None:
        framer = self._framer
        if framer is not None:
            framer.close()
            if self._text_asked:
                text = self._to_text(bytes(self._raw))
                text.close()  # the text framer that closing made us fall back to
        elif self._raw.strip(_WHITESPACE):
            self._to_text(bytes(self._raw)).close()

    # -- what the framer reports -------------------------------------------------

    def on_framing_error(self, message: str, raw: bytes | bytearray | str = b"") -> None:
        self._first = False  # the framer skipped bytes: its next record is not the stream's start
        if self._to_text_done:
            return  # about bytes that are replayed as text
        adapter = self.adapter
        if adapter is not None:
            adapter.on_framing_error(message, raw)
        else:
            self._emit.parse_error(message, raw)

    # -- the first records ---------------------------------------------------

    def on_record(self, name: str | None, data: bytes) -> None:
        if self._to_text_done:
            return  # these bytes were replayed as text already
        adapter = self.adapter
        if adapter is not None:  # a record after the decision, in the same feed
            adapter.on_record(name, data)
            return
        first = self._first_record(data)
        try:
            try:
                obj = msgspec.json.decode(data)
            except UnicodeDecodeError:  # the shape is what matters here
                obj = msgspec.json.decode(data.decode("utf-8", "replace"))
        except (msgspec.DecodeError, RecursionError):
            if first and self._keep_raw:
                self._ask_for_text()
            else:
                self._emit.parse_error(f"cannot tell the provider: {self._framing} record is not JSON", data)
            return
        cls = recognize(name, obj)
        if cls is not None:
            self._use(cls).on_record(name, data)
            return
        if first and self._keep_raw and _TEXT.recognizes(name, obj):
            self._ask_for_text()
            return
        error = error_in(obj)
        if error is not None:
            default = ADAPTERS.get(_ERROR_DEFAULT.get(self._framing, ""))
            if default is not None:
                self._use(default)
            self._emit.provider_error(*error)
            return
        provider = document_provider(obj) if self._framing == "ndjson" else None
        if provider is not None:
            # The body's first value is a whole response on one line (no stream: true).
            self._emit.provider(provider)
            self._adopt(read_document(self._emit, None, obj, data))
            return
        self._emit.parse_error(
            f"cannot tell the provider from a {self._framing} record holding {describe(obj)}", data
        )

    def on_document(self, data: bytes, complete: bool) -> None:
        """The body's first JSON value spans several lines: one document, or the model's text."""
        if self._to_text_done:
            return
        first = self._first_record(data)
        emit = self._emit
        try:
            obj, replaced = load(data, complete)
        except Unreadable as exc:
            if first and self._keep_raw:
                self._ask_for_text()
            else:
                emit.parse_error(str(exc), data)
                emit.finish("error")
            return
        provider = document_provider(obj)
        if first and self._keep_raw and error_in(obj) is None and provider is None:
            self._ask_for_text()  # JSON, but neither an error nor a response
            return
        if provider is not None:
            emit.provider(provider)  # before its text: the fallback policy reads it
        self._adopt(read_document(emit, None, obj, data, replaced))

    def is_whole_body(self, data: bytes) -> bool:
        return False  # a one-line first value is read as a record: see on_record

    def _first_record(self, data: bytes) -> bool:
        """Is this the stream's first record, and small enough to make the stream text?

        Only a first record of at most max_detect_bytes can make the stream
        text (a rule on the stream, not on how it was chunked); a record after
        a framing error is not the stream's start.
        """
        first = self._first and len(data) <= self._emit.limits.max_detect_bytes
        self._first = False
        return first

    def on_done(self) -> None:
        if self._to_text_done:
            return
        # Only OpenAI sends [DONE]; a JSON array's "]" ends a Gemini stream.
        adapter = self.adapter or self._use(ADAPTERS[_ERROR_DEFAULT[self._framing]])
        adapter.on_done()

    def _use(self, cls: type[Adapter]) -> Adapter:
        adapter = cls(self._emit)
        self._adopt(adapter)
        return adapter

    def _adopt(self, adapter: Adapter | None) -> None:
        """The provider is decided: ``adapter``'s, or none's (an error body)."""
        self._keep_raw = False
        self._raw = bytearray()
        if adapter is None:
            return
        self.adapter = adapter
        framer = self._framer
        assert framer is not None
        framer.sink = adapter
        self._emit.provider(adapter.name)  # before its first record's text: the fallback policy reads it

    def _ask_for_text(self) -> None:
        """The stream is the model's text after all.  From now on the old framer's records and
        reports are void; the switch is made once it has returned."""
        self._to_text_done = True
        self._text_asked = True

    def _to_text(self, raw: bytes) -> RecordFramer:
        """Replay ``raw`` as the model's text; returns the text framer, which reads on."""
        adapter = _TEXT(self._emit)
        self.adapter = adapter
        self._to_text_done = True
        self._text_asked = False
        self._keep_raw = False
        self._raw = bytearray()
        framer = framer_for("text", adapter, self._emit, self)
        self._framer = framer
        self._emit.provider(adapter.name)
        framer.feed(raw)
        return framer
