"""The rules of ``partial_arguments=True``, checked on a stream's events against an independent oracle.

:func:`prefix_value` is the oracle: a small recursive reader, written here
from the issue's definition and not from streamcalls' patch writer, that
gives the partial value of a prefix of JSON text -- every string character
received (escapes decoded by hand, never half a surrogate pair), a number
only once a delimiter follows it, ``true``/``false``/``null`` once complete,
an object member or array element as soon as its value has begun.  It re-reads
the whole prefix on every call, which is what makes it simple.

:func:`check_patches` walks a stream's events and asserts, for every call:
its patches come after its ``ToolCallStarted`` and before its end; ``append``
carries a non-empty string; an array index is the array's length; whenever
the call's patches are caught up (at any event that is not one of them), the
applied patches (through :class:`streamcalls.PartialArguments`) equal the
oracle's value of the concatenated ``ToolCallDelta`` text so far; and at
``ToolCallCompleted`` they equal ``call.arguments`` exactly, types included.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from streamcalls import (
    Event,
    PartialArguments,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallPatch,
    ToolCallStarted,
)

NOTHING: Any = object()  # no value yet: nothing but blanks, or a number or literal still incomplete
MAX_DEPTH = 1100  # deeper texts are not checked (a call that deep fails anyway)

_WHITESPACE = " \t\r\n"
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX = "0123456789abcdefABCDEF"
_LITERALS = {"t": ("true", True), "f": ("false", False), "n": ("null", None)}


class Invalid(Exception):
    """The text cannot begin any JSON value (or is deeper than MAX_DEPTH)."""


class _Reader:
    """Reads one prefix; every method returns (value or NOTHING, whether the value is complete)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def at_end(self) -> bool:
        text = self.text
        while self.pos < len(text) and text[self.pos] in _WHITESPACE:
            self.pos += 1
        return self.pos >= len(text)

    def value(self, depth: int) -> tuple[Any, bool]:
        if depth > MAX_DEPTH:
            raise Invalid("too deep to check")
        if self.at_end():
            return NOTHING, False
        char = self.text[self.pos]
        if char == "{":
            return self.container(depth, "}")
        if char == "[":
            return self.container(depth, "]")
        if char == '"':
            return self.string()
        if char in "-0123456789":
            return self.number()
        if char in _LITERALS:
            return self.literal()
        raise Invalid(f"unexpected {char!r}")

    def container(self, depth: int, closer: str) -> tuple[Any, bool]:
        is_object = closer == "}"
        result: Any = {} if is_object else []
        self.pos += 1
        if self.at_end():
            return result, False
        if self.text[self.pos] == closer:
            self.pos += 1
            return result, True
        while True:
            key = None
            if is_object:
                if self.at_end():
                    return result, False
                if self.text[self.pos] != '"':
                    raise Invalid("expected a key")
                key, done = self.string()
                if not done or self.at_end():
                    return result, False
                if self.text[self.pos] != ":":
                    raise Invalid("expected ':'")
                self.pos += 1
            item, done = self.value(depth + 1)
            if item is not NOTHING:
                if is_object:
                    result[key] = item
                else:
                    result.append(item)
            if not done or self.at_end():
                return result, False
            char = self.text[self.pos]
            self.pos += 1
            if char == closer:
                return result, True
            if char != ",":
                raise Invalid(f"expected ',' or {closer!r}")

    def string(self) -> tuple[str, bool]:
        text = self.text
        self.pos += 1
        out: list[str] = []
        while self.pos < len(text):
            char = text[self.pos]
            if char == '"':
                self.pos += 1
                return "".join(out), True
            if ord(char) < 0x20:
                raise Invalid("control character in a string")
            if char != "\\":
                out.append(char)
                self.pos += 1
                continue
            escape = text[self.pos + 1 : self.pos + 2]
            if not escape:
                break  # the escape is cut off
            if escape in _ESCAPES:
                out.append(_ESCAPES[escape])
                self.pos += 2
                continue
            if escape != "u":
                raise Invalid(f"bad escape \\{escape}")
            code = self.hex4(self.pos + 2)
            if code is None:
                break
            if 0xDC00 <= code <= 0xDFFF:
                raise Invalid("a lone low surrogate")
            if 0xD800 <= code <= 0xDBFF:
                after = text[self.pos + 6 : self.pos + 8]
                if after != "\\u"[: len(after)]:
                    raise Invalid("a high surrogate without its low half")
                low = self.hex4(self.pos + 8)
                if low is None:
                    break  # the pair is not complete: none of it shows
                if not 0xDC00 <= low <= 0xDFFF:
                    raise Invalid("a high surrogate without its low half")
                out.append(chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)))
                self.pos += 12
                continue
            out.append(chr(code))
            self.pos += 6
        return "".join(out), False

    def hex4(self, at: int) -> int | None:
        digits = self.text[at : at + 4]
        if any(d not in _HEX for d in digits):
            raise Invalid("bad \\u escape")
        return int(digits, 16) if len(digits) == 4 else None

    def number(self) -> tuple[Any, bool]:
        text = self.text
        start = self.pos
        while self.pos < len(text) and text[self.pos] in "-+.0123456789eE":
            self.pos += 1
        if self.pos == len(text):
            return NOTHING, False  # it can still grow
        raw = text[start : self.pos]
        if not _is_json_number(raw):
            raise Invalid(f"bad number {raw!r}")
        if any(c in raw for c in ".eE"):
            value = float(raw)
            if math.isinf(value):
                raise Invalid("number out of range")
            return value, True
        return int(raw), True

    def literal(self) -> tuple[Any, bool]:
        word, value = _LITERALS[self.text[self.pos]]
        got = self.text[self.pos : self.pos + len(word)]
        if not word.startswith(got):
            raise Invalid(f"bad literal {got!r}")
        self.pos += len(got)
        return (value, True) if got == word else (NOTHING, False)


def _is_json_number(raw: str) -> bool:
    """-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, by hand."""
    pos = 1 if raw.startswith("-") else 0

    def digits(at: int) -> int:
        end = at
        while end < len(raw) and raw[end].isdigit():
            end += 1
        return end

    end = digits(pos)
    if end == pos or (raw[pos] == "0" and end > pos + 1):
        return False
    pos = end
    if pos < len(raw) and raw[pos] == ".":
        end = digits(pos + 1)
        if end == pos + 1:
            return False
        pos = end
    if pos < len(raw) and raw[pos] in "eE":
        pos += 1
        if pos < len(raw) and raw[pos] in "+-":
            pos += 1
        end = digits(pos)
        if end == pos:
            return False
        pos = end
    return pos == len(raw)


@contextmanager
def _deep_recursion() -> Iterator[None]:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * MAX_DEPTH + 200))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def prefix_value(text: str) -> Any:
    """The partial value of ``text``, a prefix of a JSON text; NOTHING if none yet.

    :raises Invalid: when no JSON text begins with ``text``.
    """
    reader = _Reader(text)
    with _deep_recursion():
        value, done = reader.value(0)
    if done and not reader.at_end():
        raise Invalid("something after the value")
    return value


def same(a: Any, b: Any) -> bool:
    """Equal as JSON values with the same types (1, 1.0 and True differ; -0.0 is not 0.0); no recursion."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if type(x) is dict:
            if x.keys() != y.keys():
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif type(x) is list:
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif type(x) is float:
            if repr(x) != repr(y):
                return False
        elif x != y:
            return False
    return True


class _Call:
    __slots__ = ("checks", "ended", "lengths", "live", "next_check", "text", "valid")

    def __init__(self) -> None:
        self.live = PartialArguments()
        self.text: list[str] = []
        self.ended = False
        self.valid = True  # the text so far can begin a JSON value
        self.lengths: dict[tuple[Any, ...], int] = {}  # arrays' lengths, by path
        self.next_check = 1  # sparse mode: check when the text reaches this length
        self.checks = 0


def _check_oracle(call: _Call, index: int, sparse: bool) -> None:
    if not call.valid:
        return
    text = "".join(call.text)
    if sparse:
        if len(text) < call.next_check:
            return
        call.next_check = 2 * len(text) + 1
    try:
        expected = prefix_value(text)
    except Invalid:
        call.valid = False  # invalid arguments: the call fails, nothing more is checked
        return
    got = call.live.value
    if expected is NOTHING:
        assert got is None, f"call #{index}: patches show {got!r} before any value began in {text!r:.200}"
    else:
        assert same(got, expected), f"call #{index}: patches give {got!r:.300}, the text {text!r:.300}"
    call.checks += 1


def check_patches(events: Sequence[Event], *, sparse: bool = False) -> dict[int, int]:
    """Assert the patch rules on one stream's events (see the module docstring).

    ``sparse`` checks against the oracle only when a call's text has doubled
    since the last check (O(n log n) in all, for fuzzing), and always at its
    end.  Returns how many times each call was checked against the oracle.
    """
    calls: dict[int, _Call] = {}
    dirty: set[int] = set()

    def catch_up(skip: int = -1) -> None:
        for index in list(dirty):
            if index != skip:
                _check_oracle(calls[index], index, sparse)
                dirty.discard(index)

    for event in events:
        kind = type(event)
        if kind is ToolCallPatch:
            assert isinstance(event, ToolCallPatch)
            call = calls.get(event.index)
            assert call is not None, f"a patch before its call started: {event}"
            assert not call.ended, f"a patch after its call ended: {event}"
            _check_shape(call, event)
            call.live.apply(event)
            dirty.add(event.index)
            continue
        if kind is ToolCallStarted:
            assert isinstance(event, ToolCallStarted)
            calls[event.index] = _Call()
        elif kind is ToolCallDelta:
            assert isinstance(event, ToolCallDelta)
            catch_up()
            call = calls[event.index]
            call.text.append(event.arguments_delta)
            dirty.add(event.index)
            continue
        elif kind is ToolCallCompleted:
            assert isinstance(event, ToolCallCompleted)
            index = event.call.index
            catch_up(skip=index)
            dirty.discard(index)
            call = calls[index]
            got = call.live.value
            assert same(got, event.call.arguments), (
                f"call #{index} completed with {event.call.arguments!r:.300}, its patches give {got!r:.300}"
            )
            call.ended = True
            continue
        elif kind is ToolCallFailed:
            assert isinstance(event, ToolCallFailed)
            if sparse:  # a last check at the end of the call
                calls[event.index].next_check = 0
                dirty.add(event.index)
            catch_up()
            calls[event.index].ended = True
            continue
        catch_up()
    catch_up()
    return {index: call.checks for index, call in calls.items()}


def _check_shape(call: _Call, patch: ToolCallPatch) -> None:
    path = patch.path
    if patch.op == "append":
        assert type(patch.value) is str, f"an append carries a string: {patch}"
        assert patch.value, f"an append is never empty: {patch}"
        return
    assert patch.op == "add", patch
    if path and type(path[-1]) is int:
        parent = path[:-1]
        assert call.lengths.get(parent) == path[-1], f"an element's index is the array's length: {patch}"
        call.lengths[parent] = path[-1] + 1
    if type(patch.value) is list:
        call.lengths[path] = len(patch.value)


def without_patches(events: Sequence[Event]) -> list[Event]:
    return [event for event in events if type(event) is not ToolCallPatch]


def folded_patches(events: Sequence[Event]) -> dict[int, list[tuple[str, tuple[Any, ...], Any]]]:
    """Each call's patches, with consecutive appends folded into the add of their string."""
    out: dict[int, list[tuple[str, tuple[Any, ...], Any]]] = {}
    for event in events:
        if type(event) is not ToolCallPatch:
            continue
        assert isinstance(event, ToolCallPatch)
        patches = out.setdefault(event.index, [])
        last = patches[-1] if patches else None
        if event.op == "append" and last is not None and last[1] == event.path and type(last[2]) is str:
            patches[-1] = (last[0], last[1], last[2] + event.value)
        else:
            patches.append((event.op, event.path, event.value))
    return out
