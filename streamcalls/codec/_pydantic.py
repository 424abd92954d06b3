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
import weakref
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
    """The stand-in for a parameter pydantic reads: a subclass per parameter, holding its ``TypeAdapter``.

    msgspec takes from ``dec_hook`` only an instance of the type it asked
    for, so the validated value comes back wrapped in one (``.value``).
    """

    __slots__ = ("value",)
    adapter: Any
    annotation: Any

    def __init__(self, value: Any) -> None:
        self.value = value


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

    :raises TypeError: for a type pydantic cannot read, with the first line
        of its message (a model that is not fully defined, a field of a type
        pydantic does not know).
    """
    return type(
        "Adapted",
        (Adapted,),
        {"__slots__": (), "adapter": _adapter(annotation, pydantic), "annotation": annotation},
    )


def _adapter(annotation: Any, pydantic: ModuleType) -> Any:
    """``pydantic.TypeAdapter(annotation)``, built now (pydantic may defer the errors to the first use)."""
    try:
        adapter = pydantic.TypeAdapter(annotation)
        if not getattr(adapter, "pydantic_complete", True):
            adapter.json_schema()  # a model that is not fully defined says so here, not at its first call
    except (pydantic.PydanticUserError, NameError) as exc:
        raise TypeError(_first_line(exc)) from None
    return adapter


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0]


_MODELS: weakref.WeakKeyDictionary[type, Any] = weakref.WeakKeyDictionary()


def _adapter_of(kind: type, pydantic: ModuleType) -> Any:
    """The ``TypeAdapter`` of a model met inside a type msgspec reads, built once per model."""
    adapter = _MODELS.get(kind)
    if adapter is None:
        adapter = _MODELS[kind] = _adapter(kind, pydantic)
    return adapter


def decode(kind: type, value: Any) -> Any:
    """msgspec's ``dec_hook``: ``value`` (JSON data) validated into ``kind`` by pydantic.

    :raises PydanticInvalid: with pydantic's errors (msgspec adds the path to the value).
    """
    pydantic = loaded()
    if pydantic is None:  # pragma: no cover - a type that needs pydantic was accepted with it loaded
        raise NotImplementedError
    try:
        if issubclass(kind, Adapted):
            return kind(kind.adapter.validate_python(value))
        return _adapter_of(kind, pydantic).validate_python(value)
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

    :raises TypeError: for a model pydantic cannot read (see :func:`adapted`).
    """
    keyed = [
        (index, "validation", kind.adapter if issubclass(kind, Adapted) else _adapter_of(kind, pydantic))
        for index, kind in enumerate(kinds)
    ]
    try:
        by_key, top = pydantic.TypeAdapter.json_schemas(keyed, ref_template="#/$defs/{model}")
    except (pydantic.PydanticUserError, NameError) as exc:
        raise TypeError(_first_line(exc)) from None
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
