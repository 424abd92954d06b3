"""A Python function as a tool: its arguments' JSON schema, and their validation before a call.

:func:`signature_of` reads a function once: each parameter's annotation
becomes a field of a msgspec Struct made for the function (``forbid_unknown_fields``,
so an argument the function does not take is refused), and msgspec does the
rest -- ``msgspec.json.schema`` writes the schema (see :mod:`._schema`),
``msgspec.convert`` checks a call's arguments and turns them into the
annotated types (a string into a ``datetime``, an object into a Struct or a
dataclass).  Where pydantic is loaded, a parameter that pydantic must read
(a model in it) is validated and described by pydantic (:mod:`._pydantic`).

Not arguments, and never in the schema: a parameter annotated
:class:`~streamcalls.ToolCall` (it receives the call), one annotated
:class:`~streamcalls.ToolContext` (the run's dependencies, see
:mod:`._context`), and the keywords a ``functools.partial`` binds.

A parameter with a default is not required.  An immutable default (``None``,
a number, a string, an Enum member, a datetime, ...) is the field's default,
so the checked arguments are the Struct's fields as they are.  Any other
default (a list, a sentinel object) cannot be a Struct's: that field is
``T | UnsetType`` defaulting to ``UNSET``, and an argument the model left out
is then not passed at all, so that the function gets its own default object.

Annotations written as strings (``from __future__ import annotations``) are
evaluated where the function is defined; one that names nothing there is a
:class:`~streamcalls.UsageError` naming the parameter -- unless the
parameter is bound by a ``partial``, or is a ``ToolContext`` whose
dependencies' type is imported for type checkers only.

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
import types
import uuid
import weakref
from collections.abc import Callable, Mapping
from typing import Annotated, Any, NamedTuple, Union, get_args, get_origin

import msgspec

from .._errors import UsageError
from .._events import ToolCall
from ._context import ToolContext
from ._docstring import parameter_descriptions, summary
from ._pydantic import Adapted, PydanticInvalid, adapted, decode, describe, loaded, needs_pydantic
from ._schema import Parameter, arguments_schema

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


class _Reading(NamedTuple):
    """What a function's signature says: its arguments, and the parameters that are not arguments."""

    parameters: list[Parameter]
    call_parameter: str | None
    context_parameter: str | None
    context_type: Any  # ToolContext[T]'s T; None when not written or not resolvable


class ToolSignature:
    """What :meth:`Tool.from_function <streamcalls.Tool.from_function>` reads from a function.

    ``schema`` is the arguments' JSON schema: an object with its own
    ``$defs``, one property per argument (the ``ToolCall`` and
    ``ToolContext`` parameters and a partial's bound keywords left out),
    ``required`` listing those without a default.  ``context_parameter``
    names the parameter that takes a :class:`~streamcalls.ToolContext`, and
    ``context_type`` is the type of its ``deps`` where it is written and
    resolved.
    """

    __slots__ = (
        "_adapted",
        "_arguments",
        "_hooked",
        "_unset",
        "call_parameter",
        "context_parameter",
        "context_type",
        "description",
        "name",
        "schema",
    )

    def __init__(self, fn: Callable[..., Any]) -> None:
        label = _label(fn)
        pydantic = loaded()
        reading = _read(fn, label, pydantic)
        parameters = reading.parameters
        self.call_parameter = reading.call_parameter
        self.context_parameter = reading.context_parameter
        self.context_type = reading.context_type
        doc = inspect.getdoc(_unwrapped(fn)) or ""
        self.name: str | None = _name(fn)
        self.description = summary(doc)
        # The parameters pydantic validates: their values come back wrapped (see Adapted).
        self._adapted = tuple(p.name for p in parameters if p.kind is not p.annotation)
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
        self.schema, by_pydantic = arguments_schema(
            label, self._arguments, parameters, parameter_descriptions(doc), pydantic
        )
        # msgspec.convert with a keyword argument costs about three times as much: the hook (which
        # msgspec calls only for the types pydantic reads) is passed only where there are some.
        self._hooked = by_pydantic

    def arguments(
        self, name: str, arguments: Mapping[str, Any], call: ToolCall, deps: Any = None
    ) -> dict[str, Any]:
        """The keyword arguments for the function, converted to its annotated types.

        The ``ToolCall`` parameter gets ``call``; the ``ToolContext`` one
        ``ToolContext(deps, call)``.

        :raises InvalidArguments: naming the tool, the argument's path and what was expected, e.g.
            ``invalid arguments for get_weather: Expected int, got str - at $.days``.
        """
        try:
            if self._hooked:
                kwargs = _asdict(_convert(arguments, self._arguments, dec_hook=decode))
            else:
                kwargs = _asdict(_convert(arguments, self._arguments))
        except msgspec.ValidationError as exc:
            raise InvalidArguments(f"invalid arguments for {name}: {_message(exc)}") from None
        for field in self._unset:
            if kwargs[field] is _UNSET:
                del kwargs[field]
        for field in self._adapted:
            value = kwargs.get(field)
            if isinstance(value, Adapted):  # not when it is the default
                kwargs[field] = value.value
        if self.call_parameter is not None:
            kwargs[self.call_parameter] = call
        if self.context_parameter is not None:
            kwargs[self.context_parameter] = ToolContext(deps, call)
        return kwargs


_EMPTY: Any = inspect.Parameter.empty
# The annotations of the parameter that receives the call itself (Optional: the function may also be
# called directly, without one).
_CALL_ANNOTATIONS: tuple[Any, ...] = (ToolCall, ToolCall | None)  # Optional[ToolCall] == ToolCall | None
_CACHE: weakref.WeakKeyDictionary[Callable[..., Any], ToolSignature] = weakref.WeakKeyDictionary()


def signature_of(fn: Callable[..., Any]) -> ToolSignature:
    """The function's :class:`ToolSignature`, read once per function.

    :raises UsageError: for a parameter a tool cannot have (``*args``,
        ``**kwargs``, positional-only, unannotated, an annotation that names
        nothing, or a type with no JSON schema), naming it.
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


def _message(error: msgspec.ValidationError) -> str:
    """msgspec's message for the model: plain text (it quotes names and paths in backticks)."""
    text = str(error)
    if isinstance(error.__cause__, PydanticInvalid):  # pydantic's errors, each at its full path
        path = text.rsplit(" - at `", 1)[1].rstrip("`") if " - at `" in text else "$"
        return describe(error.__cause__, path)
    return text.replace("`", "")


def _unwrapped(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The function whose docstring and name count (a ``functools.partial``'s own are generic)."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    return fn


def _bound(fn: Callable[..., Any]) -> set[str]:
    """The keywords a ``functools.partial`` (or a partial of one) binds: not the model's to set."""
    names: set[str] = set()
    while isinstance(fn, functools.partial):
        names.update(fn.keywords)
        fn = fn.func
    return names


def _name(fn: Callable[..., Any]) -> str | None:
    name = getattr(_unwrapped(fn), "__name__", None)
    return name if isinstance(name, str) and name.isidentifier() else None


def _label(fn: Callable[..., Any]) -> str:
    return _name(fn) or repr(fn)


def _read(fn: Callable[..., Any], label: str, pydantic: types.ModuleType | None) -> _Reading:
    signature = _signature(fn, label)
    bound = _bound(fn)
    parameters: list[Parameter] = []
    call_parameter: str | None = None
    context_parameter: str | None = None
    context_type: Any = None
    for parameter in signature.parameters.values():
        if parameter.name in bound:
            continue  # a dependency the partial gives: never the model's
        rejected = _REJECTED_KINDS.get(parameter.kind)
        if rejected is not None:
            raise UsageError(f"{label} cannot be a tool: {rejected.format(name=parameter.name)}")
        annotation = parameter.annotation
        if annotation is _EMPTY:
            raise UsageError(
                f"{label} cannot be a tool: parameter {parameter.name!r} has no annotation "
                "(the annotation is the argument's type, in the schema and in validation)"
            )
        if isinstance(annotation, str):  # it did not resolve with the others
            annotation = _evaluate(fn, label, parameter.name, annotation)
        context = _context(annotation)
        if context is not None:
            if context_parameter is not None:
                raise UsageError(
                    f"{label} cannot be a tool: both {context_parameter!r} and {parameter.name!r} "
                    "take a ToolContext; one is enough"
                )
            context_parameter, context_type = parameter.name, context[0]
        elif annotation in _CALL_ANNOTATIONS:
            call_parameter = parameter.name
        else:
            kind = annotation
            if pydantic is not None and needs_pydantic(annotation, pydantic):
                kind = _adapted(label, parameter.name, annotation, pydantic)
            parameters.append(
                Parameter(parameter.name, annotation, kind, parameter.default, _annotated_text(annotation))
            )
    return _Reading(parameters, call_parameter, context_parameter, context_type)


def _signature(fn: Callable[..., Any], label: str) -> inspect.Signature:
    """The signature with its string annotations evaluated; those that do not resolve stay strings."""
    try:
        # eval_str: annotations written as strings (from __future__ import annotations) become types.
        return inspect.signature(fn, eval_str=True)
    except (TypeError, ValueError) as exc:
        reason: Exception = exc
    except Exception:  # an annotation that does not evaluate: read them one by one
        reason = ValueError("")
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        raise UsageError(f"cannot read the parameters of {label}: {reason}") from None


class _Unresolved(NamedTuple):
    """A ``ToolContext[...]`` annotation whose argument does not resolve (imported for type checkers only)."""

    text: str


def _evaluate(fn: Callable[..., Any], label: str, name: str, text: str) -> Any:
    """A string annotation, evaluated in the function's module (as ``inspect.signature(eval_str=True)`` does).

    :raises UsageError: naming the parameter, when it does not evaluate.
    """
    namespace = _globals(fn)
    try:
        return eval(text, namespace)  # the annotation, as Python itself would read it
    except Exception as exc:
        head = text.split("[", 1)[0].strip()
        with contextlib.suppress(Exception):
            if head and eval(head, namespace) is ToolContext:
                return _Unresolved(text)
        what = (
            "names something not defined where the function is"
            if isinstance(exc, (NameError, AttributeError))
            else "does not evaluate"
        )
        raise UsageError(
            f"{label} cannot be a tool: the annotation of parameter {name!r} ({text!r}) {what}: "
            f"{type(exc).__name__}: {exc}"
        ) from None


def _globals(fn: Callable[..., Any]) -> dict[str, Any]:
    """The namespace a function's annotations are read in: its module's, as ``inspect`` finds it."""
    target: Any = _unwrapped(fn)
    if isinstance(target, type):
        target = getattr(target, "__init__", target)
    elif not (inspect.isfunction(target) or inspect.ismethod(target)):
        target = getattr(type(target), "__call__", target)  # noqa: B004 - the method, not a test
    target = inspect.unwrap(getattr(target, "__func__", target))
    namespace = getattr(target, "__globals__", None)
    return namespace if isinstance(namespace, dict) else {}


def _context(annotation: Any) -> tuple[Any] | None:
    """``(T,)`` for a ``ToolContext[T]`` parameter (``ToolContext``, ``ToolContext[T] | None``); else ``None``."""
    if type(annotation) is _Unresolved:
        return (None,)
    if get_origin(annotation) in (Union, types.UnionType):
        members = [member for member in get_args(annotation) if member is not type(None)]
        if len(members) != 1:
            return None
        annotation = members[0]
    if annotation is ToolContext:
        return (None,)
    if get_origin(annotation) is ToolContext:
        return (get_args(annotation)[0],)
    return None


def _adapted(label: str, name: str, annotation: Any, pydantic: types.ModuleType) -> type:
    try:
        return adapted(annotation, pydantic)
    except TypeError as exc:
        raise UsageError(
            f"{label} cannot be a tool: pydantic cannot read the type of parameter {name!r} ({annotation!r}): {exc}"
        ) from None


def _annotated_text(annotation: Any) -> str | None:
    """The description ``Annotated[T, "text"]`` (or ``Annotated[T, Doc("text")]``, PEP 727) gives."""
    if get_origin(annotation) is not Annotated:
        return None
    for item in get_args(annotation)[1:]:
        if isinstance(item, str) and item.strip():
            return item.strip()
        documentation = getattr(item, "documentation", None)
        if isinstance(documentation, str) and documentation.strip():
            return documentation.strip()
    return None


def _holdable(default: Any) -> bool:
    """Whether a default can be the Struct field's own: immutable, and one value for every call."""
    return type(default) in _IMMUTABLE or isinstance(default, enum.Enum)


def _field(parameter: Parameter, unset: bool) -> tuple[str, Any] | tuple[str, Any, Any]:
    if parameter.default is _EMPTY:
        return (parameter.name, parameter.kind)
    if unset:
        return (parameter.name, Union[parameter.kind, msgspec.UnsetType], _UNSET)  # noqa: UP007
    return (parameter.name, parameter.kind, parameter.default)
