"""Cohere's complete response for a turn: the v2 chat response ``POST /v2/chat`` returns.

``message`` holds the turn's tool plan (its reasoning of kind
``"tool_plan"``, joined) as ``tool_plan``, its other reasoning blocks and its
text as typed ``content`` items, in order (``{"type": "thinking",
"thinking"}``, ``{"type": "text", "text"}``), and its calls as ``tool_calls``
(``{"id", "type": "function", "function": {"name", "arguments"}}``, the
arguments as the model wrote them: ``""`` for a call that had none, as
Cohere's stream has it); beside it the ``id`` (the turn's, or a generated
UUID), the ``finish_reason`` in Cohere's words and the ``usage``.
"""

from __future__ import annotations

import uuid
from typing import Any

from ..._turn import ReasoningPart, TextPart, Turn
from .writer import cohere_usage, finish_word

__all__ = ("chat_response",)


def chat_response(turn: Turn) -> dict[str, Any]:
    """The turn as Cohere's complete v2 chat response."""
    message: dict[str, Any] = {"role": "assistant"}
    content: list[dict[str, str]] = []
    plan: list[str] = []
    for part in turn.parts:
        if type(part) is TextPart and part.text:
            content.append({"type": "text", "text": part.text})
        elif type(part) is ReasoningPart and part.text:
            if part.kind == "tool_plan":
                plan.append(part.text)
            else:
                content.append({"type": "thinking", "thinking": part.text})
    if plan:
        message["tool_plan"] = "".join(plan)
    if content:
        message["content"] = content
    calls = turn.calls
    if calls:
        raw = turn.raw_arguments
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": raw.get(call.id, call.arguments_json)},
            }
            for call in calls
        ]
    body: dict[str, Any] = {
        "id": turn.response_id if turn.response_id is not None else str(uuid.uuid4()),
        "finish_reason": finish_word(turn.finish_reason, None, None),
        "message": message,
    }
    usage = cohere_usage(turn.usage) if turn.usage is not None else None
    if usage is not None:
        body["usage"] = usage
    return body
