"""Anthropic's complete response for a turn: the ``message`` that ``write_response`` writes.

The shape of the anthropic SDK's ``Message``: the turn's parts in order as
content blocks -- ``text``; ``tool_use`` with the call's arguments as its
``input``; reasoning by the exact-turns rule, as the stream target writes it
(:mod:`.writer`): an Anthropic turn's (or one that names no provider) as it
came, a ``thinking`` block with its signature and a ``redacted_thinking``
block with its data (after the ``thinking`` block, for a block that had
both), another provider's as ``thinking`` blocks of its text with an empty
``signature`` -- then ``stop_reason`` (Anthropic's word for the finish;
None for a turn that ended in error, for which it has none) and ``usage``
(the input without the cached tokens, which are apart; zeros for a turn
without usage, since the API always sends the two counts).

A turn holds the finish reason, not the provider's word for it: an
Anthropic turn that stopped at a stop sequence or paused reads back as
``end_turn``.
"""

from __future__ import annotations

from typing import Any

from ..._events import ToolCall
from ..._turn import ReasoningPart, TextPart, Turn
from ...writing import Stream
from .writer import stop_reason, wire_usage

__all__ = ("anthropic_message",)


def _reasoning(part: ReasoningPart, own: bool) -> list[dict[str, Any]]:
    """A reasoning part's content blocks: none, one, or a thinking block and a redacted one."""
    if not own:
        return [{"type": "thinking", "thinking": part.text, "signature": ""}] if part.text else []
    blocks: list[dict[str, Any]] = []
    if part.text or part.signature is not None:
        blocks.append({"type": "thinking", "thinking": part.text, "signature": part.signature or ""})
    if part.redacted is not None:
        blocks.append({"type": "redacted_thinking", "data": part.redacted})
    return blocks


def anthropic_message(turn: Turn) -> dict[str, Any]:
    """The ``message`` body for ``turn`` (see the module doc)."""
    own = turn.provider in (None, "anthropic")
    content: list[dict[str, Any]] = []
    for part in turn.parts:
        if type(part) is TextPart:
            if part.text:
                content.append({"type": "text", "text": part.text})
        elif type(part) is ReasoningPart:
            content += _reasoning(part, own)
        else:
            call: ToolCall = part  # type: ignore[assignment]
            content.append({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments})
    reason = turn.finish_reason or ("tool_calls" if turn.calls else "stop")
    return {
        "id": turn.response_id or Stream.new_id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": turn.model or "",
        "content": content,
        "stop_reason": stop_reason(reason, None),
        "stop_sequence": None,
        "usage": wire_usage(turn.usage),
    }
