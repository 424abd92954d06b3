"""Provider-neutral tool definitions, and the shapes accepted as input."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from .._errors import UsageError

__all__ = ("Tool", "as_tools", "empty_schema")


class Tool(msgspec.Struct, frozen=True):
    """A tool the model may call: ``Tool(name, description, parameters)``.

    ``parameters`` is the JSON schema of the call's arguments object; ``None``
    (a tool without arguments) is sent as ``{"type": "object", "properties": {}}``.
    """

    name: str
    description: str = ""
    parameters: dict[str, Any] | None = None

    @property
    def schema(self) -> dict[str, Any]:
        """The arguments' JSON schema as sent to a provider."""
        return self.parameters if self.parameters is not None else empty_schema()


def empty_schema() -> dict[str, Any]:
    return {"type": "object", "properties": {}}


def as_tools(tools: Iterable[Tool | Mapping[str, Any]]) -> list[Tool]:
    """Tools from :class:`Tool` objects or dicts.

    A dict is OpenAI's ``{"type": "function", "function": {name, description,
    parameters}}`` (also Ollama's and Cohere's), or a flat ``{name,
    description, parameters}`` (OpenAI Responses' shape; Anthropic's
    ``input_schema`` is read as the parameters too).

    :raises UsageError: for anything else.
    """
    if isinstance(tools, (Tool, Mapping, str)):
        raise UsageError("tools must be a list of tools, not a single one")
    return [_as_tool(tool) for tool in tools]


def _as_tool(tool: Tool | Mapping[str, Any]) -> Tool:
    if isinstance(tool, Tool):
        _check(tool.name, tool.parameters, tool)
        return tool
    if not isinstance(tool, Mapping):
        raise UsageError(f"a tool must be a streamcalls.Tool or a dict, not {type(tool).__name__}")
    function = tool.get("function")
    spec = function if isinstance(function, Mapping) else tool
    name = spec.get("name")
    parameters = spec.get("parameters", spec.get("input_schema"))
    description = spec.get("description") or ""
    if not isinstance(description, str):
        raise UsageError(f"a tool's description must be a string: {tool!r:.200}")
    _check(name, parameters, tool)
    assert isinstance(name, str)
    return Tool(name, description, parameters)


def _check(name: object, parameters: object, tool: object) -> None:
    if not isinstance(name, str) or not name:
        raise UsageError(f"a tool without a name: {tool!r:.200}")
    if parameters is not None and not isinstance(parameters, dict):
        raise UsageError(
            f"tool {name!r}: parameters must be a JSON schema dict, not {type(parameters).__name__}"
        )
