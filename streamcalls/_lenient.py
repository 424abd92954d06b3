"""Reading a record whose fields are not all of the expected type.

A provider adapter decodes each record strictly into its view Struct (the
fast path).  When one value has an unexpected type -- a gateway that writes
numbers as strings (``"index": "0"``), a list where a string belongs --
that must not cost the rest of the record: its text, calls, finish reason
and usage.  msgspec's ValidationError names the offending value's path
(``$.choices[0].delta.tool_calls[0].index``), so the record, decoded to
plain data, is converted again without the value at that path, a bounded
number of times.  No second reader per provider: the view Struct stays the
one description of what an adapter reads.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

import msgspec

__all__ = ("MAX_SKIPPED", "Lenient", "convert_leniently", "error_path")

# How many unreadable values one record may lose before it is dropped whole:
# each costs a conversion of the record, and a record this broken is not what
# the provider documents.
MAX_SKIPPED = 8

# msgspec ends a ValidationError's message with the path of the offending
# value: `` - at `$.candidates[0].finishReason` ``.  View Structs read only
# Struct fields and list items (dict values are ``Any``), so a path is a run
# of ``.name`` and ``[index]`` segments; anything else (``[...]``, a dict key)
# is not located and the record is dropped as before.
_AT = re.compile(r" - at `(\$(?:\.[^.\[`]+|\[\d+\])*)`$")
_SEGMENT = re.compile(r"\.([^.\[`]+)|\[(\d+)\]")

Segment = str | int


def error_path(exc: msgspec.ValidationError) -> tuple[str, tuple[Segment, ...]] | None:
    """The path a ValidationError names, as text and as segments (None: not located)."""
    match = _AT.search(str(exc))
    if match is None:
        return None
    text = match.group(1)
    segments: list[Segment] = []
    for name, index in _SEGMENT.findall(text):
        segments.append(int(index) if index else name)
    return text, tuple(segments)


def _described(exc: msgspec.ValidationError, path: str) -> str:
    """``$.a.b (Expected `str`, got `int`)``: where, and what was wrong."""
    message = str(exc)
    return f"{path} ({message[: message.rfind(' - at ')]})"


def _without(obj: Any, path: tuple[Segment, ...]) -> Any:
    """A copy of ``obj`` without the value at ``path``, or None if it is not there.

    Only the containers along the path are copied: the caller's data (a dict
    given to ``feed_event``) is never changed.  A list item is removed, so a
    list of parts keeps its other parts.
    """
    if not path:
        return None  # the record itself has the wrong type: nothing to leave out
    head, rest = path[0], path[1:]
    copy: Any  # a dict for a field, a list for an item
    if isinstance(head, str):
        if type(obj) is not dict or head not in obj:
            return None
        copy = dict(obj)
    else:
        if type(obj) is not list or head >= len(obj):
            return None
        copy = list(obj)
    if not rest:
        del copy[head]
        return copy
    inner = _without(copy[head], rest)
    if inner is None:
        return None
    copy[head] = inner
    return copy


class Lenient(NamedTuple):
    """The outcome of :func:`convert_leniently`."""

    value: Any  # the view, or None when the record could not be read
    skipped: list[str]  # the values left out: their paths, and what was wrong with each
    error: msgspec.ValidationError | None  # what made the record unreadable, when it was


def convert_leniently(plain: Any, view: type[Any], exc: msgspec.ValidationError, *, strict: bool) -> Lenient:
    """Convert ``plain`` (which failed with ``exc``) into ``view``, leaving out what cannot be read.

    :raises RecursionError: for data nested too deeply to convert.
    """
    skipped: list[str] = []
    for _ in range(MAX_SKIPPED):
        located = error_path(exc)
        repaired = None if located is None else _without(plain, located[1])
        if located is None or repaired is None:
            break
        skipped.append(_described(exc, located[0]))
        plain = repaired
        try:
            return Lenient(msgspec.convert(plain, view, strict=strict), skipped, None)
        except msgspec.ValidationError as again:
            exc = again
    return Lenient(None, skipped, exc)
