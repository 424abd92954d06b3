"""Pydantic models in tools, when pydantic is there: their own schema, validation and JSON.

pydantic is optional, and never imported here: a function can only be
annotated with a model if its program imported pydantic already, so
``sys.modules`` says whether there is anything to do (and nothing is loaded
when there is not).

- A parameter whose annotation pydantic must read -- a ``BaseModel`` or a
  pydantic dataclass anywhere in it (``Order``, ``list[Order]``,
  ``Order | None``), or pydantic's or ``annotated_types``' constraints in
  its ``Annotated`` metadata -- is validated and described by a
  ``pydantic.TypeAdapter`` of the whole annotation (:func:`adapted` gives the
  marker type that stands for it in the arguments' Struct).  msgspec keeps
  every other parameter.
- A model inside a type msgspec reads (a field of a Struct or a dataclass)
  is a custom type for msgspec: :func:`decode` validates it with the model.
- Each such type's schema is written by pydantic, all of them at once
  (:func:`schemas`), so that the models they share have one definition.
- :func:`encode` turns a model a tool returns into JSON data
  (``model_dump(mode="json")``).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterable
from types import ModuleType
from typing import Annotated, Any, Literal, get_args, get_origin

__all__ = (
    "Adapted",
    "PydanticInvalid",
    "adapted",
    "decode",
    "describe",
    "encode",
    "loaded",
    "needs_pydantic",
    "schemas",
)

# The modules whose Annotated metadata only pydantic understands (Field(...), Gt(0), ...).
_METADATA_MODULES = ("pydantic", "annotated_types")


class Adapted:
    """The stand-in for a parameter pydantic reads: a subclass per parameter, holding its ``TypeAdapter``."""

    adapter: Any
    annotation: Any


class PydanticInvalid(ValueError):
    """pydantic refused a value; ``errors`` are its ``ValidationError.errors()``."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__("; ".join(str(error.get("msg", "invalid")) for error in errors))
        self.errors = errors


def loaded() -> ModuleType | None:
    """pydantic, if this program imported it (v2: it has ``TypeAdapter``); else ``None``."""
    module = sys.modules.get("pydantic")
    return module if module is not None and hasattr(module, "TypeAdapter") else None


def needs_pydantic(annotation: Any, pydantic: ModuleType) -> bool:
    """Whether pydantic must read this annotation: a model, a pydantic dataclass or pydantic metadata in it."""
    if isinstance(annotation, type):
        # A model, or a pydantic dataclass (its validators run in its __init__, which msgspec would skip).
        return issubclass(annotation, pydantic.BaseModel) or (
            dataclasses.is_dataclass(annotation) and hasattr(annotation, "__pydantic_validator__")
        )
    origin = get_origin(annotation)
    if origin is Literal:
        return False
    if origin is Annotated:
        base, *metadata = get_args(annotation)
        return any(
            type(item).__module__.split(".", 1)[0] in _METADATA_MODULES for item in metadata
        ) or needs_pydantic(base, pydantic)
    return any(needs_pydantic(argument, pydantic) for argument in get_args(annotation))


def adapted(annotation: Any, pydantic: ModuleType) -> type[Adapted]:
    """A fresh :class:`Adapted` type for one parameter's annotation.

    :raises NameError: for a model whose annotations name something not
        defined (pydantic's ``PydanticUndefinedAnnotation``).
    :raises TypeError: for a type pydantic cannot read either.
    """
    try:
        adapter = pydantic.TypeAdapter(annotation)
    except pydantic.PydanticSchemaGenerationError as exc:
        raise TypeError(str(exc).splitlines()[0]) from None
    return type("Adapted", (Adapted,), {"adapter": adapter, "annotation": annotation})


def decode(kind: type, value: Any) -> Any:
    """msgspec's ``dec_hook``: ``value`` (JSON data) validated into ``kind`` by pydantic.

    :raises PydanticInvalid: with pydantic's errors (msgspec adds the path to the value).
    """
    pydantic = loaded()
    if pydantic is None:  # pragma: no cover - a type that needs pydantic was accepted with it loaded
        raise NotImplementedError
    adapter = kind.adapter if issubclass(kind, Adapted) else pydantic.TypeAdapter(kind)
    try:
        return adapter.validate_python(value)
    except pydantic.ValidationError as exc:
        raise PydanticInvalid(exc.errors(include_url=False, include_context=False)) from None


def encode(value: Any) -> Any:
    """msgspec's ``enc_hook``: a pydantic model as JSON data; anything else is not ours."""
    pydantic = loaded()
    if pydantic is not None and isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json")
    # msgspec lets the hook's exception through: this is the message it gives without a hook.
    raise TypeError(f"Encoding objects of type {type(value).__name__} is unsupported")


def schemas(kinds: Iterable[type], pydantic: ModuleType) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The JSON schema of each type (an :class:`Adapted` or a model), and their shared ``$defs``.

    Every ``$ref`` is ``#/$defs/<name>``, into the returned definitions.
    """
    keyed = [
        (index, "validation", kind.adapter if issubclass(kind, Adapted) else pydantic.TypeAdapter(kind))
        for index, kind in enumerate(kinds)
    ]
    by_key, top = pydantic.TypeAdapter.json_schemas(keyed, ref_template="#/$defs/{model}")
    return [by_key[(index, "validation")] for index, _, _ in keyed], dict(top.get("$defs", {}))


def describe(error: PydanticInvalid, path: str) -> str:
    """pydantic's errors as one line for the model, each at its path under ``path`` (msgspec's ``$.x``)."""
    parts = []
    for item in error.errors:
        where = path + "".join(
            f"[{key}]" if isinstance(key, int) else f".{key}" for key in item.get("loc", ())
        )
        parts.append(f"{item.get('msg', 'invalid')} - at {where}")
    return "; ".join(parts)
