"""Cohere v2 chat's history rules: OpenAI Chat's (:mod:`..openai_chat.history_rules`), in Cohere's words.

The API takes ``messages`` with roles, an assistant message's ``tool_calls``
(``id``, ``function.name``, ``function.arguments`` as a JSON string) and one
``tool`` message per call, with its ``tool_call_id``, right after the
assistant message, as OpenAI Chat does.  Cohere answers a call left without
its result with OpenAI's sentence behind ``invalid request: `` (recorded
from the API, oracle/langchain-oracle#10); its other checks are written the
same way, as its errors carry only a ``message``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..openai_chat.history_rules import ChatRules, chat_turn

__all__ = ("cohere_turn",)

_COHERE = ChatRules("invalid request: ", ("system", "user", "assistant", "tool"), details=False)


def cohere_turn(request: Mapping[str, Any]) -> int:
    """The same for a Cohere v2 chat request."""
    return chat_turn(request.get("messages"), _COHERE)
