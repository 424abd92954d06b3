"""A call at a limit: what each per-call limit says when broken, and what becomes of the call.

Past ``max_calls`` the first call more is reported (started and failed, with
no arguments) and the rest are dropped without an event.

The :class:`~streamcalls._calls.CallAssembler` counts every call's arguments
against ``max_arguments_bytes`` and all the open calls' together against
``max_buffered_bytes``, and its scanner stops past ``max_json_depth``; its
common path only compares the counts, and comes here when a fragment would
break a limit.

A provider's call fails at once, its fragment kept whole in the raw text (a
provider's fragment is its unit).  A call found in text stops exactly at the
limit, however the text was chunked: it fails there (reported by its owner,
the markup, when the markup has ended) and the rest of its value is counted
to its end without being kept -- *draining* -- so that the rest of it never
spills into the text; a tentative call is given up instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._call import Call
from ._events import ToolCallFailed, ToolCallStarted
from ._limits import Limits

if TYPE_CHECKING:
    from ._calls import CallAssembler

__all__ = ("breach", "drain", "feed_over_limit", "room", "text_over_limit", "too_deep", "too_many_calls")


def breach(limits: Limits, size: int, held: int) -> str:
    """The limit broken by a call holding ``size`` characters of arguments while the open calls
    hold ``held`` together, if any."""
    if size > limits.max_arguments_bytes:
        return f"arguments exceed max_arguments_bytes={limits.max_arguments_bytes}"
    if held > limits.max_buffered_bytes:
        return f"the open calls' arguments together exceed max_buffered_bytes={limits.max_buffered_bytes}"
    return ""


def too_deep(limits: Limits) -> str:
    """The error of a call whose arguments broke ``max_json_depth``."""
    return f"arguments nest deeper than max_json_depth={limits.max_json_depth}"


def room(limits: Limits, held: int) -> tuple[int, str]:
    """How many characters of arguments a new call may take while the open calls hold ``held``,
    and the limit that more would break."""
    buffered = limits.max_buffered_bytes - held
    if limits.max_arguments_bytes <= buffered:
        return (
            limits.max_arguments_bytes,
            f"arguments exceed max_arguments_bytes={limits.max_arguments_bytes}",
        )
    return (
        buffered,
        f"the open calls' arguments together exceed max_buffered_bytes={limits.max_buffered_bytes}",
    )


def too_many_calls(calls: CallAssembler, call_id: str | None, name: str) -> None:
    """Report the first call past ``max_calls``: it starts and fails at once (the rest are dropped)."""
    index = calls.count
    calls.count += 1
    call_id = calls._unique(call_id or calls._new_id())
    calls.put(ToolCallStarted(index, call_id, name))
    error = f"stream has more calls than max_calls={calls.limits.max_calls}; the rest are dropped"
    calls.put(ToolCallFailed(index, call_id, name, "", error))


def feed_over_limit(calls: CallAssembler, call: Call, fragment: str) -> int:
    """``fragment`` would break a limit: :meth:`~streamcalls._calls.CallAssembler.feed` for it."""
    if call.source == "native":  # a provider's fragment is its unit: it stays whole in the raw text
        call.keep(fragment)
        calls.fail(call, breach(calls.limits, call.size + len(fragment), calls.held + len(fragment)))
        return -1
    # A call found in text stops exactly at the limit, however the text was chunked.
    cut = min(calls._max_arguments - call.size, calls._max_buffered - calls.held)
    call.size += cut
    calls.held += cut
    return calls._after_scan(call, fragment, call.scanner.feed(fragment[:cut]), cut)


def text_over_limit(calls: CallAssembler, call: Call, fragment: str, at: int, error: str) -> int:
    """A call found in text broke a limit at ``at``: it fails there and the rest
    of its value is counted to its end, kept nowhere (a tentative call is given up)."""
    if call.tentative:
        calls.discard(call)
        return at
    calls.fail(call, error, limit=True)
    call.scanner.unlimit()
    return drain(call, fragment, at)


def drain(call: Call, fragment: str, start: int) -> int:
    """Count a failed call's value on: where it ended in ``fragment``, or -1."""
    end = call.scanner.feed(fragment[start:] if start else fragment)
    call.draining = end < 0
    return -1 if end < 0 else start + end
