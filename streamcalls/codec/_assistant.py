"""Each provider's assistant message for a turn: its text, reasoning and calls, in order.

What each provider requires back, and where it says so:

- Anthropic: ``thinking`` blocks with their ``signature`` and ``redacted_thinking``
  blocks, unmodified and in their original order, before and between the
  ``tool_use`` blocks (the SDK's ``ThinkingBlockParam``: "Thinking blocks must be
  passed back unmodified and in their original order"; ``RedactedThinkingBlockParam``:
  "pass it back unchanged").  A thinking block without a signature is refused, so
  one is not written.
- OpenAI Responses: each ``reasoning`` item (its ``id``, its summary and
  reasoning-text parts, its ``encrypted_content``) before the ``function_call``
  items that follow it (the SDK's ``ResponseReasoningItemParam``: "Be sure to
  include these items in your ``input`` ... for subsequent turns").
- OpenAI Chat servers: reasoning in the field it came in -- ``reasoning_content``
  (DeepSeek's thinking mode requires it back in a tool loop; Kimi's thinking models
  too), ``reasoning``, OpenRouter's ``reasoning_details`` (as received, with
  signatures and encrypted data), Mistral's ``thinking`` content chunks.
- Gemini: ``thought`` parts and every ``thoughtSignature`` on the part it came on
  (a call's, a text part's, a thought part's).
- Bedrock Converse: ``reasoningContent`` blocks, ``reasoningText`` with its
  ``signature`` or ``redactedContent`` (base64; boto3 wants the bytes), before the
  ``toolUse`` blocks (``ReasoningTextBlock``: "include the text and its signature
  unmodified").
- Ollama: the message's ``thinking``.  Cohere: ``tool_plan``, and ``thinking``
  content items.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from .._events import ToolCall
from .._turn import Part, ReasoningPart, TextPart
from ._shapes import Message

__all__ = ("ASSISTANT", "Written")


class Written(NamedTuple):
    """What a provider's writer gets: the parts to write and how."""

    parts: list[Part]
    same: bool  # the turn is the target's own: signatures and ids go back as they came
    provider: str  # the codec name asked for ("deepseek", "mistral", ...)
    ids: Callable[[str], str]  # a call id as the target takes it
    raw: Mapping[str, str]  # each call's argument text, by id

    def arguments(self, call: ToolCall) -> str:
        """The arguments as the model wrote them, for a provider that takes a string."""
        raw = self.raw.get(call.id)
        return raw if raw is not None and raw.strip() else call.arguments_json

    def signature(self, part: TextPart) -> str | None:
        return part.signature if self.same else None


def _texts(written: Written) -> str:
    return "".join(part.text for part in written.parts if type(part) is TextPart)


def _calls(written: Written) -> list[ToolCall]:
    return [part for part in written.parts if type(part) is ToolCall]


def _reasoning(written: Written) -> list[ReasoningPart]:
    return [part for part in written.parts if type(part) is ReasoningPart]


# -- Anthropic, Bedrock: blocks in order ----------------------------------------------------------


def _anthropic(written: Written) -> list[Message]:
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


def _bedrock(written: Written) -> list[Message]:
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


# -- OpenAI Responses: items in order -----------------------------------------------------------


def _responses(written: Written) -> list[Message]:
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


# -- OpenAI Chat and its servers: one message ------------------------------------------------------

_DETAIL_TEXT = {"reasoning.summary": "summary", "reasoning.encrypted": "data"}


def _chat(written: Written) -> list[Message]:
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


# -- Gemini: parts in order ---------------------------------------------------------------------------


def _gemini(written: Written) -> list[Message]:
    parts: list[Message] = []
    for part in written.parts:
        if type(part) is TextPart:
            signature = written.signature(part)
            if part.text or signature is not None:
                text: Message = {"text": part.text}
                if signature is not None:
                    text["thoughtSignature"] = signature
                parts.append(text)
        elif type(part) is ReasoningPart:
            thought: Message = {"text": part.text, "thought": True}
            if part.signature is not None:
                thought["thoughtSignature"] = part.signature
            parts.append(thought)
        elif type(part) is ToolCall:
            call: Message = {
                "functionCall": {"id": written.ids(part.id), "name": part.name, "args": part.arguments}
            }
            if part.thought_signature is not None:  # Gemini 3 refuses the request without it
                call["thoughtSignature"] = part.thought_signature
            parts.append(call)
    return [{"role": "model", "parts": parts}] if parts else []


# -- Ollama, Cohere: one message ----------------------------------------------------------------------


def _ollama(written: Written) -> list[Message]:
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


def _cohere(written: Written) -> list[Message]:
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


ASSISTANT: dict[str, Callable[[Written], list[Message]]] = {
    "openai": _chat,
    "openai-responses": _responses,
    "anthropic": _anthropic,
    "ollama": _ollama,
    "gemini": _gemini,
    "bedrock": _bedrock,
    "cohere": _cohere,
}
