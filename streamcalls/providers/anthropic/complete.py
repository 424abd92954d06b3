"""Anthropic's complete response: a ``message`` with content blocks.

See :mod:`streamcalls._readers` for what a reader returns.
"""

from __future__ import annotations

from typing import Any

from ..._found import Found
from .._bodies import as_dict as _dict
from .._bodies import as_list as _list
from .._bodies import unrecognized as _unrecognized

__all__ = (
    "read_anthropic",
    "stream_end",
)


def read_anthropic(obj: Any) -> Found:
    if not isinstance(obj, dict) or "content" not in obj:
        raise _unrecognized("Anthropic", obj)
    found = Found()
    content = obj["content"]
    if isinstance(content, str):
        found.text(content)
    for block in _list(content):
        block = _dict(block)
        kind = block.get("type")
        if kind == "text":
            found.text(block.get("text"))
        elif kind == "tool_use":
            found.call(block.get("id"), block.get("name"), block, "input")
        elif kind == "thinking":
            found.reasoning(block.get("thinking"), kind, signature=block.get("signature"))
        elif kind == "redacted_thinking":
            found.reasoning("", kind, redacted=block.get("data"))
        else:
            found.end_text()  # server tools and their results are not client calls
    found.finish_reason = obj.get("stop_reason")
    found.usage = obj.get("usage")
    found.names(obj.get("model"), obj.get("id"))
    return found.done()


def stream_end(found: Found, obj: Any) -> list[dict[str, Any]]:
    """The end of the stream this complete response stands for: the records its last events would be."""
    delta = {"type": "message_delta", "delta": {"stop_reason": found.finish_reason}, "usage": found.usage}
    return [delta, {"type": "message_stop"}]
