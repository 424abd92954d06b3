"""A call's arguments so far, built by applying its :class:`ToolCallPatch` events.

So that a user interface does not write its own applier::

    live: dict[int, PartialArguments] = {}
    for event in parser.feed(chunk):
        if isinstance(event, ToolCallPatch):
            live.setdefault(event.index, PartialArguments()).apply(event)
            show(live[event.index].value)

Applying a patch costs O(its size): a string that grows is kept as a list of
its pieces (appending to a Python ``str`` would copy it every time), and the
string an ``append`` continues is remembered, so the pieces of a long string
go straight to their list.  Reading :attr:`PartialArguments.value` builds a
fresh copy of the value as plain JSON data, at a cost of the value's size.
"""

from __future__ import annotations

from typing import Any

from ._errors import UsageError
from ._events import PathSegment, ToolCallPatch

__all__ = ("PartialArguments",)

_NOTHING: Any = object()  # no root yet


class _Text:
    """A string that grows: its pieces, joined when it is read."""

    __slots__ = ("pieces",)

    def __init__(self, pieces: list[str]) -> None:
        self.pieces = pieces

    def text(self) -> str:
        pieces = self.pieces
        if len(pieces) == 1:
            return pieces[0]
        joined = "".join(pieces)
        pieces[:] = [joined]  # the next read does not join these again
        return joined


def _copy(value: Any) -> Any:
    """A fresh copy of ``value``'s containers, growing strings read as ``str`` (no recursion: any depth)."""
    kind = type(value)
    if kind is _Text:
        return value.text()
    if kind is not dict and kind is not list:
        return value
    root: Any = {} if kind is dict else []
    stack = [(value, root)]
    while stack:
        source, target = stack.pop()
        is_dict = type(source) is dict
        for key, item in source.items() if is_dict else enumerate(source):
            kind = type(item)
            if kind is dict or kind is list:
                child: Any = {} if kind is dict else []
                stack.append((item, child))
            elif kind is _Text:
                child = item.text()
            else:
                child = item
            if is_dict:
                target[key] = child
            else:
                target.append(child)
    return root


class PartialArguments:
    """Applies one call's patches in order; :attr:`value` is the arguments so far."""

    __slots__ = ("_root", "_text", "_text_path")

    def __init__(self) -> None:
        self._root: Any = _NOTHING
        self._text: _Text | None = None  # the string the last append continued
        self._text_path: tuple[PathSegment, ...] | None = None

    @property
    def value(self) -> Any:
        """The value so far as plain JSON data (a fresh copy); None before the first patch."""
        return None if self._root is _NOTHING else _copy(self._root)

    def apply(self, patch: ToolCallPatch) -> None:
        """Apply the next patch of the call.

        :raises UsageError: for a patch that does not fit the value so far
            (patches of another call, or out of order).
        """
        path = patch.path
        value = patch.value
        if patch.op == "append":
            text = self._text
            if (
                text is not None
                and type(value) is str
                and (path is self._text_path or path == self._text_path)
            ):
                text.pieces.append(value)  # the common case: the same string goes on
            else:
                self._start_append(patch)
            return
        if patch.op != "add":
            raise UsageError(f"unknown patch op {patch.op!r}")
        self._text = self._text_path = None
        value = _copy(value)
        if not path:
            self._root = value
            return
        parent = self._container(patch)
        last = path[-1]
        if type(parent) is dict and type(last) is str:
            parent[last] = value
        elif type(parent) is list and type(last) is int and 0 <= last <= len(parent):
            parent.insert(last, value)
        else:
            raise UsageError(f"add patch at {patch.pointer!r} does not fit the arguments so far")

    def _start_append(self, patch: ToolCallPatch) -> None:
        path = patch.path
        value = patch.value
        if type(value) is not str:
            raise UsageError(f"an append patch carries a string, not {type(value).__name__}")
        parent: Any = None
        if not path:
            current = self._root
        else:
            parent = self._container(patch)
            try:
                current = parent[path[-1]]
            except (KeyError, IndexError, TypeError):
                current = _NOTHING
        if type(current) is _Text:
            text = current
            text.pieces.append(value)
        elif type(current) is str:
            text = _Text([current, value])
            if parent is None:
                self._root = text
            else:
                parent[path[-1]] = text
        else:
            raise UsageError(f"append patch at {patch.pointer!r}: there is no string there")
        self._text = text
        self._text_path = path

    def _container(self, patch: ToolCallPatch) -> Any:
        """The container holding the member at the patch's path (which has at least one segment)."""
        node = self._root
        try:
            for segment in patch.path[:-1]:
                node = node[segment]
        except (KeyError, IndexError, TypeError):
            node = None
        if type(node) is not dict and type(node) is not list:
            raise UsageError(f"patch at {patch.pointer!r} does not fit the arguments so far")
        return node

    def __repr__(self) -> str:
        return f"PartialArguments({self.value!r})"
