"""Bedrock Converse's complete response for a turn: the output that ``write_response`` writes.

The shape of the ``ConverseResponse`` in botocore's service model:
``output.message`` with the turn's parts in order as content blocks --
``{text}``; ``{toolUse{toolUseId, name, input}}`` with the call's arguments;
reasoning by the exact-turns rule, as the stream target writes it
(:mod:`.writer`): a Bedrock turn's (or one that names no provider)
``{reasoningContent{reasoningText{text, signature}}}`` and its
``{reasoningContent{redactedContent}}`` (base64, as a JSON body holds a
blob), each a block of its own (a ``ReasoningContentBlock`` holds one or the
other), another provider's only as ``reasoningText`` of its text -- then
``stopReason`` (Bedrock's word for the finish), ``usage`` (the input without
the cache reads and writes, which are apart; zeros for a turn without
usage: the response always has it) and ``metrics{latencyMs: 0}``.  The
response names no model and no id.

A turn holds the finish reason, not the provider's word for it: a Bedrock
turn that stopped at a stop sequence reads back as ``end_turn``.
"""

from __future__ import annotations

from typing import Any

from ..._events import ToolCall
from ..._turn import ReasoningPart, TextPart, Turn
from .writer import is_base64, stop_reason, wire_usage

__all__ = ("converse_output",)


def _reasoning(part: ReasoningPart, own: bool) -> list[dict[str, Any]]:
    """A reasoning part's content blocks: none, one, or its text and its redacted content apart."""
    blocks: list[dict[str, Any]] = []
    said: dict[str, Any] = {"text": part.text}
    if own and part.signature is not None:
        said["signature"] = part.signature
    if part.text or len(said) > 1:
        blocks.append({"reasoningContent": {"reasoningText": said}})
    if own and part.redacted is not None and is_base64(part.redacted):
        blocks.append({"reasoningContent": {"redactedContent": part.redacted}})
    return blocks


def converse_output(turn: Turn) -> dict[str, Any]:
    """The Converse response body for ``turn`` (see the module doc)."""
    own = turn.provider in (None, "bedrock")
    content: list[dict[str, Any]] = []
    for part in turn.parts:
        if type(part) is TextPart:
            if part.text:
                content.append({"text": part.text})
        elif type(part) is ReasoningPart:
            content += _reasoning(part, own)
        else:
            call: ToolCall = part  # type: ignore[assignment]
            content.append({"toolUse": {"toolUseId": call.id, "name": call.name, "input": call.arguments}})
    reason = turn.finish_reason or ("tool_calls" if turn.calls else "stop")
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop_reason(reason, None),
        "usage": wire_usage(turn.usage),
        "metrics": {"latencyMs": 0},
    }
