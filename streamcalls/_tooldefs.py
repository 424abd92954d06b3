"""Reading tool definitions in any provider's shape: each tool's name, description and parameter schema.

One reader for the two places that take tools: the parser (``StreamParser(tools=...)``: the
names a bare JSON object may call, and the parameter types that type the values of the XML
formats, see :mod:`streamcalls.detectors._parts.values`) and the codec (:func:`streamcalls.codec`'s
``as_tools``, which builds :class:`~streamcalls.Tool` objects from the same dicts).

A tool is one of

- a name (``"get_weather"``): no schema;
- a dict in a provider's shape: OpenAI Chat's (also Ollama's, Cohere's, vLLM's)
  ``{"type": "function", "function": {"name", "description", "parameters"}}``, the flat
  ``{"name", "description", "parameters"}`` of OpenAI Responses, Anthropic's ``input_schema``,
  Bedrock's ``{"toolSpec": {"name", "inputSchema": {"json": ...}}}``, or Gemini's
  ``{"functionDeclarations": [...]}`` (several tools in one dict; ``parametersJsonSchema`` or
  ``parameters``);
- an object with a ``name`` and a ``parameters`` (or ``schema``) dict: a
  :class:`~streamcalls.Tool`, which is how a typed function's schema reaches the parser
  (``Tool.from_function(fn)``).  The parser does not read functions itself -- that is the
  codec's work, and the core does not import the codec -- so a bare function given to the
  parser is a :class:`~streamcalls.UsageError` that says so.

This module is core: it imports nothing above the error types.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from ._errors import UsageError

__all__ = ("ToolDefinition", "read_tool", "read_tools")


class ToolDefinition(NamedTuple):
    """One tool as read: its parameters are the arguments' JSON schema (None: none given)."""

    name: str
    description: str = ""
    parameters: dict[str, Any] | None = None


def read_tools(tools: Iterable[Any]) -> list[ToolDefinition]:
    """Every tool in ``tools`` (a Gemini dict may hold several).

    :raises UsageError: for a tool without a name, a schema that is not a dict, or a thing
        that is no tool definition (a bare function included).
    """
    found: list[ToolDefinition] = []
    for tool in tools:
        found += read_tool(tool)
    return found


def read_tool(tool: object) -> list[ToolDefinition]:
    """The definitions one item of a tools list holds (see the module docstring)."""
    if isinstance(tool, str):
        return [_checked(tool, "", None, tool)]
    if isinstance(tool, Mapping):
        return _from_mapping(tool)
    name = getattr(tool, "name", None)
    if name is None and callable(tool):
        raise UsageError(
            f"{tool!r:.100} is a function, not a tool definition: pass streamcalls.Tool.from_function(...) "
            "(which reads its schema)"
        )
    parameters = getattr(tool, "parameters", None)
    if parameters is None:
        schema = getattr(tool, "schema", None)
        parameters = schema if isinstance(schema, dict) else None
    return [_checked(name, getattr(tool, "description", "") or "", parameters, tool)]


def _from_mapping(tool: Mapping[str, Any]) -> list[ToolDefinition]:
    declarations = tool.get("functionDeclarations", tool.get("function_declarations"))
    if declarations is not None and "name" not in tool:  # Gemini: one dict, several tools
        if isinstance(declarations, (str, bytes, Mapping)) or not isinstance(declarations, Iterable):
            raise UsageError(f"functionDeclarations must be a list of declarations: {tool!r:.200}")
        return [_gemini(declaration, tool) for declaration in declarations]
    spec = tool.get("function")
    if not isinstance(spec, Mapping):
        spec = tool.get("toolSpec")  # Bedrock
    if not isinstance(spec, Mapping):
        spec = tool
    parameters = spec.get("parameters", spec.get("input_schema"))
    if parameters is None:
        bedrock = spec.get("inputSchema")
        parameters = bedrock.get("json") if isinstance(bedrock, Mapping) else bedrock
    return [_checked(spec.get("name"), spec.get("description"), parameters, tool)]


def _gemini(declaration: object, tool: object) -> ToolDefinition:
    if not isinstance(declaration, Mapping):
        raise UsageError(f"a function declaration must be a dict: {tool!r:.200}")
    parameters = declaration.get("parametersJsonSchema", declaration.get("parameters_json_schema"))
    if parameters is None:
        parameters = declaration.get("parameters")  # Google's OpenAPI subset: "type": "STRING", ...
    return _checked(declaration.get("name"), declaration.get("description"), parameters, tool)


def _checked(name: object, description: object, parameters: object, tool: object) -> ToolDefinition:
    if not isinstance(name, str) or not name:
        raise UsageError(f"a tool without a name: {tool!r:.200}")
    if not description:
        description = ""
    if not isinstance(description, str):
        raise UsageError(f"a tool's description must be a string: {tool!r:.200}")
    if parameters is not None and not isinstance(parameters, dict):
        raise UsageError(
            f"tool {name!r}: parameters must be a JSON schema dict, not {type(parameters).__name__}"
        )
    return ToolDefinition(name, description, parameters)
