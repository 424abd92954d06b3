"""The Responses objects that a written stream and a complete body both hold: a response, its
output items and its usage, as the openai SDK's ``Response`` types have them.

An item's text or arguments may be a ``msgspec.Raw`` (the JSON string the stream's deltas wrote,
inserted as it is) or a ``str``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from msgspec import Raw

from ..._events import ProviderError, StreamFinished, Usage
from ..openai_chat.writer import usage_counts

__all__ = (
    "call_item",
    "finish_response",
    "message_item",
    "reasoning_item",
    "response_object",
    "responses_usage",
)

# The finishes that leave a response incomplete.
_INCOMPLETE = {"length": "max_output_tokens", "content_filter": "content_filter"}


def responses_usage(usage: Usage) -> dict[str, Any]:
    """The counts in Responses' ``usage`` names: every one ``ResponseUsage`` requires, the input,
    output and total as the other two tell where one was not sent, 0 for a count there is none of."""
    given, made, total = usage_counts(usage)
    return {
        "input_tokens": given,
        "output_tokens": made,
        "total_tokens": total,
        "input_tokens_details": {
            "cached_tokens": usage.cache_read_tokens or 0,
            "cache_write_tokens": usage.cache_write_tokens or 0,
        },
        "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens or 0},
    }


def response_object(
    response_id: str | None, model: str | None, output: list[dict[str, Any]], created: int | None = None
) -> dict[str, Any]:
    """A ``response`` in progress, with ``output``: the fields the SDK's ``Response`` requires, and the
    ones the API sends null."""
    return {
        "id": response_id,
        "object": "response",
        "created_at": int(time.time()) if created is None else created,
        "status": "in_progress",
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "metadata": {},
        "model": model or "",
        "output": output,
        "parallel_tool_calls": True,
        "temperature": None,
        "tool_choice": "auto",
        "tools": [],
        "top_p": None,
        "usage": None,
    }


def finish_response(response: dict[str, Any], finished: StreamFinished, error: ProviderError | None) -> str:
    """Put the finish in ``response`` (its status, incomplete details, error, usage); returns the
    terminal event's type."""
    reason = finished.reason
    if finished.usage is not None:
        response["usage"] = responses_usage(finished.usage)
    if reason == "error":
        message = error.message if error is not None else "the stream ended in an error"
        code = error.code if error is not None and error.code is not None else "server_error"
        response["status"] = "failed"
        response["error"] = {"code": code, "message": message}
        return "response.failed"
    if reason in _INCOMPLETE:
        response["status"] = "incomplete"
        response["incomplete_details"] = {"reason": _INCOMPLETE[reason]}
        return "response.incomplete"
    response["status"] = "completed"
    return "response.completed"


def message_item(item_id: str, text: str | Raw | None) -> dict[str, Any]:
    """A ``message`` item: in progress (``text`` None), or done with its one ``output_text`` part."""
    if text is None:
        return {"id": item_id, "type": "message", "status": "in_progress", "role": "assistant", "content": []}
    part: dict[str, Any] = {"type": "output_text", "text": text, "annotations": []}
    return {"id": item_id, "type": "message", "status": "completed", "role": "assistant", "content": [part]}


def call_item(item_id: str, call_id: str, name: str, arguments: str | Raw, status: str) -> dict[str, Any]:
    """A ``function_call`` item."""
    return {
        "id": item_id,
        "type": "function_call",
        "status": status,
        "arguments": arguments,
        "call_id": call_id,
        "name": name,
    }


def reasoning_item(
    item_id: str, summary: Sequence[str | Raw], content: Sequence[str | Raw], encrypted: str | None
) -> dict[str, Any]:
    """A ``reasoning`` item: its summary parts, its reasoning text parts, its encrypted content."""
    item: dict[str, Any] = {
        "id": item_id,
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": text} for text in summary],
    }
    if content:
        item["content"] = [{"type": "reasoning_text", "text": text} for text in content]
    if encrypted is not None:
        item["encrypted_content"] = encrypted
    return item
