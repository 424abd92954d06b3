"""The ``~~~tool_call`` fence protocol, written into a system prompt.

For models without native tool calls (or whose native calls are unreliable):
the prompt tells the model how to write a call, and the ``"fence"`` text
detector reads what it writes -- in a stream, or with :func:`extract`.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from ._tool import Tool, ToolDefinitions, as_tools

__all__ = ("augment_system_prompt",)

_encode = msgspec.json.encode

_INTRO = """\
# Tools

You can call the tools listed below. To call one, write a block: a line ~~~tool_call, then one JSON \
object with the tool's "name" and its "arguments" (an object that follows the tool's parameters), \
then a line ~~~. For example:"""

_RULES = """\
Write one block per call; to call several tools, write several blocks. Put nothing else inside a \
block. After your calls, stop: the results come back in the next message."""

# A placeholder value per JSON type, for the example call.
_PLACEHOLDERS: dict[str, Any] = {
    "string": "...",
    "integer": 0,
    "number": 0,
    "boolean": True,
    "array": [],
    "object": {},
}


def augment_system_prompt(existing: str | None, tools: ToolDefinitions, compact: bool = False) -> str:
    """``existing``, a blank line, and the instructions for calling ``tools`` in fences.

    The instructions show an example block (a call of the first tool) and
    list every tool: with ``compact=False`` its name, description and JSON
    schema; with ``compact=True`` one line per tool,
    ``name(param: type, optional?: type) - description``, for weak models
    whose quality drops past a few KB of system prompt.  The text depends
    only on the arguments.  With no tools, ``existing`` is returned as it is.

    :raises UsageError: for a tool without a name.
    """
    listed = as_tools(tools)
    base = (existing or "").rstrip()
    if not listed:
        return base
    lines = [_INTRO, "", "~~~tool_call", _example(listed[0]), "~~~", "", _RULES, "", "Tools:"]
    for tool in listed:
        if compact:
            lines.append(_signature(tool))
        else:
            lines.append("")
            lines.append(f"{tool.name}: {_one_line(tool.description)}" if tool.description else tool.name)
            lines.append(f"Parameters: {_encode(tool.schema).decode()}")
    protocol = "\n".join(lines)
    return f"{base}\n\n{protocol}" if base else protocol


def _example(tool: Tool) -> str:
    properties = _properties(tool.schema)
    required = [name for name in _required(tool.schema) if name in properties]
    shown = required or list(properties)
    arguments = {name: _placeholder(properties[name]) for name in shown}
    return json.dumps({"name": tool.name, "arguments": arguments}, ensure_ascii=False)


def _placeholder(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return None
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    return _PLACEHOLDERS.get(kind) if isinstance(kind, str) else None


def _signature(tool: Tool) -> str:
    properties = _properties(tool.schema)
    required = set(_required(tool.schema))
    params = ", ".join(
        f"{name}{'' if name in required else '?'}: {_type(schema)}" for name, schema in properties.items()
    )
    line = f"{tool.name}({params})"
    return f"{line} - {_one_line(tool.description)}" if tool.description else line


def _type(schema: Any) -> str:
    """A JSON schema's type, briefly: string, integer[], "a"|"b", string|null, any."""
    if not isinstance(schema, dict):
        return "any"
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return "|".join(_encode(value).decode() for value in enum)
    options = schema.get("anyOf", schema.get("oneOf"))
    if isinstance(options, list) and options:
        return "|".join(_type(option) for option in options)
    kind = schema.get("type")
    if isinstance(kind, list) and kind:
        return "|".join(str(k) for k in kind)
    if kind == "array" and isinstance(schema.get("items"), dict):
        return f"{_type(schema['items'])}[]"
    return kind if isinstance(kind, str) else "any"


def _properties(schema: dict[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties")
    return properties if isinstance(properties, dict) else {}


def _required(schema: dict[str, Any]) -> list[str]:
    required = schema.get("required")
    return [name for name in required if isinstance(name, str)] if isinstance(required, list) else []


def _one_line(text: str) -> str:
    return " ".join(text.split())
