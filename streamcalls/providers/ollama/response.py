"""Ollama's complete response for a turn: the ``done: true`` chat response ``/api/chat`` returns.

``message`` holds the turn's text joined as ``content``, its reasoning joined
as ``thinking`` and its calls as ``tool_calls`` (``{"id", "function":
{"index", "name", "arguments"}}``, the arguments an object); beside it
``model``, ``created_at``, ``done_reason`` (the turn's reason in Ollama's
words) and the counts among the durations.
"""

from __future__ import annotations

from typing import Any

from ..._turn import Turn
from .writer import done_fields, done_reason, rfc3339_now

__all__ = ("chat_response",)


def chat_response(turn: Turn) -> dict[str, Any]:
    """The turn as Ollama's complete chat response."""
    message: dict[str, Any] = {"role": "assistant", "content": turn.text}
    reasoning = turn.reasoning
    if reasoning:
        message["thinking"] = reasoning
    calls = turn.calls
    if calls:
        message["tool_calls"] = [
            {"id": call.id, "function": {"index": number, "name": call.name, "arguments": call.arguments}}
            for number, call in enumerate(calls)
        ]
    return {
        "model": turn.model or "",
        "created_at": rfc3339_now(),
        "message": message,
        "done": True,
        "done_reason": done_reason(turn.finish_reason, None, None),
        **done_fields(turn.usage),
    }
