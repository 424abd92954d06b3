"""Cohere v2 chat's request fields: a field the API does not have is a 422.

Cohere answers a field it does not know with a 422 ``{"id", "message"}``:
"unknown field: parameter 'strict' is not a valid field. For proper usage,
please refer to https://docs.cohere.com/reference/chat" (an OpenAI tool's
``strict``, OpenRouterTeam/openrouter-examples#71).  The fields are those
cohere-python's v2 ``chat_stream`` and ``chat`` send (August 2026), a tool
``{"type", "function"}`` and its function ``{"name", "description",
"parameters"}`` (``ToolV2``, ``ToolV2Function``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._rejected import Rejected

__all__ = ("cohere_request",)

REQUEST_FIELDS = frozenset(
    {
        "model",
        "messages",
        "tools",
        "strict_tools",
        "documents",
        "citation_options",
        "response_format",
        "safety_mode",
        "max_tokens",
        "stop_sequences",
        "temperature",
        "seed",
        "frequency_penalty",
        "presence_penalty",
        "k",
        "p",
        "logprobs",
        "tool_choice",
        "thinking",
        "priority",
        "stream",
    }
)
TOOL_FIELDS = frozenset({"type", "function"})
FUNCTION_FIELDS = frozenset({"name", "description", "parameters"})


def cohere_request(request: Mapping[str, Any], headers: Mapping[str, str]) -> None:
    """Refuse (a 422) a chat request with a field Cohere's request, tool or function does not have."""
    _known(request, REQUEST_FIELDS)
    tools = request.get("tools")
    for tool in tools if isinstance(tools, list) else ():
        if isinstance(tool, dict):
            _known(tool, TOOL_FIELDS)
            if isinstance(tool.get("function"), dict):
                _known(tool["function"], FUNCTION_FIELDS)


def _known(value: Mapping[str, Any], fields: Iterable[str]) -> None:
    for name in value:
        if name not in fields:
            text = (
                f"unknown field: parameter '{name}' is not a valid field. For proper usage, please refer to "
                "https://docs.cohere.com/reference/chat"
            )
            raise Rejected(text, status=422)
