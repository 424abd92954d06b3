"""OpenAI Responses' request side: tool definitions, the assistant's calls and turn, the tools' results.

- a tool: flat, ``{"type": "function", name, description, parameters,
  "strict": false}``;
- a call: a ``function_call`` item (``call_id``, JSON-string ``arguments``),
  after a ``message`` item for the text before it;
- a result: a ``function_call_output`` item;
- the assistant's turn (:func:`encode_assistant`): each ``reasoning`` item
  (its ``id``, its summary and reasoning-text parts, its
  ``encrypted_content``) before the ``function_call`` items that follow it
  (the SDK's ``ResponseReasoningItemParam``: "Be sure to include these items
  in your ``input`` ... for subsequent turns").
"""

from __future__ import annotations

from collections.abc import Sequence

from ..._events import ToolCall
from ..._results import ToolResult
from ..._turn import ReasoningPart, TextPart
from .._encoding import Message, ToolShape, Written
from .._encoding import described as _described
from .._encoding import flagged as _flagged

__all__ = ("encode_assistant", "encode_calls", "encode_results", "encode_tools")


def encode_tools(tools: Sequence[ToolShape]) -> list[Message]:
    # "strict": false -- left out, the Responses API rewrites the schema into
    # strict mode (every property required, no additional ones).
    return [
        {"type": "function", **_described({"name": t.name}, t), "parameters": t.schema, "strict": False}
        for t in tools
    ]


def encode_calls(calls: list[ToolCall], text: str | None) -> list[Message]:
    items: list[Message] = [{"type": "message", "role": "assistant", "content": text}] if text else []
    items += [
        {"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.arguments_json}
        for c in calls
    ]
    return items


def encode_results(results: list[ToolResult]) -> list[Message]:
    return [{"type": "function_call_output", "call_id": r.call_id, "output": _flagged(r)} for r in results]


def encode_assistant(written: Written) -> list[Message]:
    items: list[Message] = []
    item: Message | None = None  # the reasoning item being written
    for part in written.parts:
        if type(part) is ReasoningPart:
            if part.id is None:
                continue  # the API takes a reasoning item only with its id
            if item is None or item["id"] != part.id:
                item = {"type": "reasoning", "id": part.id, "summary": []}
                items.append(item)
            if part.text:
                if part.kind == "reasoning_text":
                    item.setdefault("content", []).append({"type": "reasoning_text", "text": part.text})
                else:
                    item["summary"].append({"type": "summary_text", "text": part.text})
            if part.encrypted is not None:
                item["encrypted_content"] = part.encrypted
            continue
        item = None
        if type(part) is TextPart:
            if part.text:
                items.append({"type": "message", "role": "assistant", "content": part.text})
        elif type(part) is ToolCall:
            items.append(
                {
                    "type": "function_call",
                    "call_id": written.ids(part.id),
                    "name": part.name,
                    "arguments": written.arguments(part),
                }
            )
    return items
