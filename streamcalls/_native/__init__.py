"""The native fast path: SSE framing and the common records of OpenAI Chat and Anthropic, in C.

``_speedups`` (C, built from the sources beside this file when a compiler is
there) frames SSE as :class:`~streamcalls.framing._sse.SSEFramer` does and
reads the records that dominate real traffic -- a text piece, a fragment of a
call's arguments, a keep-alive -- straight into the parser's state and its
events: the call's scanner, its argument text and ``ToolCallDelta``, the
``ToolCallPatch`` of a string's middle (an escape cut off by a fragment's end
held, as ``PatchWriter`` holds it).  Every other record, and every record in a
state that is not the common one, goes to the adapter's ``on_record``,
untouched: the pure-Python code stays the one reference for every rule, and
the fast path only ever does what it would have done (the differential tests,
``tests/*/test_native*.py``, hold the two to identical events).  An adapter class
opts in with a ``native_records`` class attribute naming its reader.

The pure path is used when the module was not built (no compiler: the build
says so in one line and goes on), and when ``STREAMCALLS_PURE_PYTHON=1``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from .._call import OPEN, Call
from .._emitter import Emitter
from .._events import ReasoningDelta, TextDelta, ToolCallDelta, ToolCallPatch
from .._jsonscan import BEFORE, SCALAR, SCANNING, JsonScanner
from .._patchwriter import _STRING, PatchWriter
from .._turn import TurnBuilder, _Reasoning
from ..framing._records import RecordFramer, RecordSink
from ..framing._sse import SSEFramer

__all__ = (
    "active",
    "install_feed",
    "install_send",
    "pure_python",
    "python_turn_add",
    "speedups",
    "sse_framer",
)

python_turn_add = TurnBuilder.add
"""TurnBuilder's Python ``add``: where the native path is built, a native one takes its hot events
(a piece of text, reasoning or a call's arguments) and calls this for the rest."""


def _load() -> ModuleType | None:
    if os.environ.get("STREAMCALLS_PURE_PYTHON", "") not in ("", "0"):
        return None
    try:
        from . import _speedups  # noqa: PLC0415 - only where the environment allows it
    except ImportError:
        return None
    _speedups.configure(
        {
            "Call": Call,
            "JsonScanner": JsonScanner,
            "Emitter": Emitter,
            "PatchWriter": PatchWriter,
            "ToolCallDelta": ToolCallDelta,
            "ToolCallPatch": ToolCallPatch,
            "OPEN": OPEN,
            "BEFORE": BEFORE,
            "SCANNING": SCANNING,
            "SCALAR": SCALAR,
            "PATCH_STRING": _STRING,
        }
    )
    _speedups.install_turn_add(TurnBuilder, _Reasoning, TextDelta, ToolCallDelta, ReasoningDelta)
    return _speedups


speedups = _load()
"""The C module, or None: not built, or ``STREAMCALLS_PURE_PYTHON=1``."""


class _Switch:
    """Whether framers are built on the native path now (pure_python() turns it off for a while)."""

    __slots__ = ("on",)

    def __init__(self) -> None:
        self.on = speedups is not None


_switch = _Switch()


def active() -> bool:
    """Do the framers built now take the native path?"""
    return _switch.on


def sse_framer(sink: RecordSink, max_line_bytes: int, max_event_bytes: int) -> RecordFramer:
    """An SSE framer: the native one when the fast path is on, else the pure one."""
    if _switch.on and speedups is not None:
        framer: RecordFramer = speedups.SSEFramer(sink, max_line_bytes, max_event_bytes)
        return framer
    return SSEFramer(sink, max_line_bytes, max_event_bytes)


def install_feed(parser_class: type[Any]) -> None:
    """Where the native path is built, put a native ``feed`` in ``parser_class``'s place.

    It takes the common case -- a chunk of bytes for the native SSE framer, no events
    to look through -- with the Python ``feed``'s own steps, and calls the Python
    ``feed`` (kept) for every other case; a parser on the pure path always takes that.
    """
    if speedups is not None:
        speedups.install_feed(parser_class)


def install_send(order_class: type[Any], given: dict[str, Any]) -> None:
    """Where the native path is built, put a native ``send`` in the writer's event order's place.

    It writes a delta whose block or call has a delta form (``streamcalls/writing/_form.py``),
    for a writer made on the native path, and calls the Python ``send`` (kept) for every other
    case.  ``given``: the classes and the open phase it reads (see ``writer.c``).
    """
    if speedups is not None:
        speedups.install_send(order_class, given)


@contextmanager
def pure_python() -> Iterator[None]:
    """Within it, framers are built on the pure path (for the differential tests).

    A framer is built at a stream's first byte, so keep the whole stream inside.
    """
    before = _switch.on
    _switch.on = False
    try:
        yield
    finally:
        _switch.on = before
