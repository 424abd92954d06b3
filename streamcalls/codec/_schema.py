"""The JSON schema of a function's arguments, from the Struct :mod:`._signature` makes for them.

``msgspec.json.schema`` writes it; then this module

- lifts the arguments' own object to the root, its ``$defs`` beside it;
- gives every ``datetime`` ``"format": "date-time"`` (msgspec writes the
  format only for ``Meta(tz=True)``; the validation already asks for RFC
  3339), wherever the type is: a parameter, a list's items, a field of a
  Struct, a dataclass, a TypedDict or a NamedTuple, a member of a union;
- puts in what pydantic writes for the types it reads (see
  :mod:`._pydantic`): msgspec leaves a placeholder ``$ref`` for each, and
  pydantic's definitions join msgspec's in ``$defs`` (renamed where a name is
  taken);
- adds each parameter's description (``msgspec.Meta(description=...)`` or
  pydantic's own first, then ``Annotated[T, "text"]``, then the docstring)
  and its default, where JSON can show it.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any, NamedTuple

import msgspec
import msgspec.inspect as mi

from .._errors import UsageError
from ._pydantic import Adapted, encode, needs_pydantic, schemas

__all__ = ("Parameter", "arguments_schema")

_EMPTY: Any = inspect.Parameter.empty
_PLACEHOLDER = "#/$defs/\x00pydantic-"  # a $ref no type can have: where pydantic's schema goes
_COMPONENTS = (mi.StructType, mi.TypedDictType, mi.DataclassType, mi.NamedTupleType)


class Parameter(NamedTuple):
    """One argument of a tool, as the arguments' Struct has it."""

    name: str
    annotation: Any  # as written (evaluated)
    kind: Any  # the Struct field's type: the annotation, or an Adapted type pydantic reads
    default: Any  # inspect.Parameter.empty when required
    text: str | None  # its description from Annotated[T, "text"]


def arguments_schema(
    label: str,
    arguments: type[msgspec.Struct],
    parameters: list[Parameter],
    documented: dict[str, str],
    pydantic: ModuleType | None,
) -> tuple[dict[str, Any], bool]:
    """The schema of the object ``arguments`` reads, self-contained (``$ref`` only into its ``$defs``),
    and whether pydantic reads any of its types (then msgspec needs :func:`._pydantic.decode` as its hook).

    :raises UsageError: naming the parameter whose type has no JSON schema.
    """
    customs = _Customs(pydantic)
    try:
        generated = msgspec.json.schema(arguments, schema_hook=customs.hook)
    except (TypeError, ValueError, NameError, AttributeError):
        raise _unsupported(label, parameters, customs.hook) from None
    definitions: dict[str, Any] = generated["$defs"]
    # The arguments' own Struct is the root; what it refers to stays in $defs beside it.
    root: dict[str, Any] = definitions.pop(generated["$ref"].rsplit("/", 1)[1])
    root.pop("title", None)
    root.setdefault("required", [])
    _mark_datetimes(mi.type_info(arguments), root, definitions, set())
    if customs.kinds:
        assert pydantic is not None
        try:
            _merge_pydantic(root, definitions, customs.kinds, pydantic)
        except TypeError as exc:
            raise UsageError(f"{label} cannot be a tool: a pydantic model in its parameters: {exc}") from None
    properties: dict[str, Any] = root["properties"]
    for parameter in parameters:
        schema = properties[parameter.name]
        text = parameter.text or documented.get(parameter.name)
        if text and "description" not in schema:  # msgspec.Meta(description=...) comes first
            schema["description"] = text
        if parameter.default is not _EMPTY and "default" not in schema:
            # A default the schema cannot show (a sentinel object) is only absent from "required".
            with contextlib.suppress(TypeError, ValueError):
                schema["default"] = msgspec.to_builtins(parameter.default, enc_hook=encode)
    if definitions:
        root["$defs"] = definitions
    return root, bool(customs.kinds)


class _Customs:
    """msgspec's ``schema_hook``: a placeholder for each type pydantic describes, in order."""

    __slots__ = ("kinds", "pydantic")

    def __init__(self, pydantic: ModuleType | None) -> None:
        self.pydantic = pydantic
        self.kinds: list[type] = []

    def hook(self, kind: type) -> dict[str, Any]:
        if self.pydantic is None or not (issubclass(kind, Adapted) or needs_pydantic(kind, self.pydantic)):
            raise NotImplementedError  # msgspec then says the type has no schema
        if kind not in self.kinds:
            self.kinds.append(kind)
        return {"$ref": f"{_PLACEHOLDER}{self.kinds.index(kind)}"}


def _unsupported(
    label: str, parameters: list[Parameter], hook: Callable[[type], dict[str, Any]]
) -> UsageError:
    """Which parameter's type msgspec cannot describe (or names something not defined)."""
    for parameter in parameters:
        try:
            msgspec.json.schema(parameter.kind, schema_hook=hook)
        except (NameError, AttributeError) as exc:
            return UsageError(
                f"{label} cannot be a tool: the type of parameter {parameter.name!r} "
                f"({parameter.annotation!r}) names something not defined where it is: {exc}"
            )
        except (TypeError, ValueError) as exc:
            first_line = str(exc).strip().splitlines()[-1]
            return UsageError(
                f"{label} cannot be a tool: the type of parameter {parameter.name!r} "
                f"({parameter.annotation!r}) has no JSON schema: {first_line}"
            )
    return UsageError(f"{label} cannot be a tool: its parameters' types have no JSON schema")


# -- datetimes -------------------------------------------------------------------------------


def _mark_datetimes(kind: mi.Type, node: Any, definitions: dict[str, Any], seen: set[str]) -> None:
    """Add ``"format": "date-time"`` to the schema ``node`` of each ``datetime`` in ``kind``.

    The schema is walked along the type, as msgspec wrote one from the
    other; a ``$ref`` is followed once.
    """
    while isinstance(kind, mi.Metadata):
        kind = kind.type
    if not isinstance(node, dict):
        return
    reference = node.get("$ref")
    if isinstance(reference, str) and isinstance(kind, (*_COMPONENTS, mi.EnumType)):
        key = reference.rsplit("/", 1)[1]
        if key in seen or key not in definitions:
            return
        seen.add(key)
        node = definitions[key]
    if isinstance(kind, mi.DateTimeType):
        # tz=False accepts only naive times, which RFC 3339's date-time is not.
        if kind.tz is not False and node.get("type") == "string":
            node.setdefault("format", "date-time")
    elif isinstance(kind, mi.CollectionType):
        _mark_datetimes(kind.item_type, node.get("items"), definitions, seen)
    elif isinstance(kind, mi.TupleType):
        for item, schema in zip(kind.item_types, node.get("prefixItems", ()), strict=False):
            _mark_datetimes(item, schema, definitions, seen)
    elif isinstance(kind, (mi.DictType, mi.FrozenDictType)):
        _mark_datetimes(kind.value_type, node.get("additionalProperties"), definitions, seen)
    elif isinstance(kind, _COMPONENTS):
        properties = node.get("properties")
        if isinstance(properties, dict):
            for field in kind.fields:
                _mark_datetimes(field.type, properties.get(field.encode_name), definitions, seen)
        else:  # an array: a NamedTuple, or an array_like Struct (its tag first)
            tagged = isinstance(kind, mi.StructType) and kind.tag_field is not None
            for field, schema in zip(
                kind.fields, node.get("prefixItems", ())[1 if tagged else 0 :], strict=False
            ):
                _mark_datetimes(field.type, schema, definitions, seen)
    elif isinstance(kind, mi.UnionType):
        options = list(_options(node))
        for member in kind.types:
            for option in _matching(member, options, definitions):
                _mark_datetimes(member, option, definitions, seen)


def _options(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The schemas of a union's members (tagged Structs are grouped under a discriminator)."""
    for option in node.get("anyOf", ()):
        if isinstance(option, dict) and "discriminator" in option:
            yield from _options(option)
        elif isinstance(option, dict):
            yield option


def _matching(
    member: mi.Type, options: list[dict[str, Any]], definitions: dict[str, Any]
) -> list[dict[str, Any]]:
    """The option written for a union's member.

    msgspec allows one member per JSON type in a union (one that is a
    string, one array, one object), Structs told apart by their tag: so a
    member's option is the one of its JSON type, or the ``$ref`` to its class.
    """
    while isinstance(member, mi.Metadata):
        member = member.type
    if isinstance(member, _COMPONENTS):
        name = member.cls.__name__
        return [
            option
            for option in options
            if isinstance(option.get("$ref"), str)
            and definitions.get(option["$ref"].rsplit("/", 1)[1], {}).get("title") == name
        ]
    if isinstance(member, mi.DateTimeType):
        wanted = "string"
    elif isinstance(member, (mi.CollectionType, mi.TupleType)):
        wanted = "array"
    elif isinstance(member, (mi.DictType, mi.FrozenDictType)):
        wanted = "object"
    else:
        return []
    return [option for option in options if option.get("type") == wanted and "$ref" not in option]


# -- pydantic's schemas ----------------------------------------------------------------------


def _merge_pydantic(
    root: dict[str, Any], definitions: dict[str, Any], kinds: list[type], pydantic: ModuleType
) -> None:
    """Replace the placeholders with pydantic's schemas; its definitions join ``definitions``."""
    found, added = schemas(kinds, pydantic)
    renamed: dict[str, str] = {}
    for name in list(added):
        if name in definitions:
            number = 2
            while f"{name}{number}" in definitions or f"{name}{number}" in added:
                number += 1
            renamed[f"#/$defs/{name}"] = f"#/$defs/{name}{number}"
            added[f"{name}{number}"] = added.pop(name)
    if renamed:
        for schema in (*found, *added.values()):
            _rename(schema, renamed)
    nodes = [root, *definitions.values()]
    definitions.update(added)
    for node in nodes:
        _fill(node, found)


def _rename(node: Any, renamed: dict[str, str]) -> None:
    if isinstance(node, dict):
        reference = node.get("$ref")
        if isinstance(reference, str) and reference in renamed:
            node["$ref"] = renamed[reference]
        for value in node.values():
            _rename(value, renamed)
    elif isinstance(node, list):
        for value in node:
            _rename(value, renamed)


def _fill(node: Any, found: list[dict[str, Any]]) -> None:
    if isinstance(node, dict):
        reference = node.get("$ref")
        if isinstance(reference, str) and reference.startswith(_PLACEHOLDER):
            del node["$ref"]
            # What msgspec wrote beside the type (its default) stays beside pydantic's schema.
            beside = dict(node)
            node.clear()
            node.update(copy.deepcopy(found[int(reference[len(_PLACEHOLDER) :])]))
            node.update(beside)
            return
        for value in node.values():
            _fill(value, found)
    elif isinstance(node, list):
        for value in node:
            _fill(value, found)
