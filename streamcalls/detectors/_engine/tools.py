"""What the detectors know of the tools: their names, and each parameter's type read from its schema.

Formats that write values as bare text (``qwen3_coder``, ``glm``, ``minimax``, DSML) type them
by their parameter's schema in the tool definitions given with ``tools=`` (issue 15, rule 1);
this module reads the schemas, :mod:`~streamcalls.detectors._parts.values` converts the values.
How a schema gives a parameter its type:

- ``anyOf`` / ``oneOf`` / a type list: the first type that is not ``null`` decides;
  ``$ref`` into the schema's own ``$defs`` is followed; an ``enum`` or ``const`` without a
  type takes the type of its first value that is not None;
- a schema that admits ``null`` (``"type": ["string", "null"]``, an ``anyOf`` with
  ``{"type": "null"}``, ``"nullable": true``) makes the parameter nullable;
- type names are read case-blind (Gemini's OpenAPI subset writes ``"STRING"``); an unknown
  type is a string, and so is a parameter with no schema (or no ``tools=`` at all).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from ..._tooldefs import ToolDefinition

__all__ = (
    "ARRAY",
    "BOOLEAN",
    "INTEGER",
    "NO_TOOLS",
    "NUMBER",
    "OBJECT",
    "STRING",
    "ParameterType",
    "ToolTypes",
    "item_schema",
    "member_schema",
    "type_of",
)

# Kinds.
STRING = "string"
INTEGER = "integer"
NUMBER = "number"
BOOLEAN = "boolean"
OBJECT = "object"
ARRAY = "array"
_NULL = "null"
_KINDS = frozenset({STRING, INTEGER, NUMBER, BOOLEAN, OBJECT, ARRAY})

_MAX_REFS = 16  # $ref / anyOf hops followed before a schema counts as untyped (a cycle)


class ParameterType(NamedTuple):
    kind: str = STRING
    nullable: bool = False


_UNTYPED = ParameterType()
_NO_PARAMETERS: Mapping[str, ParameterType] = MappingProxyType({})


class ToolTypes:
    """Each tool's parameter types, read from its schema the first time a call of it needs them.

    Without tools, every parser shares :data:`NO_TOOLS`: nothing is read, nothing is kept.
    """

    __slots__ = ("_read", "_schemas")

    def __init__(self, definitions: Iterable[ToolDefinition] = ()) -> None:
        # The last definition of a name wins, as a provider would see the list.
        self._schemas = {d.name: d.parameters for d in definitions}
        self._read: dict[str, Mapping[str, ParameterType]] | None = None  # made at the first read

    def of(self, tool: str | None, parameter: str) -> ParameterType:
        """The type of ``tool``'s ``parameter``: a string when nothing says otherwise."""
        if tool is None:
            return _UNTYPED
        return self.parameters(tool).get(parameter, _UNTYPED)

    def parameters(self, tool: str) -> Mapping[str, ParameterType]:
        """``tool``'s parameters and their types, in the schema's order (none if it has no schema)."""
        if tool not in self._schemas:  # not kept: any name a model writes would be
            return _NO_PARAMETERS
        read = self._read
        if read is None:
            read = self._read = {}
        types = read.get(tool)
        if types is None:
            types = read[tool] = _parameter_types(self._schemas[tool])
        return types

    def schema(self, tool: str | None) -> dict[str, Any] | None:
        """``tool``'s parameters schema, for formats that nest values (MiniMax M3's elements)."""
        schema = self._schemas.get(tool) if tool is not None else None
        return schema if isinstance(schema, dict) else None


NO_TOOLS = ToolTypes()  # for parsers given no tools=


# Nested values: the schema of an object's member or an array's item, and its type.


def type_of(schema: dict[str, Any] | None, root: dict[str, Any]) -> ParameterType:
    """The type a (sub)schema gives its value (a string when there is none)."""
    return _UNTYPED if schema is None else _type_of(schema, root, _MAX_REFS)


def member_schema(schema: dict[str, Any] | None, root: dict[str, Any], key: str) -> dict[str, Any] | None:
    """The schema of member ``key`` of an object (its property, else its additionalProperties)."""
    found = _effective(schema, root)
    if found is None:
        return None
    properties = found.get("properties")
    if isinstance(properties, dict) and isinstance(properties.get(key), dict):
        return properties[key]  # type: ignore[no-any-return]
    extra = found.get("additionalProperties")
    return extra if isinstance(extra, dict) else None


def item_schema(schema: dict[str, Any] | None, root: dict[str, Any]) -> dict[str, Any] | None:
    """The schema of an array's items."""
    found = _effective(schema, root)
    items = found.get("items") if found is not None else None
    return items if isinstance(items, dict) else None


def _effective(schema: dict[str, Any] | None, root: dict[str, Any]) -> dict[str, Any] | None:
    """The schema that describes the value: ``$ref`` followed, the first member of an ``anyOf`` /
    ``oneOf`` / ``allOf`` that is not ``null``."""
    for _ in range(_MAX_REFS):
        if schema is None:
            return None
        ref = schema.get("$ref")
        if isinstance(ref, str):
            schema = _resolve(ref, root)
            continue
        for key in ("anyOf", "oneOf", "allOf"):
            members = schema.get(key)
            if isinstance(members, list) and "type" not in schema:
                typed = [m for m in members if isinstance(m, dict) and m.get("type") != _NULL]
                schema = typed[0] if typed else None
                break
        else:
            return schema
    return None


def _parameter_types(schema: dict[str, Any] | None) -> dict[str, ParameterType]:
    if not isinstance(schema, dict):
        return {}
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return {}
    return {
        name: _type_of(sub, schema, _MAX_REFS)
        for name, sub in properties.items()
        if isinstance(name, str) and isinstance(sub, dict)
    }


def _type_of(schema: dict[str, Any], root: dict[str, Any], hops: int) -> ParameterType:
    """A schema's kind and whether it admits null (see the module docstring)."""
    if hops <= 0:
        return _UNTYPED
    nullable = schema.get("nullable") is True
    declared = schema.get("type")
    if isinstance(declared, str):
        return _kind(declared.lower(), nullable)
    if isinstance(declared, list):
        names = [t.lower() for t in declared if isinstance(t, str)]
        rest = [t for t in names if t != _NULL]
        return _kind(rest[0] if rest else _NULL, nullable or len(rest) < len(names))
    for key in ("anyOf", "oneOf"):
        members = schema.get(key)
        if isinstance(members, list):
            kinds = [_type_of(m, root, hops - 1) for m in members if isinstance(m, dict)]
            nullable = nullable or any(t.nullable for t in kinds)
            typed = [t for t in kinds if t.kind != _NULL]
            return ParameterType(typed[0].kind if typed else STRING, nullable)
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = _resolve(ref, root)
        if target is None:
            return ParameterType(STRING, nullable)
        found = _type_of(target, root, hops - 1)
        return ParameterType(found.kind, found.nullable or nullable)
    members = schema.get("allOf")
    if isinstance(members, list):
        for member in members:
            if isinstance(member, dict):
                found = _type_of(member, root, hops - 1)
                if found.kind != _NULL:
                    return ParameterType(found.kind, found.nullable or nullable)
    values = schema.get("enum")
    if not isinstance(values, list):
        values = [schema["const"]] if "const" in schema else []
    if values:
        nullable = nullable or None in values
        for value in values:
            if value is not None:
                return ParameterType(_kind_of_value(value), nullable)
        return ParameterType(STRING, True)
    return ParameterType(STRING, nullable)


def _kind(name: str, nullable: bool) -> ParameterType:
    if name == _NULL:
        return ParameterType(_NULL, True)  # only null: ``null`` is None, anything else a string
    return ParameterType(name if name in _KINDS else STRING, nullable)


def _kind_of_value(value: object) -> str:
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, int):
        return INTEGER
    if isinstance(value, float):
        return NUMBER
    if isinstance(value, dict):
        return OBJECT
    if isinstance(value, list):
        return ARRAY
    return STRING


def _resolve(ref: str, root: dict[str, Any]) -> dict[str, Any] | None:
    """A local ``$ref`` (``#/$defs/Name``, ``#/definitions/Name``, any JSON pointer into the root)."""
    if not ref.startswith("#"):
        return None
    node: Any = root
    for part in ref[1:].split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node if isinstance(node, dict) else None
