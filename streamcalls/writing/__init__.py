"""The writer's parts: the event order, what a target is, the registry of targets, the chat UI targets,
and the words for what a target cannot carry.

A writer turns events back into a wire's bytes, sans-IO like the parser:
:class:`~streamcalls.StreamWriter` (``streamcalls/_writer.py``) is an
:class:`~streamcalls.writing._order.EventOrder` -- the one place the order of
the events is kept -- driving one :class:`~streamcalls.writing._target.Target`,
a small class that only formats.  Targets register by name
(:func:`register`): the chat UI protocols' here (``ai-sdk``, ``ag-ui``), each
provider's in its provider's package.

May import: the core's leaf modules (the events, the errors, ``ToolResult``).
Never the parser, a provider, the codec or anything that does I/O.
"""

from __future__ import annotations

from ._agui import AgUiTarget
from ._aisdk import AiSdkTarget
from ._carry import CANNOT_CARRY, cannot_carry_table
from ._order import EventOrder, Writable
from ._registry import TARGETS, register
from ._target import Block, Call, Stream, Target

__all__ = (
    "CANNOT_CARRY",
    "TARGETS",
    "AgUiTarget",
    "AiSdkTarget",
    "Block",
    "Call",
    "EventOrder",
    "Stream",
    "Target",
    "Writable",
    "cannot_carry_table",
    "register",
)
