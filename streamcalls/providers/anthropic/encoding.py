"""Anthropic Messages' request side: tool definitions, the assistant's calls and turn, the tools' results.

- a tool: ``{name, description, input_schema}``;
- a call: an ``assistant`` message of ``tool_use`` blocks;
- a result: one ``user`` message of ``tool_result`` blocks for all the
  results of a turn (as Anthropic asks for parallel calls), a failed tool's
  flagged ``is_error: true``;
- the assistant's turn (:func:`encode_assistant`): ``thinking`` blocks with
  their ``signature`` and ``redacted_thinking`` blocks, unmodified and in
  their original order, before and between the ``tool_use`` blocks (the SDK's
  ``ThinkingBlockParam``: "Thinking blocks must be passed back unmodified and
  in their original order"; ``RedactedThinkingBlockParam``: "pass it back
  unchanged").  A thinking block without a signature is refused, so one is
  not written.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..._events import ToolCall
from ..._results import ToolResult
from ..._turn import ReasoningPart, TextPart
from .._encoding import Message, ToolShape, Written
from .._encoding import described as _described

__all__ = ("encode_assistant", "encode_calls", "encode_results", "encode_tools")


def encode_tools(tools: Sequence[ToolShape]) -> list[Message]:
    return [{**_described({"name": t.name}, t), "input_schema": t.schema} for t in tools]


def encode_calls(calls: list[ToolCall], text: str | None) -> Message:
    blocks: list[Message] = [{"type": "text", "text": text}] if text else []
    blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in calls]
    return {"role": "assistant", "content": blocks}


def encode_results(results: list[ToolResult]) -> list[Message]:
    # All results of a turn go in one user message, as Anthropic asks for parallel calls.
    blocks: list[Message] = []
    for r in results:
        block: Message = {"type": "tool_result", "tool_use_id": r.call_id, "content": r.content}
        if r.is_error:
            block["is_error"] = True
        blocks.append(block)
    return [{"role": "user", "content": blocks}]


def encode_assistant(written: Written) -> list[Message]:
    blocks: list[Message] = []
    for part in written.parts:
        if type(part) is TextPart:
            if part.text:  # Anthropic refuses an empty text block
                blocks.append({"type": "text", "text": part.text})
        elif type(part) is ReasoningPart:
            if part.redacted is not None:
                blocks.append({"type": "redacted_thinking", "data": part.redacted})
            elif part.signature is not None:
                blocks.append({"type": "thinking", "thinking": part.text, "signature": part.signature})
        elif type(part) is ToolCall:
            blocks.append(
                {"type": "tool_use", "id": written.ids(part.id), "name": part.name, "input": part.arguments}
            )
    return [{"role": "assistant", "content": blocks}] if blocks else []
