"""OpenAI Chat's request side: tool definitions, the assistant's calls and turn, the tools' results.

- a tool: ``{"type": "function", "function": {name, description, parameters}}``
  (Ollama and Cohere take the same);
- a call: an ``assistant`` message, ``tool_calls[]`` with JSON-string
  ``arguments``; a Gemini 3 signature goes back in
  ``extra_content.google.thought_signature`` (Gemini's compatible endpoint);
- a result: ``{"role": "tool", "tool_call_id", "content"}``, a failed tool's
  content prefixed with ``"Error: "``;
- the assistant's turn (:func:`encode_assistant`): one message, reasoning in
  the field it came in -- ``reasoning_content`` (DeepSeek's thinking mode
  requires it back in a tool loop; Kimi's thinking models too),
  ``reasoning``, OpenRouter's ``reasoning_details`` (as received, with
  signatures and encrypted data), Mistral's ``thinking`` content chunks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..._events import ToolCall
from ..._results import ToolResult
from ..._turn import ReasoningPart, TextPart
from .._encoding import Message, ToolShape, Written
from .._encoding import calls as _calls
from .._encoding import described as _described
from .._encoding import flagged as _flagged
from .._encoding import reasoning as _reasoning
from .._encoding import texts as _texts

__all__ = ("encode_assistant", "encode_calls", "encode_results", "encode_tools")


def encode_tools(tools: Sequence[ToolShape]) -> list[Message]:
    return [
        {"type": "function", "function": {**_described({"name": t.name}, t), "parameters": t.schema}}
        for t in tools
    ]


def encode_calls(calls: list[ToolCall], text: str | None) -> Message:
    return {"role": "assistant", "content": text or None, "tool_calls": [_openai_call(c) for c in calls]}


def _openai_call(call: ToolCall) -> Message:
    entry: Message = {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments_json},
    }
    if call.thought_signature is not None:  # Gemini 3 through its OpenAI-compatible endpoint
        entry["extra_content"] = {"google": {"thought_signature": call.thought_signature}}
    return entry


def encode_results(results: list[ToolResult]) -> list[Message]:
    return [{"role": "tool", "tool_call_id": r.call_id, "content": _flagged(r)} for r in results]


_DETAIL_TEXT = {"reasoning.summary": "summary", "reasoning.encrypted": "data"}


def encode_assistant(written: Written) -> list[Message]:
    message: Message = {"role": "assistant"}
    thoughts = _reasoning(written)
    content: Any = _texts(written) or None
    if written.provider == "deepseek" or not written.same:
        text = "".join(part.text for part in thoughts)
        if text:
            message["reasoning_content"] = text
    else:
        content = _chat_reasoning(thoughts, message, written) or content
    message["content"] = content
    calls = _calls(written)
    if calls:
        message["tool_calls"] = [_chat_call(call, written) for call in calls]
    if content is None and len(message) == 2:
        return []
    return [message]


def _chat_reasoning(
    thoughts: list[ReasoningPart], message: Message, written: Written
) -> list[Message] | None:
    """Each reasoning part into the field it came in; Mistral's thinking chunks make the content a list."""
    fields: dict[str, list[str]] = {}
    details: list[Message] = []
    chunked = False
    for part in thoughts:
        kind = part.kind or "reasoning_content"
        if kind.startswith("reasoning."):
            detail: Message = {"type": kind, _DETAIL_TEXT.get(kind, "text"): part.text}
            if kind == "reasoning.encrypted":
                detail["data"] = part.encrypted or part.redacted or ""
            for key, value in (("signature", part.signature), ("id", part.id), ("format", part.format)):
                if value is not None:
                    detail[key] = value
            detail["index"] = len(details)
            details.append(detail)
        elif kind == "thinking":
            chunked = True
        else:
            fields.setdefault(kind, []).append(part.text)
    for field, texts in fields.items():
        message[field] = "".join(texts)
    if details:
        message["reasoning_details"] = details
    if not chunked:
        return None
    chunks: list[Message] = []
    for each in written.parts:
        if type(each) is ReasoningPart and each.kind == "thinking":
            chunks.append({"type": "thinking", "thinking": [{"type": "text", "text": each.text}]})
        elif type(each) is TextPart and each.text:
            chunks.append({"type": "text", "text": each.text})
    return chunks


def _chat_call(call: ToolCall, written: Written) -> Message:
    entry: Message = {
        "id": written.ids(call.id),
        "type": "function",
        "function": {"name": call.name, "arguments": written.arguments(call)},
    }
    if call.thought_signature is not None:  # Gemini 3 through its OpenAI-compatible endpoint
        entry["extra_content"] = {"google": {"thought_signature": call.thought_signature}}
    return entry
