"""What a tool receives besides its arguments: the run's dependencies, which the model never sees.

A parameter annotated :class:`ToolContext` (``ToolContext[Database]``, say)
is not an argument: it is left out of the tool's schema, and
:func:`streamcalls.run_tools` passes it a ``ToolContext`` holding the value
given as ``run_tools(..., context=...)`` -- a database handle, the user the
conversation is with, a client -- and the call being answered.
"""

from __future__ import annotations

from typing import Generic, TypeVar

import msgspec

from .._events import ToolCall

__all__ = ("DepsT", "ToolContext")

DepsT = TypeVar("DepsT")


class ToolContext(msgspec.Struct, Generic[DepsT], frozen=True):
    """The dependencies of a run, handed to a tool that asks for them: ``ToolContext(deps, call)``.

    A tool declares a parameter annotated ``ToolContext[Deps]`` (any name,
    anywhere in its signature); :func:`streamcalls.run_tools` passes it
    ``ToolContext(context, call)``, where ``context`` is ``run_tools(...,
    context=...)``'s value::

        async def get_orders(ctx: ToolContext[Shop], status: str) -> list[Order]:
            return await ctx.deps.db.orders(ctx.deps.user_id, status)

        shop = Shop(db, user_id)
        async with run_tools(events, [get_orders], context=shop) as run: ...

    The parameter is never in the schema: the model neither sees nor sets it.

    - ``deps``: the value given as ``context=``, the same object for every call of the run.
    - ``call``: the :class:`~streamcalls.ToolCall` being answered (its ``id``, its raw arguments).
    """

    deps: DepsT
    call: ToolCall
