"""The base of every provider adapter, and payload decoding with errors as events."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

import msgspec

from ._emitter import Emitter

__all__ = ("Adapter", "as_mapping", "convert_view", "decode_view")

T = TypeVar("T")


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
    framing: ClassVar[str]  # "sse", "ndjson", "json-array", "eventstream" or "text"
    view: ClassVar[type[Any]]  # what one record decodes into
    what: ClassVar[str] = "record"  # a record, in error messages
    _decoder: ClassVar[msgspec.json.Decoder[Any]]

    __slots__ = ("_decode", "emit")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "view" in cls.__dict__:
            cls._decoder = msgspec.json.Decoder(cls.view)  # one per provider, made once

    def __init__(self, emit: Emitter) -> None:
        self.emit = emit
        if hasattr(type(self), "_decoder"):
            self._decode = self._decoder.decode

    @classmethod
    def recognizes(cls, name: str | None, obj: Any) -> bool:
        """Does this decoded first event (with its SSE event name) come from this provider?"""
        return False

    def on_record(self, name: str | None, data: bytes) -> None:
        emit = self.emit
        if emit.finished:
            emit.after_end(data)
            return
        try:
            view = self._decode(data)
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
            # decode_view decodes again to tell what went wrong and report it as
            # an event; calling it only on failure saves a call per record.
            view = decode_view(self._decoder, data, emit, self.what)
            if view is None:
                return
        self.handle(view, name)

    def on_object(self, obj: Any) -> None:
        emit = self.emit
        if emit.finished:
            emit.after_end(repr(obj)[:200])
            return
        view = convert_view(self.plain(obj), self.view, emit, self.what)
        if view is not None:
            self.handle(view, None)

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


def decode_view(decoder: msgspec.json.Decoder[T], data: bytes, emit: Emitter, what: str) -> T | None:
    """Decode one payload into a view Struct; a problem becomes a ParseError event."""
    try:
        return decoder.decode(data)
    except UnicodeDecodeError:
        # Decode again, with U+FFFD in place of the bad bytes.  (With
        # invalid_utf8="report" they were dropped before framing: see _utf8.)
        pass
    except msgspec.ValidationError as exc:
        emit.parse_error(f"{what} has an unexpected shape: {exc}", data)
        return None
    except msgspec.DecodeError as exc:
        emit.parse_error(f"{what} is not valid JSON: {exc}", data)
        return None
    except RecursionError:
        emit.parse_error(f"{what} nests too deeply to decode", data)
        return None
    try:
        return decoder.decode(data.decode("utf-8", "replace"))
    except (msgspec.DecodeError, RecursionError) as exc:
        emit.parse_error(f"{what} could not be decoded: {exc}", data)
        return None


def as_mapping(obj: Any) -> Any:
    """An SDK event object (pydantic ``model_dump``) or a mapping, as plain data."""
    dump = getattr(obj, "model_dump", None)
    if dump is not None:
        return dump(mode="json", exclude_unset=True)
    if isinstance(obj, Mapping):
        return obj
    to_dict = getattr(obj, "to_dict", None)
    if to_dict is not None:
        return to_dict()
    return obj


def convert_view(obj: Any, view: type[T], emit: Emitter, what: str) -> T | None:
    """Convert an already-decoded event into a view Struct, without a JSON round trip."""
    try:
        return msgspec.convert(as_mapping(obj), view, strict=False)
    except msgspec.ValidationError as exc:
        emit.parse_error(f"{what} has an unexpected shape: {exc}", repr(obj)[:200])
        return None
    except RecursionError:
        emit.parse_error(f"{what} nests too deeply to convert", repr(obj)[:200])
        return None
