"""Turning Vertex AI's streamed ``partialArgs`` into the JSON text of the arguments.

With ``streamFunctionCallArguments``, Vertex sends a call's arguments as
typed leaf values addressed by a JSON path (RFC 9535, e.g.
``$.recipe.ingredients[0].name``)::

    {"jsonPath": "$.location", "stringValue": "Bos", "willContinue": true}
    {"jsonPath": "$.location", "stringValue": "ton"}
    {"jsonPath": "$.days", "numberValue": 3}

:class:`ArgumentsWriter` turns that sequence into the JSON text of the
arguments object, written from left to right: every call of :meth:`write`
returns the text it adds (``{"location":"Bos``, ``ton``, ``","days":3``) and
:meth:`close` the text that ends it (``}``).  Concatenated, the pieces are
the arguments' compact JSON text, so they serve as ``ToolCallDelta``
fragments like any provider's, and the call assembler decodes the whole
once, when the final ``}`` arrives.

A string stays open (its closing quote unwritten) until a value for another
path comes or the call ends, so a later piece for the same path continues
it, whether or not the piece before said ``willContinue``.  Text written
cannot be taken back, so the paths must come in document order: a path that
returns to a member already written, skips an array index, or treats an
object as an array raises :class:`PathError`.
"""

from __future__ import annotations

import re

import msgspec

__all__ = ("ArgumentsWriter", "PathError", "parse_path")

Segment = str | int

_encode = msgspec.json.encode
# One segment of a path: .name, [0], ['name'] or ["name"].
_SEGMENT = re.compile(r"""\.([^.\[\]'"]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]""")


class PathError(ValueError):
    """A jsonPath that cannot be read, or that cannot be written in document order."""


def parse_path(path: str) -> tuple[Segment, ...]:
    """The segments of a JSON path such as ``$.a['b c'][2]``."""
    if not path.startswith("$"):
        raise PathError(f"jsonPath {path!r} does not start with '$'")
    segments: list[Segment] = []
    pos = 1
    while pos < len(path):
        match = _SEGMENT.match(path, pos)
        if match is None:
            raise PathError(f"jsonPath {path!r} cannot be read at offset {pos}")
        name, index, single, double = match.groups()
        if name is not None:
            segments.append(name)
        elif index is not None:
            segments.append(int(index))
        elif single is not None:
            segments.append(_unquote(single.replace("\\'", "'").replace('"', '\\"'), path))
        else:
            segments.append(_unquote(double, path))
        pos = match.end()
    return tuple(segments)


def _unquote(body: str, path: str) -> str:
    try:
        name = msgspec.json.decode(f'"{body}"')
    except msgspec.DecodeError:
        raise PathError(f"jsonPath {path!r} has a bad escape") from None
    assert isinstance(name, str)
    return name


class _Container:
    """An object or array whose opening bracket is written and closing one is not."""

    __slots__ = ("count", "is_object", "keys")

    def __init__(self, is_object: bool) -> None:
        self.is_object = is_object
        self.keys: set[str] = set()  # members written, for objects
        self.count = 0  # members written

    def member(self, segment: Segment, where: str) -> str:
        """The text that starts the member ``segment``: separator and, in an object, its key."""
        comma = "," if self.count else ""
        if self.is_object:
            if not isinstance(segment, str):
                raise PathError(f"{where} indexes an object with [{segment}]")
            if segment in self.keys:
                raise PathError(f"{where} returns to {segment!r}, which was already written")
            self.keys.add(segment)
            self.count += 1
            return comma + _encode(segment).decode() + ":"
        if not isinstance(segment, int):
            raise PathError(f"{where} names member {segment!r} of an array")
        if segment != self.count:
            raise PathError(f"{where} writes index {segment} of an array that has {self.count} items")
        self.count += 1
        return comma


class ArgumentsWriter:
    """Builds an arguments object's JSON text from path-addressed leaf values."""

    __slots__ = ("_last_path", "_last_segments", "_open", "_path", "_string")

    def __init__(self) -> None:
        self._open: list[_Container] = []  # [root object, ...containers inside it]
        self._path: list[Segment] = []  # the segments leading to the innermost open container
        self._string: tuple[Segment, ...] | None = None  # the leaf whose string is still open
        self._last_path = ""
        self._last_segments: tuple[Segment, ...] = ()

    @property
    def empty(self) -> bool:
        return not self._open

    def write(self, path: str, value: str | None, string: str | None) -> str:
        """Add a leaf: ``string`` (a piece of a string value) or ``value`` (other JSON text).

        Returns the text added.  Raises :class:`PathError`.
        """
        if path == self._last_path:
            segments = self._last_segments
        else:
            segments = parse_path(path)
            self._last_path = path
            self._last_segments = segments
        if not segments:
            raise PathError("jsonPath '$' is the arguments object itself, not a value in it")
        pieces: list[str] = []
        if self._string is not None:
            if string is not None and segments == self._string:
                return _encode(string).decode()[1:-1]
            pieces.append('"')
            self._string = None
        if not self._open:
            pieces.append("{")
            self._open.append(_Container(True))
        parent = segments[:-1]
        common = 0
        open_path = self._path
        while common < len(open_path) and common < len(parent) and open_path[common] == parent[common]:
            common += 1
        while len(open_path) > common:  # leave the containers this value is not in
            open_path.pop()
            pieces.append("}" if self._open.pop().is_object else "]")
        for position in range(common, len(segments)):
            segment = segments[position]
            pieces.append(self._open[-1].member(segment, f"jsonPath {path!r}"))
            if position < len(segments) - 1:  # a container on the way to the leaf
                is_object = isinstance(segments[position + 1], str)
                pieces.append("{" if is_object else "[")
                self._open.append(_Container(is_object))
                open_path.append(segment)
        if string is not None:
            pieces.append(_encode(string).decode()[:-1])  # the closing quote waits
            self._string = segments
        else:
            pieces.append(value or "null")
        return "".join(pieces)

    def close(self) -> str:
        """The text that ends the arguments: an open string and every open container."""
        if not self._open:
            return "{}"
        pieces = ['"'] if self._string is not None else []
        self._string = None
        while self._open:
            pieces.append("}" if self._open.pop().is_object else "]")
        self._path.clear()
        return "".join(pieces)
