"""Anthropic's request fields: ``max_tokens``, ``tools``, and ``thinking``'s budget.

The Messages API validates a request as pydantic does and names the first
field it cannot take by its path, in pydantic's words:

- ``max_tokens`` is required: "max_tokens: Field required"
  (immersive-translate/immersive-translate#3993);
- ``tools`` is a list of tools told apart by their ``type``: a custom tool
  (no ``type``, or ``"custom"``) needs a ``name`` matching
  ``^[a-zA-Z0-9_-]{1,64}$`` (apify/tester-mcp-client#11) and an
  ``input_schema`` with a ``type`` ("tools.0.custom.input_schema: Field
  required", su-kaka/gcli2api#392; "tools.0.custom.input_schema.type: Field
  required", Kilo-Org/kilocode#12238); any other ``type`` must be one of the
  server tools' tags, else "tools.0: Input tag 'function' found using 'type'
  does not match any of the expected tags: ..." (dirac-run/dirac#57), the
  tags listed as the anthropic SDK's ``ToolUnionParam`` names them;
- with ``thinking`` enabled, ``max_tokens`` must exceed
  ``thinking.budget_tokens`` (the extended-thinking guide; the API's words
  in ProfSynapse/nexus#17) -- except with the ``interleaved-thinking``
  beta, whose budget may exceed it (the same guide).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .._rejected import Rejected

__all__ = ("anthropic_request",)

SERVER_TOOLS = (
    "bash_20250124",
    "browser_toolset_20260801",
    "code_execution_20250522",
    "code_execution_20250825",
    "code_execution_20260120",
    "code_execution_20260521",
    "computer_toolset_20260801",
    "memory_20250818",
    "text_editor_20250124",
    "text_editor_20250429",
    "text_editor_20250728",
    "tool_search_tool_bm25",
    "tool_search_tool_bm25_20251119",
    "tool_search_tool_regex",
    "tool_search_tool_regex_20251119",
    "web_fetch_20250910",
    "web_fetch_20260209",
    "web_fetch_20260309",
    "web_fetch_20260318",
    "web_search_20250305",
    "web_search_20260209",
    "web_search_20260318",
)
"""The ``type`` of every server tool (besides ``custom``), from the anthropic SDK's ``ToolUnionParam``."""

_TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
BUDGET = (
    "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at "
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size"
)


def anthropic_request(request: Mapping[str, Any], headers: Mapping[str, str]) -> None:
    """Refuse a Messages request Anthropic would refuse for ``max_tokens``, ``tools`` or ``thinking``."""
    if "max_tokens" not in request:
        raise Rejected("max_tokens: Field required")
    tools = request.get("tools")
    if tools is not None:
        if not isinstance(tools, list):
            raise Rejected("tools: Input should be a valid list")
        for index, tool in enumerate(tools):
            _tool(tool, f"tools.{index}")
    thinking = request.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") == "enabled":
        budget, most = thinking.get("budget_tokens"), request["max_tokens"]
        interleaved = "interleaved-thinking" in headers.get("anthropic-beta", "")
        if isinstance(budget, int) and isinstance(most, int) and budget >= most and not interleaved:
            raise Rejected(BUDGET)


def _tool(tool: object, path: str) -> None:
    if not isinstance(tool, dict):
        raise Rejected(f"{path}: Input should be a valid dictionary")
    kind = tool.get("type", "custom")
    if kind != "custom":
        if kind not in SERVER_TOOLS:
            tags = ", ".join(f"'{tag}'" for tag in sorted((*SERVER_TOOLS, "custom")))
            shown = kind if isinstance(kind, str) else repr(kind)
            raise Rejected(
                f"{path}: Input tag '{shown}' found using 'type' does not match any of the expected tags: {tags}"
            )
        return
    where = f"{path}.custom"
    if "name" not in tool:
        raise Rejected(f"{where}.name: Field required")
    if isinstance(tool["name"], str) and not _TOOL_NAME.fullmatch(tool["name"]):
        raise Rejected(f"{where}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'")
    schema = tool.get("input_schema")
    if schema is None:
        raise Rejected(f"{where}.input_schema: Field required")
    if isinstance(schema, dict) and "type" not in schema:
        raise Rejected(f"{where}.input_schema.type: Field required")
