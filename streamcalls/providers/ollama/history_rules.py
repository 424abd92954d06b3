"""Ollama's history rules: only the shapes Go's JSON decoder checks.

``POST /api/chat`` decodes the body into ``api.ChatRequest`` with Go's
``encoding/json`` and answers a mismatch with a 400 ``{"error": err}``
(ollama ``server/routes.go`` ``ChatHandler``).  A message is decoded by
``api.Message.UnmarshalJSON`` through a local ``Alias`` type, so a message
that is not an object is reported against ``api.Alias``; a field of the
wrong type by its path (``ChatRequest.messages.content of type string``, as
Ollama's users quote it).  Ollama checks nothing else: roles, and calls
without results (or results without calls), go to the chat template as
they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._rejected import Rejected, go_kind

__all__ = ("ollama_turn",)

# A message's fields and the Go types they decode into (api/types.go).
_FIELDS = (
    ("role", str, "string"),
    ("content", str, "string"),
    ("thinking", str, "string"),
    ("tool_calls", list, "[]api.ToolCall"),
)


def ollama_turn(request: Mapping[str, Any]) -> int:
    """The turn an Ollama chat request's ``messages`` ask for; :class:`Rejected` if Go cannot decode them."""
    messages = request.get("messages")
    if messages is None:
        return 1
    if not isinstance(messages, list):
        raise _mismatch(messages, "messages", "[]api.Message")
    turn = 1
    for message in messages:
        if message is None:  # null decodes to an empty message
            continue
        if not isinstance(message, dict):
            raise _mismatch(message, "messages", "api.Alias")
        for field, kind, go_type in _FIELDS:
            value = message.get(field)
            if value is not None and not isinstance(value, kind):
                raise _mismatch(value, f"messages.{field}", go_type)
        for call in message.get("tool_calls") or ():
            _check_call(call)
        role = message.get("role", "").lower()  # Message.UnmarshalJSON lowercases it
        if role == "user":
            turn = 1
        elif role == "assistant":
            turn += 1
    return turn


def _check_call(call: object) -> None:
    if not isinstance(call, dict):
        raise _mismatch(call, "messages.tool_calls", "api.ToolCall")
    function = call.get("function")
    if function is None:
        return
    if not isinstance(function, dict):
        raise _mismatch(function, "messages.tool_calls.function", "api.ToolCallFunction")
    arguments = function.get("arguments")
    if arguments is not None and not isinstance(arguments, dict):
        raise _mismatch(arguments, "messages.tool_calls.function.arguments", "api.ToolCallFunctionArguments")


def _mismatch(value: object, field: str, go_type: str) -> Rejected:
    return Rejected(
        f"json: cannot unmarshal {go_kind(value)} into Go struct field ChatRequest.{field} of type {go_type}"
    )
