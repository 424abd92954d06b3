"""Ollama's complete (non-streamed) response: its end, as its stream's last event brings it.

Its body is read by OpenAI Chat's reader (:func:`..openai_chat.complete.read_chat`,
which knows its fields), then its end is given to the stream adapter as
:func:`stream_end` writes it.
"""

from __future__ import annotations

from typing import Any

from ..._found import Found
from .._bodies import as_dict as _dict

__all__ = ("stream_end",)


def stream_end(found: Found, obj: Any) -> list[dict[str, Any]]:
    """The end of the stream this complete response stands for: the records its last events would be."""
    return [{"done": True, "done_reason": found.finish_reason, **_dict(found.usage)}]
