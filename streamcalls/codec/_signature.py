"""A Python function as a tool: its arguments' JSON schema, and their validation before a call.

:func:`signature_of` reads a function once: each parameter's annotation
becomes a field of a msgspec Struct made for the function (``forbid_unknown_fields``,
so an argument the function does not take is refused), and msgspec does the
rest -- ``msgspec.json.schema`` writes the schema, ``msgspec.convert`` checks
a call's arguments and turns them into the annotated types (a string into a
``datetime``, an object into a Struct or a dataclass).

A parameter with a default is not required.  An immutable default (``None``,
a number, a string, an Enum member, a datetime, ...) is the field's default,
so the checked arguments are the Struct's fields as they are.  Any other
default (a list, a sentinel object) cannot be a Struct's: that field is
``T | UnsetType`` defaulting to ``UNSET``, and an argument the model left out
is then not passed at all, so that the function gets its own default object.

The result is cached per function: building a Struct type and its schema
costs tens of microseconds, a dictionary lookup does not.
"""

from __future__ import annotations

import contextlib
import datetime
import decimal
import enum
import functools
import inspect
import uuid
import weakref
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, Union

import msgspec

from .._errors import UsageError
from .._events import ToolCall
from ._docstring import parameter_descriptions, summary

__all__ = ("InvalidArguments", "ToolSignature", "signature_of")

_UNSET = msgspec.UNSET
_convert = msgspec.convert
_asdict = msgspec.structs.asdict
# Defaults a Struct field can hold: immutable, so one object serves every call.
_IMMUTABLE = frozenset(
    {
        type(None),
        bool,
        int,
        float,
        str,
        bytes,
        datetime.datetime,
        datetime.date,
        datetime.time,
        datetime.timedelta,
        uuid.UUID,
        decimal.Decimal,
    }
)
_REJECTED_KINDS: dict[inspect._ParameterKind, str] = {
    inspect.Parameter.VAR_POSITIONAL: "*{name}: a tool's arguments are named",
    inspect.Parameter.VAR_KEYWORD: "**{name}: every argument needs its own annotated parameter",
    inspect.Parameter.POSITIONAL_ONLY: "{name} is positional-only: a tool's arguments are passed by name",
}


class InvalidArguments(Exception):
    """A call's arguments do not match the function's parameters; the text is written for the model."""


class _Parameter(NamedTuple):
    name: str
    annotation: Any
    default: Any  # inspect.Parameter.empty when required


class ToolSignature:
    """What :meth:`Tool.from_function <streamcalls.Tool.from_function>` reads from a function.

    ``schema`` is the arguments' JSON schema: an object with its own
    ``$defs``, one property per parameter (the ``ToolCall``-typed one left
    out), ``required`` listing those without a default.
    """

    __slots__ = ("_arguments", "_unset", "call_parameter", "description", "name", "schema")

    def __init__(self, fn: Callable[..., Any]) -> None:
        parameters, self.call_parameter = _parameters(fn)
        doc = inspect.getdoc(_unwrapped(fn)) or ""
        self.name: str | None = _name(fn)
        self.description = summary(doc)
        # The parameters whose default the Struct cannot hold: left out when the model leaves them out.
        self._unset = tuple(
            p.name for p in parameters if p.default is not _EMPTY and not _holdable(p.default)
        )
        self._arguments: type[msgspec.Struct] = msgspec.defstruct(
            "Arguments",
            [_field(p, p.name in self._unset) for p in parameters],
            forbid_unknown_fields=True,
            kw_only=True,
            gc=False,  # an instance lives from convert() to asdict(): it is never part of a cycle
        )
        self.schema = _schema(fn, self._arguments, parameters, parameter_descriptions(doc))

    def arguments(self, name: str, arguments: Mapping[str, Any], call: ToolCall) -> dict[str, Any]:
        """The keyword arguments for the function, converted to its annotated types.

        :raises InvalidArguments: naming the tool, the argument's path and what was expected, e.g.
            ``invalid arguments for get_weather: Expected int, got str - at $.days``.
        """
        try:
            kwargs = _asdict(_convert(arguments, self._arguments))
        except msgspec.ValidationError as exc:
            # msgspec quotes names and paths in backticks; the model reads plain text.
            raise InvalidArguments(f"invalid arguments for {name}: {str(exc).replace('`', '')}") from None
        for field in self._unset:
            if kwargs[field] is _UNSET:
                del kwargs[field]
        if self.call_parameter is not None:
            kwargs[self.call_parameter] = call
        return kwargs


_EMPTY: Any = inspect.Parameter.empty
# The annotations of the parameter that receives the call itself (Optional: the function may also be
# called directly, without one).
_CALL_ANNOTATIONS: tuple[Any, ...] = (ToolCall, ToolCall | None)  # Optional[ToolCall] == ToolCall | None
_CACHE: weakref.WeakKeyDictionary[Callable[..., Any], ToolSignature] = weakref.WeakKeyDictionary()


def signature_of(fn: Callable[..., Any]) -> ToolSignature:
    """The function's :class:`ToolSignature`, read once per function.

    :raises UsageError: for a parameter a tool cannot have (``*args``,
        ``**kwargs``, positional-only, unannotated, or a type msgspec cannot
        describe), naming it.
    """
    try:
        return _CACHE[fn]
    except (KeyError, TypeError):  # TypeError: a callable that cannot be weakly referenced or hashed
        pass
    if not callable(fn):
        raise UsageError(f"a tool's function must be callable, not {type(fn).__name__}")
    signature = ToolSignature(fn)
    with contextlib.suppress(TypeError):
        _CACHE[fn] = signature
    return signature


def _unwrapped(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The function whose docstring and name count (a ``functools.partial``'s own are generic)."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    return fn


def _name(fn: Callable[..., Any]) -> str | None:
    name = getattr(_unwrapped(fn), "__name__", None)
    return name if isinstance(name, str) and name.isidentifier() else None


def _label(fn: Callable[..., Any]) -> str:
    return _name(fn) or repr(fn)


def _parameters(fn: Callable[..., Any]) -> tuple[list[_Parameter], str | None]:
    try:
        # eval_str: annotations written as strings (from __future__ import annotations) become types.
        signature = inspect.signature(fn, eval_str=True)
    except NameError as exc:
        raise UsageError(
            f"the annotations of {_label(fn)} name something not defined where the function is: {exc}"
        ) from None
    except (TypeError, ValueError) as exc:
        raise UsageError(f"cannot read the parameters of {_label(fn)}: {exc}") from None
    parameters: list[_Parameter] = []
    call_parameter: str | None = None
    for parameter in signature.parameters.values():
        rejected = _REJECTED_KINDS.get(parameter.kind)
        if rejected is not None:
            raise UsageError(f"{_label(fn)} cannot be a tool: {rejected.format(name=parameter.name)}")
        if parameter.annotation is _EMPTY:
            raise UsageError(
                f"{_label(fn)} cannot be a tool: parameter {parameter.name!r} has no annotation "
                "(the annotation is the argument's type, in the schema and in validation)"
            )
        if parameter.annotation in _CALL_ANNOTATIONS:
            call_parameter = parameter.name
        else:
            parameters.append(_Parameter(parameter.name, parameter.annotation, parameter.default))
    return parameters, call_parameter


def _holdable(default: Any) -> bool:
    """Whether a default can be the Struct field's own: immutable, and one value for every call."""
    return type(default) in _IMMUTABLE or isinstance(default, enum.Enum)


def _field(parameter: _Parameter, unset: bool) -> tuple[str, Any] | tuple[str, Any, Any]:
    if parameter.default is _EMPTY:
        return (parameter.name, parameter.annotation)
    if unset:
        return (parameter.name, Union[parameter.annotation, msgspec.UnsetType], _UNSET)  # noqa: UP007
    return (parameter.name, parameter.annotation, parameter.default)


def _schema(
    fn: Callable[..., Any],
    arguments: type[msgspec.Struct],
    parameters: list[_Parameter],
    documented: dict[str, str],
) -> dict[str, Any]:
    try:
        generated = msgspec.json.schema(arguments)
    except (TypeError, ValueError):
        raise _unsupported(fn, parameters) from None
    definitions: dict[str, Any] = generated["$defs"]
    # The arguments' own Struct is the root; what it refers to stays in $defs beside it.
    root: dict[str, Any] = definitions.pop(generated["$ref"].rsplit("/", 1)[1])
    root.pop("title", None)
    root.setdefault("required", [])
    properties: dict[str, Any] = root["properties"]
    for parameter in parameters:
        schema = properties[parameter.name]
        text = documented.get(parameter.name)
        if text and "description" not in schema:  # msgspec.Meta(description=...) comes first
            schema["description"] = text
        if parameter.default is not _EMPTY and "default" not in schema:
            # A default the schema cannot show (a sentinel object) is only absent from "required".
            with contextlib.suppress(TypeError, ValueError):
                schema["default"] = msgspec.to_builtins(parameter.default)
    if definitions:
        root["$defs"] = definitions
    return root


def _unsupported(fn: Callable[..., Any], parameters: list[_Parameter]) -> UsageError:
    """Which parameter's type msgspec cannot describe."""
    for parameter in parameters:
        try:
            msgspec.json.schema(parameter.annotation)
        except (TypeError, ValueError) as exc:
            first_line = str(exc).strip().splitlines()[-1]
            return UsageError(
                f"{_label(fn)} cannot be a tool: the type of parameter {parameter.name!r} "
                f"({parameter.annotation!r}) has no JSON schema: {first_line}"
            )
    return UsageError(f"{_label(fn)} cannot be a tool: its parameters' types have no JSON schema")
