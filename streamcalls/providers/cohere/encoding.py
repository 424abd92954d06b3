"""Cohere v2's request side: the assistant's calls and turn, the tools' results (its tools are OpenAI Chat's).

- a call: an ``assistant`` message, ``tool_calls[]`` with JSON-string
  ``arguments``, the text before the calls as its ``tool_plan``;
- a result: ``{"role": "tool", "tool_call_id", "content"}``, a failed tool's
  content prefixed with ``"Error: "``;
- the assistant's turn (:func:`encode_assistant`): ``tool_plan``, and
  ``thinking`` content items.
"""

from __future__ import annotations

from ..._events import ToolCall
from ..._results import ToolResult
from .._encoding import Message, Written
from .._encoding import calls as _calls
from .._encoding import flagged as _flagged
from .._encoding import reasoning as _reasoning
from .._encoding import texts as _texts

__all__ = ("encode_assistant", "encode_calls", "encode_results")


def encode_calls(calls: list[ToolCall], text: str | None) -> Message:
    message: Message = {
        "role": "assistant",
        "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_json}}
            for c in calls
        ],
    }
    if text:
        message["tool_plan"] = text  # Cohere's text before its calls
    return message


def encode_results(results: list[ToolResult]) -> list[Message]:
    return [{"role": "tool", "tool_call_id": r.call_id, "content": _flagged(r)} for r in results]


def encode_assistant(written: Written) -> list[Message]:
    message: Message = {"role": "assistant"}
    text = _texts(written)
    thoughts = _reasoning(written)
    plan = "".join(part.text for part in thoughts if part.kind == "tool_plan")
    thinking = [part.text for part in thoughts if part.kind == "thinking" and part.text]
    calls = _calls(written)
    if calls and not plan:
        plan, text = text, ""  # the text before the calls is the plan, as Cohere writes it
    if plan:
        message["tool_plan"] = plan
    if thinking:
        items = [{"type": "thinking", "thinking": part} for part in thinking]
        message["content"] = items + ([{"type": "text", "text": text}] if text else [])
    elif text:
        message["content"] = text
    if calls:
        message["tool_calls"] = [
            {
                "id": written.ids(c.id),
                "type": "function",
                "function": {"name": c.name, "arguments": written.arguments(c)},
            }
            for c in calls
        ]
    return [message] if len(message) > 1 else []
