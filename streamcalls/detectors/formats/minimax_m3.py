"""MiniMax M3 tool calls (``source="minimax_m3"``): XML whose every tag carries a namespace token.

Every tag of the markup is prefixed by ``]<]minimax[>[`` (NS below); one block holds the turn's
calls, each argument an element named after its parameter::

    NS<tool_call>
    NS<invoke name="create_order">NS<user_id>42NS</user_id>NS<shipping>NS<city>Lyon NS</city>
    NS</shipping>NS<items>NS<item>NS<sku>b-1NS</sku>NS</item>NS</items>NS</invoke>
    NS</tool_call>

- An element holding text is a leaf, kept verbatim (only a namespaced tag is markup, so ``<b>`` in
  a value is text) and typed by its schema, nested as the schema nests
  (:mod:`~streamcalls.detectors._parts.values`; an object or array leaf is read as JSON).
- An element holding elements is an object, or an array where its schema says so or where all
  its children are ``item`` elements; a name repeated among an object's children collects its
  values in an array.  No schema: leaves are strings.
- A call completes at NS ``</invoke>``; the line end and NS ``</tool_call>`` after the last one
  are its markup.  A closing tag that does not match its element, text beside child elements,
  or anything else out of place fails the call, up to its NS ``</invoke>`` (or the block's end).
- Each argument's JSON is written when its element closes (an object's shape is known only
  then), within the call's room and depth.
- Reasoning is ``<mm:think>`` (the ``think`` detector); a turn without reasoning starts with a
  bare ``</mm:think>``, framing that vanishes.
"""

from __future__ import annotations

import re
from enum import IntEnum
from typing import Any

import msgspec

from ..._call import OPEN
from .._engine.detector import Hold, Trigger, prefixes
from .._engine.machine import Status, fast
from .._engine.tokens import Seen, Tokens, skip_blanks
from .._engine.tools import ARRAY, OBJECT, STRING, ParameterType, item_schema, member_schema, type_of
from .._parts.tagged import TaggedDetector
from .._parts.values import value_json

__all__ = ("MinimaxM3Detector",)

NS = "]<]minimax[>["
OPENER = NS + "<tool_call>"
_BLOCK_END = NS + "</tool_call>"
_INVOKE = NS + "<invoke name="
_INVOKE_END = NS + "</invoke>"
_BARE_THINK_END = "</mm:think>"  # a turn without reasoning starts with it
_NS = Tokens((NS,))
_ITEM = "item"
_NULL = "null"

_encode = msgspec.json.encode


class _Element:
    """An argument's element being read: its text, or its children's values as JSON."""

    __slots__ = ("children", "key", "schema", "text", "type")

    def __init__(self, key: str, schema: dict[str, Any] | None, ptype: ParameterType) -> None:
        self.key = key
        self.schema = schema
        self.type = ptype
        self.text: list[str] = []
        self.children: list[tuple[str, str]] | None = None  # (key, JSON) once a child element came


class MinimaxM3Detector(TaggedDetector):
    class State(IntEnum):
        OPEN = 0  # after NS<tool_call>: an invoke must come
        NAME = 1  # inside <invoke name=..., up to ">"
        BODY = 2  # in an invoke, outside its elements: NS and a tag, or blanks
        TAG = 3  # after NS: a tag, up to ">"
        CONTENT = 4  # inside an element: text up to the next NS
        AFTER = 5  # an invoke ended: another, or the block's end
        SKIP = 6  # malformed: up to NS</invoke> or the block's end
        FRAMING = 7  # a bare </mm:think> at the text's start

    name = "minimax_m3"
    triggers = (
        # Found by its "<" (its "]" would cost a scan of its own: no other format begins with it).
        Trigger.literal(OPENER, lead=OPENER.index("<")),
        Trigger(_BARE_THINK_END[0], re.escape(_BARE_THINK_END[1:]), text_start=True),
    )
    holds = (
        Hold.literal(OPENER),
        Hold(prefixes(_BARE_THINK_END), _BARE_THINK_END[0], text_start=True),
    )
    block_end = (_INVOKE_END, _BLOCK_END)

    __slots__ = ("_held", "_root", "_stack", "_tool")

    def begin(self, trigger: str) -> None:
        super().begin(trigger)
        self._stack: list[_Element] = []
        self._root: dict[str, Any] = {}
        self._tool: dict[str, Any] | None = None
        self._held = 0  # characters held by the argument being read
        if trigger != OPENER:
            self._state = _S.FRAMING

    def _framing(self, text: str, pos: int) -> int:
        self.content(text, pos, pos)  # framing: accounted for, no text
        return self.stop(pos)

    # -- the block -----------------------------------------------------------------------------

    def _open(self, text: str, pos: int) -> int:
        found, at = self.look_past(text, pos, (_INVOKE, _BLOCK_END))
        if found == Seen.WAIT:
            return pos
        if found == 0:
            if self._state is _S.AFTER:
                self.markup.next_call(at)
            self._param = None
            self._state = _S.NAME
            return at + len(_INVOKE)
        if found == 1:
            return self.done(at + len(_BLOCK_END))
        if self._state is _S.OPEN:
            self.markup.fail(f"{OPENER} with no {_INVOKE}...> after it")
        return self.done(pos)

    _after = _open

    def _name(self, text: str, pos: int) -> int:
        at, found = self.read_up_to(text, pos, ">")
        if at < 0:
            return self._malformed(pos, "a tool name longer than the limit")
        if not found:
            return at
        name = self.taken().strip()
        if len(name) >= 2 and name[0] == name[-1] and name[0] in "\"'":
            name = name[1:-1]
        if self.open_call(name):
            schema = self.types.schema(name)
            self._tool = schema
            self._root = schema or {}
            self._state = _S.BODY
        else:
            self._state = _S.SKIP
        return at + 1

    # -- inside an invoke -------------------------------------------------------------------------

    def _body(self, text: str, pos: int) -> int:
        at = skip_blanks(text, pos)
        if at == len(text):
            return at
        found = self._ns(text, at)
        if found == Seen.WAIT:
            return at
        if found < 0:
            what = "text between an element's children" if self._stack else "text inside the invoke"
            return self._malformed(at, what)
        self._state = _S.TAG
        return at + len(NS)

    def _ns(self, text: str, pos: int) -> int:
        if text.startswith(NS, pos):
            return 0
        rest = text[pos:]
        return Seen.WAIT if len(rest) < len(NS) and NS.startswith(rest) else Seen.NONE

    def _tag(self, text: str, pos: int) -> int:
        at, found = self.read_up_to(text, pos, ">")
        if at < 0:
            return self._malformed(pos, "a tag longer than the limit")
        if not found:
            return at
        tag = self.taken()
        stop = at + 1
        if not tag.startswith("<") or len(tag) < 2:
            return self._malformed(stop, f"a malformed tag {tag[:40]!r}")
        if tag[1] == "/":
            return self._close(tag[2:], stop)
        return self._open_element(tag[1:], stop)

    def _open_element(self, key: str, stop: int) -> int:
        stack = self._stack
        if not key or key.strip() != key:
            return self._malformed(stop, f"an element without a name {key[:40]!r}")
        if stack:
            parent = stack[-1]
            if "".join(parent.text).strip():
                return self._malformed(stop, f"element {parent.key!r} holds both text and elements")
            if parent.children is None:
                parent.children = []
            parent.text.clear()
            if parent.type.kind == ARRAY:
                schema = item_schema(parent.schema, self._root)
            else:
                schema = member_schema(parent.schema, self._root, key)
        else:
            schema = member_schema(self._tool, self._root, key)
            self._held = 0  # a new argument
        if len(stack) + 1 >= self.calls.limits.max_json_depth:
            depth = self.calls.limits.max_json_depth
            return self._over_limit(stop, f"arguments nest deeper than max_json_depth={depth}")
        stack.append(_Element(key, schema, type_of(schema, self._root)))
        self._grow(len(key) + 4, stop)
        self._state = _S.CONTENT if self._state is not _S.SKIP else _S.SKIP
        return stop

    def _close(self, key: str, stop: int) -> int:
        stack = self._stack
        param = self._param
        assert param is not None
        if not stack:
            if key == "invoke":
                param.end(stop)
                self._state = _S.AFTER
                return stop
            if key == "tool_call":  # the invoke's own end is missing
                param.end(stop)
                return self.done(stop)
            return self._malformed(stop, f"a closing tag </{key[:40]}> that closes nothing")
        element = stack[-1]
        if key != element.key:
            return self._malformed(stop, f"</{key[:40]}> closes element {element.key!r}")
        stack.pop()
        value = _json_of(element)
        if stack:
            parent = stack[-1]
            assert parent.children is not None
            parent.children.append((element.key, value))
            self._state = _S.BODY
        else:
            param.member(element.key, value, stop)
            self._state = _S.BODY
        return stop

    def _content(self, text: str, pos: int) -> int:
        cut, found = _NS.find(text, pos)
        element = self._stack[-1]
        if cut > pos:
            element.text.append(text[pos:cut])
            self._grow(cut - pos, cut)
        if found is None or self._state is _S.SKIP:
            return cut
        self._state = _S.TAG
        return found.end()

    def _grow(self, size: int, at: int) -> None:
        self._held += size
        limit = self.calls.limits.max_arguments_bytes
        if self._held > limit:
            self._over_limit(at, f"a parameter's value exceeds max_arguments_bytes={limit}")

    def _over_limit(self, at: int, error: str) -> int:
        param = self._param
        assert param is not None
        call = param.call
        self._stack.clear()
        self._state = _S.SKIP
        if call is not None and call.status == OPEN:
            self.markup.consumed(at)
            self.calls.fail(call, error, limit=True)
        return at

    # -- ends ---------------------------------------------------------------------------------------

    def _skip(self, text: str, pos: int) -> int:
        stop, closed = self.skip(text, pos)
        if closed == 0:
            self._state = _S.AFTER
        elif closed > 0:
            return self.done(stop)
        return stop

    def _malformed(self, pos: int, error: str) -> int:
        self.fail(error)
        self._stack.clear()
        self._state = _S.SKIP
        return pos

    def finish(self, rest: str) -> str:
        state = self._state
        self.status = _Status.DONE
        if state is _S.FRAMING:
            self.content(rest, 0, 0)
            return rest
        if state is _S.AFTER:
            return rest
        if state is not _S.SKIP:
            self.cut_off()
        return ""


def _json_of(element: _Element) -> str:
    """An element's value as JSON: its children's (an object or an array), or its text typed."""
    kind, nullable = element.type
    children = element.children
    if children is None:
        text = "".join(element.text)
        if kind == STRING:
            return _NULL if nullable and text == _NULL else _encode(text).decode()
        if kind in (OBJECT, ARRAY) and not text.strip():
            return "{}" if kind == OBJECT else "[]"
        return value_json(kind, text)
    if kind == ARRAY or (kind != OBJECT and all(key == _ITEM for key, _ in children)):
        return "[" + ",".join(value for _, value in children) + "]"
    grouped: dict[str, list[str]] = {}
    for key, value in children:
        grouped.setdefault(key, []).append(value)
    return (
        "{"
        + ",".join(
            _encode(key).decode() + ":" + (values[0] if len(values) == 1 else "[" + ",".join(values) + "]")
            for key, values in grouped.items()
        )
        + "}"
    )


_S = fast(MinimaxM3Detector.State)
_Status = fast(Status)
