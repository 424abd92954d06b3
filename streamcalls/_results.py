"""The result of running one tool call: pure data, no I/O."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

__all__ = ("ToolResult", "error_result", "tool_result")

_encode = msgspec.json.encode


class ToolResult(msgspec.Struct, frozen=True):
    """What a tool returned for one call, ready to send back to the model.

    ``call_id`` and ``name`` are the call's (:class:`~streamcalls.ToolCall`
    ``id`` and ``name``).  ``content`` is text: a ``str`` the tool returned is
    kept as it is, any other value is JSON-encoded with msgspec (``None``
    becomes ``"null"``).  ``is_error`` is set when the tool raised (``content``
    then reads ``"<ExceptionType>: <message>"``), when no tool has the call's
    name, or when the value could not be encoded.
    """

    call_id: str
    name: str
    content: str
    is_error: bool = False


def tool_result(
    call_id: str, name: str, value: Any, enc_hook: Callable[[Any], Any] | None = None
) -> ToolResult:
    """The result for a tool's return value (see :class:`ToolResult` for the encoding).

    ``enc_hook`` is msgspec's, for the types msgspec does not encode itself (pydantic models).
    """
    if isinstance(value, str):
        return ToolResult(call_id, name, value)
    try:
        return ToolResult(call_id, name, _encode(value, enc_hook=enc_hook).decode())
    except (TypeError, ValueError, msgspec.EncodeError) as exc:
        return ToolResult(
            call_id,
            name,
            f"tool {name!r} returned a value that cannot be JSON-encoded: {type(exc).__name__}: {exc}",
            is_error=True,
        )


def error_result(call_id: str, name: str, exc: BaseException) -> ToolResult:
    """The result for a tool that raised ``exc``: its type and message."""
    text = str(exc)
    return ToolResult(call_id, name, f"{type(exc).__name__}: {text}" if text else type(exc).__name__, True)
