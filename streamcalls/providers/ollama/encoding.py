"""Ollama's request side: the assistant's calls and turn, the tools' results (its tools are OpenAI Chat's).

- a call: an ``assistant`` message, ``tool_calls[]`` with object ``arguments``;
- a result: ``{"role": "tool", "tool_name", "tool_call_id", "content"}``, a
  failed tool's content prefixed with ``"Error: "``;
- the assistant's turn (:func:`encode_assistant`): one message, its
  reasoning as ``thinking``.
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
    return {
        "role": "assistant",
        "content": text or "",
        "tool_calls": [{"id": c.id, "function": {"name": c.name, "arguments": c.arguments}} for c in calls],
    }


def encode_results(results: list[ToolResult]) -> list[Message]:
    return [
        {"role": "tool", "content": _flagged(r), "tool_name": r.name, "tool_call_id": r.call_id}
        for r in results
    ]


def encode_assistant(written: Written) -> list[Message]:
    message: Message = {"role": "assistant", "content": _texts(written)}
    thinking = "".join(part.text for part in _reasoning(written))
    if thinking:
        message["thinking"] = thinking
    calls = _calls(written)
    if calls:
        message["tool_calls"] = [
            {"id": written.ids(c.id), "function": {"name": c.name, "arguments": c.arguments}} for c in calls
        ]
    return [message] if len(message) > 2 or message["content"] else []
