"""OpenAI's request fields: Chat Completions' ``tools`` and ``stream`` (Responses' follow: :mod:`..openai_responses.request_rules`).

OpenAI's validator names the first field it cannot take, by its path, as
it does for ``messages`` (:mod:`.history_rules`): "Missing required
parameter: 'tools[0].name'." (``code: "missing_required_parameter"``, quoted
whole in icebear0828/codex-proxy#399: a Chat Completions tool sent to
Responses), "Invalid type for 'tools': expected an array, but got a string
instead." (``code: "invalid_type"``).  A Chat tool is
``{"type": "function", "function": {"name", ...}}``; a Responses tool is
flat, ``{"type": "function", "name", ...}`` (the openai SDK's
``ChatCompletionFunctionToolParam`` and ``FunctionToolParam``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .history_rules import expect_openai

__all__ = ("chat_request", "check_stream", "typed_tools")


def chat_request(request: Mapping[str, Any], headers: Mapping[str, str]) -> None:
    """Refuse a Chat Completions request whose ``stream`` or ``tools`` OpenAI would refuse."""
    check_stream(request)
    for path, tool in typed_tools(request):
        if tool["type"] == "function":
            expect_openai(tool.get("function"), dict, "an object", f"{path}.function")
            expect_openai(tool["function"].get("name"), str, "a string", f"{path}.function.name")


def check_stream(request: Mapping[str, Any]) -> None:
    """Refuse a ``stream`` that is not a boolean, in OpenAI's words."""
    value = request.get("stream")
    if value is not None:
        expect_openai(value, bool, "a boolean", "stream")


def typed_tools(request: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The tools, each with its path, once each is an object with a string ``type``."""
    tools = request.get("tools")
    if tools is None:
        return []
    expect_openai(tools, list, "an array", "tools")
    found = []
    for index, tool in enumerate(tools):
        path = f"tools[{index}]"
        expect_openai(tool, dict, "an object", path)
        expect_openai(tool.get("type"), str, "a string", f"{path}.type")
        found.append((path, tool))
    return found
