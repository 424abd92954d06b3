"""OpenAI Chat's complete response for a turn: the ``chat.completion`` that ``write_response`` writes.

The shape of the openai SDK's ``ChatCompletion``: one choice whose
``message`` holds the text as ``content``, the completed calls as
``tool_calls`` (each one's argument text as the model wrote it), and the
reasoning -- in ``reasoning_content``, or for an OpenAI-compatible server's
own turn in the fields it came in (``reasoning``, OpenRouter's
``reasoning_details`` with their signatures and encrypted data) -- then
``finish_reason`` (``"error"`` for a turn that ended in error, as some
compatible servers say it: not one of the SDK's words) and ``usage``, with the
three counts ``CompletionUsage`` requires.  A message holds one text and a
list of calls, so the order of text, reasoning and calls is not kept.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from ..._events import StreamFinished, ToolCall
from ..._turn import ReasoningPart, TextPart, Turn
from .writer import DETAIL_TEXT, chat_usage, finish_word

__all__ = ("chat_completion",)


def _details(part: ReasoningPart, index: int) -> dict[str, Any]:
    kind = (
        part.kind
        if part.kind in DETAIL_TEXT
        else "reasoning.encrypted"
        if part.encrypted
        else "reasoning.text"
    )
    entry: dict[str, Any] = {"type": kind, "index": index}
    if part.text:
        entry[DETAIL_TEXT[kind]] = part.text
    for key, value in (("id", part.id), ("format", part.format), ("signature", part.signature)):
        if value is not None:
            entry[key] = value
    if part.encrypted is not None:
        entry["data"] = part.encrypted
    return entry


def _reasoning(turn: Turn, message: dict[str, Any]) -> None:
    """The turn's reasoning, in the message's fields: plain text in ``reasoning_content``; for its own
    provider's turn, each block in the field it came in."""
    own = turn.provider == "openai"
    plain: list[str] = []
    said: list[str] = []
    details: list[dict[str, Any]] = []
    for part in turn.parts:
        if type(part) is not ReasoningPart:
            continue
        if own and (part.kind in DETAIL_TEXT or part.signature is not None or part.encrypted is not None):
            details.append(_details(part, len(details)))
        elif own and part.kind == "reasoning":
            said.append(part.text)
        elif part.text:
            plain.append(part.text)
    if plain:
        message["reasoning_content"] = "".join(plain)
    if said:
        message["reasoning"] = "".join(said)
    if details:
        message["reasoning_details"] = details


def chat_completion(turn: Turn) -> dict[str, Any]:
    """The ``chat.completion`` body for ``turn`` (see the module doc)."""
    text = "".join(part.text for part in turn.parts if type(part) is TextPart)
    message: dict[str, Any] = {"role": "assistant", "content": text or None, "refusal": None}
    _reasoning(turn, message)
    calls = [
        {
            "id": call.id,
            "type": "function",
            "function": {
                "name": call.name,
                "arguments": turn.raw_arguments.get(call.id, call.arguments_json),
            },
        }
        for call in turn.parts
        if type(call) is ToolCall
    ]
    if calls:
        message["tool_calls"] = calls
    finished = StreamFinished(turn.finish_reason or ("tool_calls" if calls else "stop"))
    body: dict[str, Any] = {
        "id": turn.response_id or f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": turn.model or "",
        "choices": [
            {"index": 0, "message": message, "logprobs": None, "finish_reason": finish_word(finished, False)}
        ],
    }
    if turn.usage is not None:
        body["usage"] = chat_usage(turn.usage)
    return body
