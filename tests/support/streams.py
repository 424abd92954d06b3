"""Small builders of provider streams for the tests (written from the documented wire formats)."""

from __future__ import annotations

from typing import Any

import msgspec


def sse(payload: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n".encode() if event else b""
    return head + b"data: " + msgspec.json.encode(payload) + b"\n\n"


def openai_chunk(delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
    return sse(
        {
            "id": "chatcmpl-t",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }
    )


def openai_call_start(index: int, call_id: str, name: str, arguments: str = "") -> bytes:
    fragment = {
        "index": index,
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }
    return openai_chunk({"tool_calls": [fragment]})


def openai_args(index: int, arguments: str) -> bytes:
    return openai_chunk({"tool_calls": [{"index": index, "function": {"arguments": arguments}}]})


OPENAI_DONE = b"data: [DONE]\n\n"


def openai_finish(reason: str = "tool_calls") -> bytes:
    return openai_chunk({}, reason) + OPENAI_DONE


def anthropic_event(payload: dict[str, Any]) -> bytes:
    return sse(payload, payload["type"])


ANTHROPIC_START = anthropic_event(
    {"type": "message_start", "message": {"id": "msg_t", "usage": {"input_tokens": 1, "output_tokens": 1}}}
)


def anthropic_tool_start(index: int, call_id: str, name: str) -> bytes:
    return anthropic_event(
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}},
        }
    )


def anthropic_json(index: int, partial: str) -> bytes:
    return anthropic_event(
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "input_json_delta", "partial_json": partial},
        }
    )


def anthropic_stop(index: int) -> bytes:
    return anthropic_event({"type": "content_block_stop", "index": index})


ANTHROPIC_END = anthropic_event(
    {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 5}}
) + anthropic_event({"type": "message_stop"})
