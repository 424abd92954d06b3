"""Ollama's request fields, as Go's JSON decoder reads them into ``api.ChatRequest``.

``ChatHandler`` (ollama ``server/routes.go``) answers a body that does not
decode with a 400 ``{"error": err}``; the fields and their Go types are
``api/types.go``'s: ``stream`` a ``*bool``, ``tools`` an ``api.Tools`` of
``api.Tool{type string, function api.ToolFunction{name, description string,
parameters api.ToolFunctionParameters}}``, and ``think`` an
``api.ThinkValue`` whose ``UnmarshalJSON`` takes a boolean or one of
``"high"``, ``"medium"``, ``"low"``, ``"max"`` and words its own errors.
Fields are read in the body's order, the first error is the one reported.
The messages are :mod:`.history_rules`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._rejected import Rejected, go_kind

__all__ = ("ollama_request",)

THINK_LEVELS = ("high", "medium", "low", "max")
_FUNCTION = (
    ("name", str, "string"),
    ("description", str, "string"),
    ("parameters", dict, "api.ToolFunctionParameters"),
)


def ollama_request(request: Mapping[str, Any], headers: Mapping[str, str]) -> None:
    """Refuse a chat request whose ``stream``, ``tools`` or ``think`` Go cannot decode."""
    for field, value in request.items():
        if value is None:
            continue  # null leaves a Go field at its zero value
        if field == "stream" and not isinstance(value, bool):
            raise _mismatch(value, "stream", "bool")
        if field == "tools":
            _tools(value)
        if field == "think":
            _think(value)


def _tools(tools: object) -> None:
    if not isinstance(tools, list):
        raise _mismatch(tools, "tools", "api.Tools")
    for tool in tools:
        if tool is None:
            continue
        if not isinstance(tool, dict):
            raise _mismatch(tool, "tools", "api.Tool")
        if tool.get("type") is not None and not isinstance(tool["type"], str):
            raise _mismatch(tool["type"], "tools.type", "string")
        function = tool.get("function")
        if function is None:
            continue
        if not isinstance(function, dict):
            raise _mismatch(function, "tools.function", "api.ToolFunction")
        for field, kind, go_type in _FUNCTION:
            value = function.get(field)
            if value is not None and not isinstance(value, kind):
                raise _mismatch(value, f"tools.function.{field}", go_type)


def _think(value: object) -> None:
    if isinstance(value, bool):
        return
    if isinstance(value, str):
        if value not in THINK_LEVELS:
            raise Rejected(
                f'invalid think value: "{value}" (must be "high", "medium", "low", "max", true, or false)'
            )
        return
    raise Rejected('think must be a boolean or string ("high", "medium", "low", "max", true, or false)')


def _mismatch(value: object, field: str, go_type: str) -> Rejected:
    return Rejected(
        f"json: cannot unmarshal {go_kind(value)} into Go struct field ChatRequest.{field} of type {go_type}"
    )
