"""A call's arguments, once they are complete, and the ids of calls that come without one."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import msgspec

__all__ = ("IdFactory", "decode_arguments", "json_kind", "random_call_id")

IdFactory = Callable[[], str]

_WHITESPACE = " \t\r\n"
_decode = msgspec.json.decode


def random_call_id() -> str:
    """A fresh call id: ``call_`` and 24 random hex digits."""
    return "call_" + uuid.uuid4().hex[:24]


def json_kind(value: object) -> str:
    """How a decoded JSON value is named in error messages ("an array", "a string", ...)."""
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"


def decode_arguments(raw: str) -> dict[str, Any]:
    """Decode a complete arguments text into an object.

    ``""`` (or only whitespace), and the JSON string ``""``, mean ``{}``.  A JSON string that itself holds
    a JSON object (double-encoded arguments, which some models write) is
    unwrapped.  Raises ``ValueError`` with a message naming the problem.
    """
    if not raw or raw.isspace():
        return {}
    try:
        value = _decode(raw)
    except RecursionError:
        raise ValueError("arguments nest too deeply to decode") from None
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"arguments are not valid JSON: {exc}") from None
    if type(value) is dict:
        return value
    if isinstance(value, str) and (not value or value.isspace()):
        return {}  # "arguments": "" -- no arguments
    if isinstance(value, str) and value.lstrip(_WHITESPACE).startswith("{"):
        try:
            inner = _decode(value)
        except (msgspec.DecodeError, RecursionError):
            pass
        else:
            if type(inner) is dict:
                return inner
    raise ValueError(f"arguments must be a JSON object, got {json_kind(value)}")
