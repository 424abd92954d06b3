"""Gemini's complete response for a turn: the ``GenerateContentResponse`` that ``generateContent`` returns.

One candidate whose ``content.parts`` are the turn's parts in order: a
``{"text"}`` part per text, ``{"text", "thought": true}`` per reasoning block,
``{"functionCall": {"id", "name", "args"}}`` per call (with its
``thoughtSignature``, Gemini's wherever it came from); on a Gemini turn the
signatures go back on the parts they came on (a signed text, a signed
thought).  Then the ``finishReason`` (the turn's reason in Gemini's words:
the turn keeps no provider word), the ``usageMetadata``, ``modelVersion``
and ``responseId`` (the turn's, or a generated one).
"""

from __future__ import annotations

from typing import Any

from ..._events import ToolCall
from ..._turn import ReasoningPart, TextPart, Turn
from ...writing import Stream
from .writer import finish_word, usage_metadata

__all__ = ("generate_content_response",)


def generate_content_response(turn: Turn) -> dict[str, Any]:
    """The turn as Gemini's complete ``GenerateContentResponse``."""
    own = turn.provider == "gemini"
    parts: list[dict[str, Any]] = []
    for part in turn.parts:
        if type(part) is TextPart:
            signature = part.signature if own else None
            if part.text or signature is not None:
                text: dict[str, Any] = {"text": part.text}
                if signature is not None:
                    text["thoughtSignature"] = signature
                parts.append(text)
        elif type(part) is ReasoningPart:
            signature = part.signature if own else None
            if part.text or signature is not None:
                thought: dict[str, Any] = {"text": part.text, "thought": True}
                if signature is not None:
                    thought["thoughtSignature"] = signature
                parts.append(thought)
        elif type(part) is ToolCall:
            call: dict[str, Any] = {
                "functionCall": {"id": part.id, "name": part.name, "args": part.arguments}
            }
            if part.thought_signature is not None:
                call["thoughtSignature"] = part.thought_signature
            parts.append(call)
    candidate = {
        "content": {"parts": parts, "role": "model"},
        "finishReason": finish_word(turn.finish_reason, None, None),
        "index": 0,
    }
    body: dict[str, Any] = {"candidates": [candidate]}
    if turn.usage is not None:
        body["usageMetadata"] = usage_metadata(turn.usage)
    if turn.model is not None:
        body["modelVersion"] = turn.model
    body["responseId"] = turn.response_id if turn.response_id is not None else Stream.new_id("")
    return body
