"""OpenAI Responses' request fields: ``tools`` and ``stream``, checked as Chat Completions' are.

A Responses tool is flat, ``{"type": "function", "name", ...}`` (the openai
SDK's ``FunctionToolParam``); a Chat Completions tool sent here lacks its
``name``: "Missing required parameter: 'tools[0].name'."
(``code: "missing_required_parameter"``, quoted whole in
icebear0828/codex-proxy#399).  The shared checks and their wording are
:mod:`..openai_chat.request_rules`'.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..openai_chat.history_rules import expect_openai
from ..openai_chat.request_rules import check_stream, typed_tools

__all__ = ("responses_request",)


def responses_request(request: Mapping[str, Any], headers: Mapping[str, str]) -> None:
    """Refuse a Responses request whose ``stream`` or ``tools`` OpenAI would refuse."""
    check_stream(request)
    for path, tool in typed_tools(request):
        if tool["type"] == "function":
            expect_openai(tool.get("name"), str, "a string", f"{path}.name")
