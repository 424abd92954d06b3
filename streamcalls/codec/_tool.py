"""Provider-neutral tool definitions, and the shapes accepted as input."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

import msgspec

from .._errors import UsageError
from .._tooldefs import read_tool
from ._signature import signature_of

if TYPE_CHECKING:
    # What mypy infers for a list or dict literal of functions with different
    # signatures (``[get_weather, get_time]``: ``list[function]``).  A callable
    # type is a subtype of it, but it is not a Callable itself, and a callable
    # object is not one either: so both are named, in separate unions (mypy
    # would fold ``Callable | function`` into ``function``).  It exists in the
    # type stubs only.
    from builtins import function

__all__ = ("Tool", "ToolDefinitions", "as_tools", "check_timeout", "empty_schema")


class Tool(msgspec.Struct, frozen=True):
    """A tool the model may call: ``Tool(name, description, parameters)``.

    ``parameters`` is the JSON schema of the call's arguments object; ``None``
    (a tool without arguments) is sent as ``{"type": "object", "properties": {}}``.

    A tool built by :meth:`from_function` also holds its ``function`` (which
    :func:`streamcalls.run_tools` calls, after checking the arguments against
    its annotations) and its ``timeout`` in seconds (``None``: the run's).
    """

    name: str
    description: str = ""
    parameters: dict[str, Any] | None = None
    function: Callable[..., Any] | None = None
    timeout: float | None = None

    @property
    def schema(self) -> dict[str, Any]:
        """The arguments' JSON schema as sent to a provider."""
        return self.parameters if self.parameters is not None else empty_schema()

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        timeout: float | None = None,
    ) -> Tool:
        """A tool from a typed Python function, sync or async.

        - ``name``: ``fn.__name__`` unless given.
        - ``description``: the docstring's first paragraph unless given.
        - ``parameters``: a self-contained JSON Schema (draft 2020-12, any
          ``$ref`` into its own ``$defs``) of an object with one property per
          parameter, written by ``msgspec.json.schema`` from the annotation:
          ``str``, ``int``, ``float``, ``bool``, ``None``, ``list``/``tuple``/``set``,
          ``dict[str, T]``, ``Literal``, ``Enum``, unions and ``Optional``,
          ``datetime`` (``"format": "date-time"``)/``date``/``time``/``UUID``/``Decimal``,
          ``msgspec.Struct``, dataclasses, ``TypedDict``, ``NamedTuple``,
          ``Annotated[T, msgspec.Meta(...)]``; and, where pydantic is installed,
          pydantic models (``Order``, ``list[Order]``, ``Order | None``, a
          model inside a Struct), whose schema and validation are pydantic's.
          ``required`` lists the parameters without a default; a parameter's
          ``description`` comes from ``msgspec.Meta(description=...)`` (or
          pydantic's ``Field``), else ``Annotated[T, "text"]``, else the
          docstring's Google ``Args:`` section, numpy ``Parameters`` section
          or ``:param name:`` lines.
        - Parameters that are not arguments, left out of the schema: one
          annotated :class:`~streamcalls.ToolCall` receives the call (its
          ``id``, say); one annotated :class:`~streamcalls.ToolContext`
          receives the run's dependencies (``run_tools(..., context=...)``);
          the keywords a ``functools.partial`` binds stay bound.
        - ``timeout``: seconds the function may run in
          :func:`~streamcalls.run_tools` (``None``: the run's ``timeout=``).

        The function is read once (cached per function).

        :raises UsageError: for ``*args``, ``**kwargs``, a positional-only or
            unannotated parameter, an annotation that names nothing defined
            where the function is, or a type with no JSON schema, naming the
            parameter; and for a function without a usable name when ``name``
            is not given.
        """
        signature = signature_of(fn)
        tool_name = name if name is not None else signature.name
        if not tool_name:
            raise UsageError(f"{fn!r} has no name usable as a tool's name: pass name=")
        return cls(
            tool_name,
            signature.description if description is None else description,
            signature.schema,
            fn,
            check_timeout(timeout),
        )


ToolDefinitions: TypeAlias = (
    "Iterable[Tool | Mapping[str, Any] | Callable[..., Any]] | Iterable[Tool | Mapping[str, Any] | function]"
)
"""What the codec takes as tools: :class:`Tool` objects, dicts in a provider's shape, typed functions."""


def empty_schema() -> dict[str, Any]:
    return {"type": "object", "properties": {}}


def check_timeout(timeout: float | None) -> float | None:
    """``timeout`` if it is ``None`` or a positive number of seconds.

    :raises UsageError: otherwise.
    """
    if timeout is not None and not (
        isinstance(timeout, (int, float)) and timeout > 0 and not math.isnan(timeout)
    ):
        raise UsageError(f"timeout must be a positive number of seconds (or None), not {timeout!r}")
    return timeout


def as_tools(tools: ToolDefinitions) -> list[Tool]:
    """Tools from :class:`Tool` objects, dicts or functions.

    A dict is in any provider's shape (read by :func:`streamcalls._tooldefs.read_tool`, as
    the parser reads ``tools=``): OpenAI's ``{"type": "function", "function": {name,
    description, parameters}}`` (also Ollama's and Cohere's), a flat ``{name, description,
    parameters}`` (OpenAI Responses' shape; Anthropic's ``input_schema`` is read as the
    parameters too), Bedrock's ``{"toolSpec": {..., "inputSchema": {"json": ...}}}``, or
    Gemini's ``{"functionDeclarations": [...]}``, which gives one tool per declaration.  A
    function becomes :meth:`Tool.from_function`'s tool.

    :raises UsageError: for anything else.
    """
    if isinstance(tools, (Tool, Mapping, str)) or callable(tools):
        raise UsageError("tools must be a list of tools, not a single one")
    found: list[Tool] = []
    for tool in tools:
        if isinstance(tool, Tool):
            read_tool(tool)  # its name and parameters are checked
            found.append(tool)
        elif isinstance(tool, Mapping):
            found += [Tool(*definition) for definition in read_tool(tool)]
        elif callable(tool):
            found.append(Tool.from_function(tool))
        else:
            raise UsageError(
                f"a tool must be a streamcalls.Tool or a dict (or a typed function), not {type(tool).__name__}"
            )
    return found
