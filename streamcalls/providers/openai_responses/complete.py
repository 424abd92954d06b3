"""OpenAI Responses' complete response: ``{output: [items]}``, a list of items, or one item.

See :mod:`streamcalls._readers` for what a reader returns.
"""

from __future__ import annotations

from typing import Any

from ..._found import Found
from .._bodies import as_dict as _dict
from .._bodies import as_list as _list
from .._bodies import unrecognized as _unrecognized

__all__ = (
    "read_responses",
    "stream_end",
)


def read_responses(obj: Any) -> Found:
    if isinstance(obj, list):
        items = obj
    elif isinstance(obj, dict) and isinstance(obj.get("output"), list):
        items = obj["output"]
    elif isinstance(obj, dict) and "type" in obj:
        items = [obj]
    else:
        raise _unrecognized("OpenAI Responses", obj)
    found = Found()
    for item in items:
        item = _dict(item)
        kind = item.get("type")
        if kind == "function_call":
            found.call(item.get("call_id"), item.get("name"), item, "arguments")
        elif kind == "reasoning":
            _reasoning_item(item, found)
        elif (kind == "message" or "role" in item) and item.get("role", "assistant") == "assistant":
            content = item.get("content")
            if isinstance(content, str):
                found.text(content)
            for part in _list(content):
                part = _dict(part)
                if part.get("type") in ("output_text", "text"):
                    found.text(part.get("text"))
                elif part.get("type") == "refusal":
                    found.text(part.get("refusal"))
            found.end_text()
        # Built-in tools' items (web_search_call, mcp_call, ...) are run by OpenAI: not calls.
    if isinstance(obj, dict):
        found.finish_reason = obj.get("status")
        found.usage = obj.get("usage")
        found.names(obj.get("model"), obj.get("id") if "output" in obj else None)
    return found.done()


def _reasoning_item(item: dict[str, Any], found: Found) -> None:
    """One block per summary part and per reasoning text part; the encrypted content on the last."""
    found_parts = [(kind, _dict(part)) for kind, key in _REASONING_PARTS for part in _list(item.get(key))]
    parts: list[tuple[str | None, dict[str, Any]]] = [
        (kind, part) for kind, part in found_parts if part.get("type") == kind
    ] or [(None, {})]
    for number, (kind, part) in enumerate(parts, 1):
        encrypted = item.get("encrypted_content") if number == len(parts) else None
        found.reasoning(part.get("text"), kind, encrypted=encrypted, id=item.get("id"))


_REASONING_PARTS = (("summary_text", "summary"), ("reasoning_text", "content"))


def stream_end(found: Found, obj: Any) -> list[dict[str, Any]]:
    """The end of the stream this complete response stands for: the records its last events would be."""
    status = found.finish_reason
    kind = status if status in ("incomplete", "failed") else "completed"
    response = _dict(obj)
    summary = {
        "status": status,
        "error": response.get("error"),
        "incomplete_details": response.get("incomplete_details"),
        "usage": found.usage,
    }
    return [{"type": f"response.{kind}", "response": summary}]
