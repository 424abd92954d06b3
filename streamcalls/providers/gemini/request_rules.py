"""Gemini's request fields: names the request message does not have, and its ``tools``.

Google's JSON reader refuses a field a message does not have, each one a
field violation of a 400 ``INVALID_ARGUMENT``, all of them in one message,
one line each: "Invalid JSON payload received. Unknown name \"strict\" at
'tools[0].function_declarations[0]': Cannot find field." (the path in the
proto's snake_case names; a field of the request itself has no ``at``
part), as its users quote them (GewoonJaap/gemini-cli-openai#157,
zed-industries/zed#43231).  So a ``"stream"`` field (the path says whether
to stream), an OpenAI tool (``type``, ``function``) and a declaration
wrapped twice in ``functionDeclarations`` are refused.  A ``tools`` that is
not a list of objects is refused as the history's contents are
(:func:`.history_rules.items`).

The names each message has are those python-genai (August 2026) writes
for the Gemini API, in both spellings the reader takes (camelCase and the
proto's snake_case): ``GenerateContentRequest``, ``Tool`` and
``FunctionDeclaration``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from .._rejected import Rejected
from .history_rules import items

__all__ = ("gemini_request",)


def _spellings(*names: str) -> frozenset[str]:
    snake = (re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower() for name in names)
    return frozenset((*names, *snake))


REQUEST_FIELDS = _spellings(
    "model",
    "contents",
    "tools",
    "toolConfig",
    "safetySettings",
    "systemInstruction",
    "generationConfig",
    "cachedContent",
    "serviceTier",
)
TOOL_FIELDS = _spellings(
    "functionDeclarations",
    "googleSearchRetrieval",
    "codeExecution",
    "googleSearch",
    "googleMaps",
    "urlContext",
    "computerUse",
    "fileSearch",
    "retrieval",
    "enterpriseWebSearch",
    "parallelAiSearch",
    "mcpServers",
    "exaAiSearch",
)
DECLARATION_FIELDS = _spellings(
    "name", "description", "behavior", "parameters", "parametersJsonSchema", "response", "responseJsonSchema"
)


def gemini_request(request: Mapping[str, Any], headers: Mapping[str, str]) -> None:
    """Refuse a generateContent request with fields Gemini's request, tool or declaration does not have."""
    violations = _unknown(request, REQUEST_FIELDS, None)
    for path, tool in items(request.get("tools"), "tools", "Tool"):
        violations += _unknown(tool, TOOL_FIELDS, path)
        declarations = tool.get("functionDeclarations", tool.get("function_declarations"))
        for where, declaration in items(declarations, f"{path}.function_declarations", "FunctionDeclaration"):
            violations += _unknown(declaration, DECLARATION_FIELDS, where)
    if violations:
        raise Rejected("\n".join(text for _, text in violations), violations=tuple(violations))


def _unknown(
    value: Mapping[str, Any], known: Iterable[str], path: str | None
) -> list[tuple[str | None, str]]:
    at = "" if path is None else f" at '{path}'"
    return [
        (path, f'Invalid JSON payload received. Unknown name "{name}"{at}: Cannot find field.')
        for name in value
        if name not in known
    ]
