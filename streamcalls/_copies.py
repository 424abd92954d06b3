"""Copies: a call written twice in one stream, as a native call and in the text, is one call.

A server may parse a call natively and leave its markup in the content too:
a call written in the text that repeats a native call of the same stream
(same name, same arguments) is one call.  Whichever copy completes first
comes out; the other is *withheld* from the moment its name is known while a
call of the other kind (native or text) with that name has come out and is
open, or has completed unpaired: it emits nothing until it ends.  A withheld
call that completes as a copy of a completed call of the other kind is
dropped without a single event (a text copy's markup leaves the text, as a
completed call's does); one that turns out not to be a copy comes out whole
when it ends (``ToolCallStarted``, its arguments, then ``ToolCallCompleted``
or ``ToolCallFailed``), with the next index.  A copy that had already come
out when the other completed first (the two overlapped) ends as
``ToolCallFailed``, never run.

The :class:`~streamcalls._calls.CallAssembler` applies the rule, with the
functions here: which call is withheld (:func:`may_be_copy`), which completed
call a call is a copy of (:func:`take_original`), and the completed calls
kept unpaired (:func:`remember`), by kind and name, made at the first
completion.  (A withheld call is marked on the call itself:
``Call.withheld``.)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ._call import Call

__all__ = ("Unpaired", "may_be_copy", "remember", "same_json", "take_original")

Unpaired = dict[tuple[bool, str], list[tuple[str, Any]]]
"""The completed calls not paired with a copy yet, by (native?, name), each as (id, arguments)."""


def may_be_copy(call: Call, unpaired: Unpaired | None, open_calls: Iterable[Call]) -> bool:
    """Is the newly named ``call`` withheld: a call of the other kind with its name came out and
    is open, or completed unpaired?"""
    native = call.source == "native"
    name = call.name
    return bool(unpaired is not None and unpaired.get((not native, name))) or any(
        other.started and other.name == name and (other.source == "native") is not native
        for other in open_calls
    )


def take_original(unpaired: Unpaired, call: Call, arguments: dict[str, Any]) -> str | None:
    """The id of the first completed call of the other kind that ``call`` (completing with
    ``arguments``) is a copy of, now paired (taken out); or None."""
    others = unpaired.get((call.source != "native", call.name))
    if others:
        for position, (call_id, other) in enumerate(others):
            if same_json(other, arguments):
                del others[position]
                return call_id
    return None


def remember(unpaired: Unpaired | None, call: Call, arguments: dict[str, Any]) -> Unpaired:
    """Keep a call that completed unpaired, for a copy of it to come; returns the calls kept."""
    key = (call.source == "native", call.name)
    if unpaired is None:
        return {key: [(call.id, arguments)]}
    pairs = unpaired.get(key)
    if pairs is None:
        unpaired[key] = [(call.id, arguments)]
    else:
        pairs.append((call.id, arguments))
    return unpaired


def same_json(left: Any, right: Any) -> bool:
    """Do two decoded JSON values hold the same value?  Numbers compare by value (``1`` and
    ``1.0`` are one number), ``true`` is not ``1``, key order does not matter.  Iterative: a
    value as deep as ``max_json_depth`` allows costs no recursion."""
    pending = [(left, right)]
    while pending:
        a, b = pending.pop()
        if type(a) is dict:
            if type(b) is not dict or a.keys() != b.keys():
                return False
            pending.extend((value, b[key]) for key, value in a.items())
        elif type(a) is list:
            if type(b) is not list or len(a) != len(b):
                return False
            pending.extend(zip(a, b, strict=True))
        elif type(a) is bool or type(b) is bool or a is None or b is None:
            if a is not b:
                return False
        elif type(a) is str or type(b) is str:
            if type(a) is not type(b) or a != b:
                return False
        elif a != b:  # int and float, by value
            return False
    return True
