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

    Subclasses set ``name`` and ``framing``, implement :meth:`recognizes`
    (for ``provider="auto"``), :meth:`on_record` (bytes off the wire) and
    :meth:`on_object` (already-decoded events, see ``feed_event``), and
    :meth:`close` for the end of input.
    """

    name: ClassVar[str]
    framing: ClassVar[str]  # "sse", "ndjson", "json-array", "eventstream" or "text"

    __slots__ = ("emit",)

    def __init__(self, emit: Emitter) -> None:
        self.emit = emit

    @classmethod
    def recognizes(cls, name: str | None, obj: Any) -> bool:
        """Does this decoded first event (with its SSE event name) come from this provider?"""
        return False

    def on_record(self, name: str | None, data: bytes) -> None:
        raise NotImplementedError

    def on_object(self, obj: Any) -> None:
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
        pass  # invalid UTF-8: decode again with U+FFFD in place of bad bytes
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
