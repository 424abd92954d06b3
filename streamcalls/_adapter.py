"""The base of every provider adapter: decoding records, with errors as events.

Rules every adapter keeps, in one place: a record is decoded strictly into
the adapter's view Struct, and a field of an unexpected type costs only that
field (see :mod:`streamcalls._lenient`), reported once per stream; text
after a call's closed arguments is reported on that call, never lost and
never a call of its own (:meth:`Adapter.feed_arguments`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Protocol, TypeVar

import msgspec

from ._call import COMPLETED, OPEN, Call
from ._emitter import Emitter
from ._lenient import convert_leniently

__all__ = ("JSON_BLANKS", "Adapter", "Head", "as_mapping", "head_of")

T = TypeVar("T")

_decode_plain = msgspec.json.decode

# The blank space JSON allows between values: text of only these after a
# call's arguments is nothing; any other character is reported.
JSON_BLANKS = " \t\r\n"


class _Decode(Protocol):
    """A view decoder's ``decode``."""

    def __call__(self, data: bytes, /) -> Any: ...


class Adapter:
    """Turns one provider's records into canonical events.

    A provider whose records are JSON payloads declares the small msgspec
    ``view`` Struct one record decodes into (only the fields it uses) and
    ``what`` a record is called in error messages, and implements
    :meth:`handle`; the base decodes each payload once (bytes off the wire
    in :meth:`on_record`, already-decoded events -- ``feed_event`` -- in
    :meth:`on_object`, without a JSON round trip), reports what does not
    decode as a :class:`~streamcalls.ParseError`, and reports records after
    the stream's end.  Subclasses also set ``name`` and ``framing``, implement
    :meth:`recognizes` (for ``provider="auto"``) and :meth:`close`.
    """

    name: ClassVar[str]
    title: ClassVar[str] = ""  # what people call the wire format ("OpenAI Chat"), in messages
    framing: ClassVar[str]  # "sse", "ndjson", "json-array", "eventstream" or "text"
    view: ClassVar[type[Any]]  # what one record decodes into
    what: ClassVar[str] = "record"  # a record, in error messages
    _decoder: ClassVar[msgspec.json.Decoder[Any]]
    # The decoder's decode, on the class: read through an instance it is the same function
    # (a built-in method binds no further), and no parser holds a bound method of its own.
    _decode: ClassVar[_Decode]

    __slots__ = ("_skipped_reported", "emit")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "view" in cls.__dict__:
            cls._decoder = msgspec.json.Decoder(cls.view)  # one per provider, made once
            cls._decode = cls._decoder.decode

    def __init__(self, emit: Emitter) -> None:
        self.emit = emit
        self._skipped_reported = False

    @classmethod
    def recognizes(cls, name: str | None, obj: Any) -> bool:
        """Does this decoded first event (with its SSE event name) come from this provider?"""
        return False

    def on_record(self, name: str | None, data: bytes) -> None:
        emit = self.emit
        if not emit.steady:  # one check per record for both: the first record, and input after the end
            if emit.finished:
                emit.after_end(data)
                return
            if not emit.started:
                self._first_record(name, data)
                return
        try:
            view = self._decode(data)
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
            # Telling what went wrong (and reading what can be read) is a method
            # call apart: calling it only on failure saves a call per record.
            view = self._decode_slowly(self._decoder, data, self.what)
            if view is None:
                return
        self.handle(view, name)

    def _first_record(self, name: str | None, data: bytes) -> None:
        emit = self.emit
        try:
            view = self._decode(data)
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
            if self.foreign(name, data):
                return
            view = self._decode_slowly(self._decoder, data, self.what)
            if view is None:
                return
        if not self.claims(view, name) and self.foreign(name, data):
            return
        self.begin(view, data)
        self.handle(view, name)
        emit.opened()

    def on_object(self, obj: Any) -> None:
        emit = self.emit
        if emit.finished:
            emit.after_end(repr(obj)[:200])
            return
        plain = self.plain(obj)
        if not emit.started and self.foreign(None, plain):
            return
        view = self.convert_view(plain, self.view, self.what)
        if view is not None:
            if not emit.started:
                self.begin(view, plain)
                self.handle(view, None)
                emit.opened()
                return
            self.handle(view, None)

    def on_framing_error(self, message: str, raw: bytes | bytearray | str = b"") -> None:
        """Bytes the framer could not frame: reported, in their place among the records."""
        self.emit.parse_error(message, raw)

    def claims(self, view: Any, name: str | None) -> bool:
        """Is this decoded first record one of this provider's?  Cheap, on the view: a record
        it does not claim is then checked against every provider (see :meth:`foreign`)."""
        return True

    def foreign(self, name: str | None, raw: Any) -> bool:
        """Is this first record (bytes, or a plain object) another provider's, one that
        ``provider="auto"`` would recognize?  Then that is reported once, naming the provider,
        and the stream ends (a wrong ``provider=`` would read nothing and blame truncation)."""
        identify = self.emit.identify
        if identify is None:
            return False
        obj = raw
        if isinstance(raw, (bytes, bytearray)):
            try:
                obj = _decode_plain(raw)
            except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
                return False
        if type(self).recognizes(name, obj):
            return False
        found = identify(name, obj)
        if found is None or found[0] == self.name:
            return False
        provider, title = found
        shown = bytes(raw) if isinstance(raw, (bytes, bytearray)) else repr(raw)[:200]
        self.emit.not_mine(
            f"these records look like {title}, not {self.title or self.name}; provider={provider!r}?", shown
        )
        return True

    def begin(self, view: Any, raw: Any) -> None:
        """The stream's first record (``raw``: its bytes, or the plain object): report the
        stream's start, with the model and response id the record names (see ``head``)."""
        self.emit.start(self.name, *self.head(view, raw))

    def head(self, view: Any, raw: Any) -> tuple[object, object]:
        """The model and the response id a first record names (None where it names none)."""
        return None, None

    # -- decoding: the slow path, taken when the typed decode failed ----------------

    def decode_view(self, decoder: msgspec.json.Decoder[T], data: bytes, what: str) -> T | None:
        """Decode one payload into a view Struct; a problem becomes a ParseError event."""
        try:
            return decoder.decode(data)
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
            return self._decode_slowly(decoder, data, what)

    def _decode_slowly(self, decoder: msgspec.json.Decoder[T], data: bytes, what: str) -> T | None:
        """A payload the typed decode refused: decode it to plain data to tell why."""
        emit = self.emit
        try:
            plain = _decode_plain(data)
        except UnicodeDecodeError:
            # Decode again, with U+FFFD in place of the bad bytes.  (With
            # invalid_utf8="report" they were dropped before framing: see _utf8.)
            try:
                plain = _decode_plain(data.decode("utf-8", "replace"))
            except (msgspec.DecodeError, RecursionError) as again:
                emit.parse_error(f"{what} could not be decoded: {again}", data)
                return None
        except msgspec.DecodeError as exc:
            emit.parse_error(f"{what} is not valid JSON: {exc}", data)
            return None
        except RecursionError:
            emit.parse_error(f"{what} nests too deeply to decode", data)
            return None
        return self._convert(plain, decoder.type, what, data, strict=True)

    def convert_view(self, obj: Any, view: type[T], what: str) -> T | None:
        """Convert an already-decoded event into a view Struct, without a JSON round trip."""
        return self._convert(as_mapping(obj), view, what, repr(obj)[:200], strict=False)

    def _convert(self, plain: Any, view: type[T], what: str, raw: bytes | str, *, strict: bool) -> T | None:
        emit = self.emit
        try:
            try:
                return msgspec.convert(plain, view, strict=strict)
            except msgspec.ValidationError as exc:
                lenient = convert_leniently(plain, view, exc, strict=strict)
        except RecursionError:
            emit.parse_error(f"{what} nests too deeply to convert", raw)
            return None
        if lenient.error is not None:
            emit.parse_error(f"{what} has an unexpected shape: {lenient.error}", raw)
            return None
        if not self._skipped_reported:
            self._skipped_reported = True
            skipped = ", ".join(lenient.skipped)
            emit.parse_error(
                f"{what}: skipped the value of an unexpected type at {skipped} and read the rest; "
                "later such values in this stream are skipped without a report",
                raw,
            )
        value: T = lenient.value
        return value

    # -- calls ---------------------------------------------------------------------

    def feed_arguments(self, call: Call, fragment: str) -> None:
        """Feed a fragment of a call's streamed arguments.

        A call ends when its arguments' JSON value closes.  Whatever non-blank
        text follows -- in the same fragment or in later ones -- is not part
        of it and starts no call (a provider streams one call per block or
        item): it is reported as a ParseError naming the call, with the text
        as ``raw``.  Fragments for a call that failed are the rest of it.
        """
        status = call.status
        if status == OPEN:
            rest = self.emit.feed(call, fragment)
            if rest < 0:
                return
            fragment = fragment[rest:]
        elif status != COMPLETED:
            return
        self.after_arguments(call, fragment)

    def after_arguments(self, call: Call, text: str) -> None:
        """Report text that came after a call's closed arguments (blank text is nothing)."""
        if text.strip(JSON_BLANKS):
            self.emit.parse_error(
                f"text after the closed arguments of call {call.index} (id {call.id}); ignored", text
            )

    def plain(self, obj: Any) -> Any:
        """An already-decoded event as plain data (see :func:`as_mapping`)."""
        return as_mapping(obj)

    def handle(self, view: Any, name: str | None) -> None:
        """One decoded record (``name``: its SSE event name, if any)."""
        raise NotImplementedError

    def on_done(self) -> None:
        """An SSE ``data: [DONE]``.  Only OpenAI's own streams end with it; for
        the others (some servers and proxies add it) it is the end of input."""
        self.close()

    def close(self) -> None:
        """End of input; report truncation if the provider's end marker never came."""
        self.emit.end_of_input(None)


class Head(msgspec.Struct, gc=False):
    """The model and id a first record names, for views that leave them out (they cost a decode
    per record): read once, from the first record only (see :func:`head_of`)."""

    model: Any = None
    id: Any = None


def head_of(
    raw: Any, decoder: msgspec.json.Decoder[Any], model: str, response_id: str
) -> tuple[object, object]:
    """The ``model`` and ``response_id`` fields (by their JSON names) of a first record: its bytes
    decoded with ``decoder`` (into a struct with ``model`` and ``id`` attributes, such as
    :class:`Head`), or the plain object read."""
    if isinstance(raw, bytes):
        try:
            head = decoder.decode(raw)
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
            return None, None
        return head.model, head.id
    if isinstance(raw, Mapping):
        return raw.get(model), raw.get(response_id)
    return None, None


def as_mapping(obj: Any) -> Any:
    """An SDK event object (pydantic ``model_dump``) or a mapping, as plain data.

    Dumped by what each value is, not by the field's declared type
    (``serialize_as_any``): the openai SDK's Responses helper puts a
    ``ParsedResponse`` where a ``Response`` is declared, which a dump by the
    declared types reads with a pydantic warning per possible type.
    """
    dump = getattr(obj, "model_dump", None)
    if dump is not None:
        try:
            return dump(mode="json", exclude_unset=True, serialize_as_any=True)
        except TypeError:  # pydantic before 2.7, or a model_dump of its own
            return dump(mode="json", exclude_unset=True)
    if isinstance(obj, Mapping):
        return obj
    to_dict = getattr(obj, "to_dict", None)
    if to_dict is not None:
        return to_dict()
    return obj
