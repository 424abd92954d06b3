"""One tool call, run: its arguments checked, the function called within its time, the result.

The async side of :class:`~streamcalls.Tool`: :func:`tools_by_name` reads
what :func:`streamcalls.run_tools` was given into one :class:`Invoker` per
tool name, and :meth:`Invoker.run` turns a call into its
:class:`~streamcalls.ToolResult`.  Nothing here raises for a bad call: a
missing tool, arguments that do not fit, a tool that raises or runs past its
time are each a result with ``is_error=True``, written for the model.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import anyio
import anyio.to_thread

from .._errors import UsageError
from .._events import ToolCall
from .._results import ToolResult, error_result, tool_result
from ..codec._pydantic import encode
from ..codec._signature import InvalidArguments, ToolSignature, signature_of
from ..codec._tool import Tool, check_timeout

__all__ = ("Invoker", "Tools", "tools_by_name")

Tools = Mapping[str, Any] | Sequence[Any]
"""What ``run_tools(tools=...)`` takes (typed precisely on ``run_tools``' overloads; checked here)."""


class Invoker:
    """Runs one tool's calls.

    ``signature`` is set for a tool built by :meth:`Tool.from_function`
    (its arguments are checked and converted first, and its
    :class:`~streamcalls.ToolContext` parameter gets ``deps``); ``None`` for
    a plain function, called as ``fn(**call.arguments)``.
    """

    __slots__ = ("deps", "function", "is_async", "signature", "timeout")

    def __init__(
        self,
        function: Callable[..., Any],
        signature: ToolSignature | None,
        timeout: float | None,
        deps: Any = None,
    ) -> None:
        self.function = function
        self.signature = signature
        self.timeout = timeout
        self.deps = deps
        self.is_async = _is_async(function)

    async def run(self, call: ToolCall) -> ToolResult:
        """The call's result; never raises (but for cancellation)."""
        if self.signature is None:
            arguments = call.arguments
        else:
            try:
                arguments = self.signature.arguments(call.name, call.arguments, call, self.deps)
            except InvalidArguments as exc:
                return ToolResult(call.id, call.name, str(exc), True)  # the function is not called
        try:
            if self.timeout is None:
                value = await self._call(arguments)
            else:
                # A scope, not fail_after: a TimeoutError the tool raises itself stays the tool's error.
                with anyio.move_on_after(self.timeout) as scope:
                    value = await self._call(arguments)
                if scope.cancelled_caught:
                    return ToolResult(
                        call.id, call.name, f"tool {call.name!r} timed out after {self.timeout:g} s", True
                    )
        except Exception as exc:
            return error_result(call.id, call.name, exc)
        return tool_result(call.id, call.name, value, encode)  # encode: pydantic models too

    async def _call(self, arguments: Mapping[str, Any]) -> Any:
        if self.is_async:
            return await self.function(**arguments)
        # A sync tool runs in a worker thread; on cancellation or timeout the thread is abandoned.
        value = await anyio.to_thread.run_sync(
            functools.partial(self.function, **arguments), abandon_on_cancel=True
        )
        if inspect.isawaitable(value):  # a sync callable that returned an awaitable
            value = await value
        return value


def tools_by_name(tools: Tools, timeout: float | None, context: Any = None) -> dict[str, Invoker]:
    """An :class:`Invoker` per tool name.

    A mapping's functions are called as they are (``fn(**call.arguments)``);
    a sequence's functions become :meth:`Tool.from_function` tools, whose
    arguments are checked.  A :class:`Tool` (in either) must hold a function.
    ``context`` is what a tool's :class:`~streamcalls.ToolContext` parameter holds.

    :raises UsageError: for anything else, a duplicate name, a tool without a
        function, a function that cannot be a tool, or a tool that takes a
        ``ToolContext`` when ``context`` is ``None`` or not of its type.
    """
    default = check_timeout(timeout)
    found: dict[str, Invoker] = {}
    if isinstance(tools, Mapping):
        for name, entry in tools.items():
            if not isinstance(name, str) or not name:
                raise UsageError(f"tools maps names to functions; {name!r} is not a name")
            if isinstance(entry, Tool):
                if entry.name != name:
                    raise UsageError(f"tools[{name!r}] is the tool {entry.name!r}: the names must match")
                found[name] = _invoker(entry, default, context)
            elif callable(entry):
                found[name] = Invoker(entry, None, default)
            else:
                raise UsageError(f"tools[{name!r}] must be a function or a Tool, not {type(entry).__name__}")
        return found
    if isinstance(tools, (str, bytes)) or not isinstance(tools, Sequence):
        raise UsageError(
            f"tools must be a mapping {{name: function}} or a list of functions and Tools, not {type(tools).__name__}"
        )
    for entry in tools:
        if isinstance(entry, Tool):
            tool = entry
        elif callable(entry):
            tool = Tool.from_function(entry)
        else:
            raise UsageError(f"a tool must be a function or a Tool, not {type(entry).__name__}")
        if tool.name in found:
            raise UsageError(f"two tools are named {tool.name!r}")
        found[tool.name] = _invoker(tool, default, context)
    return found


def _invoker(tool: Tool, default: float | None, context: Any) -> Invoker:
    if tool.function is None:
        raise UsageError(
            f"the tool {tool.name!r} has no function to run: build it with Tool.from_function(fn), "
            "or map its name to the function"
        )
    timeout = tool.timeout if tool.timeout is not None else default
    signature = signature_of(tool.function)
    if signature.context_parameter is not None:
        _check_context(tool.name, signature, context)
    return Invoker(tool.function, signature, timeout, context)


def _check_context(name: str, signature: ToolSignature, context: Any) -> None:
    """A tool that takes a ``ToolContext`` needs the run's ``context=``, of the type it names (where one can tell).

    :raises UsageError: otherwise, naming the tool and its parameter.
    """
    parameter = signature.context_parameter
    if context is None:
        raise UsageError(
            f"the tool {name!r} takes a ToolContext ({parameter!r}): pass its dependencies as "
            "run_tools(..., context=...)"
        )
    wanted = signature.context_type
    if isinstance(wanted, type):
        try:
            fits = isinstance(context, wanted)
        except TypeError:  # a Protocol that is not runtime_checkable, ...: not for run time to tell
            return
        if not fits:
            raise UsageError(
                f"the tool {name!r} takes ToolContext[{wanted.__name__}] ({parameter!r}), "
                f"but context= is a {type(context).__name__}"
            )


def _is_async(fn: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))  # noqa: B004
