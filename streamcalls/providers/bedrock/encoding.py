"""Bedrock Converse's request side: tool definitions, the assistant's calls and turn, the tools' results.

- a tool: ``{"toolSpec": {name, description, "inputSchema": {"json": ...}}}``
  (the list goes in ``toolConfig={"tools": ...}``);
- a call: an ``assistant`` message of ``toolUse`` blocks;
- a result: one ``user`` message of ``toolResult`` blocks (Converse requires
  user and assistant turns to alternate), a failed tool's with ``status:
  "error"``;
- the assistant's turn (:func:`encode_assistant`): ``reasoningContent``
  blocks, ``reasoningText`` with its ``signature`` or ``redactedContent``
  (base64; boto3 wants the bytes), before the ``toolUse`` blocks
  (``ReasoningTextBlock``: "include the text and its signature unmodified").
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
    return [
        {"toolSpec": {**_described({"name": t.name}, t), "inputSchema": {"json": t.schema}}} for t in tools
    ]


def encode_calls(calls: list[ToolCall], text: str | None) -> Message:
    blocks: list[Message] = [{"text": text}] if text else []
    blocks += [{"toolUse": {"toolUseId": c.id, "name": c.name, "input": c.arguments}} for c in calls]
    return {"role": "assistant", "content": blocks}


def encode_results(results: list[ToolResult]) -> list[Message]:
    # One user message: Converse requires user and assistant turns to alternate.
    blocks = [
        {
            "toolResult": {
                "toolUseId": r.call_id,
                "content": [{"text": r.content}],
                "status": "error" if r.is_error else "success",
            }
        }
        for r in results
    ]
    return [{"role": "user", "content": blocks}]


def encode_assistant(written: Written) -> list[Message]:
    blocks: list[Message] = []
    for part in written.parts:
        if type(part) is TextPart:
            if part.text:
                blocks.append({"text": part.text})
        elif type(part) is ReasoningPart:
            if part.redacted is not None:
                blocks.append({"reasoningContent": {"redactedContent": part.redacted}})
            elif part.text or part.signature is not None:
                said: Message = {"text": part.text}
                if part.signature is not None:
                    said["signature"] = part.signature
                blocks.append({"reasoningContent": {"reasoningText": said}})
        elif type(part) is ToolCall:
            use = {"toolUseId": written.ids(part.id), "name": part.name, "input": part.arguments}
            blocks.append({"toolUse": use})
    return [{"role": "assistant", "content": blocks}] if blocks else []
