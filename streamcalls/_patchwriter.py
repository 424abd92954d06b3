"""Reading a call's arguments as they stream, and saying what changed: :class:`ToolCallPatch` events.

With ``partial_arguments=True`` every started call gets a :class:`PatchWriter`,
fed exactly the text emitted as its ``ToolCallDelta`` fragments (the call
assembler calls :meth:`PatchWriter.feed` right after each delta), so the
patches never run ahead of the deltas nor lag behind them.  It is an
incremental JSON reader: a stack of the open containers and a state saying
what may come next, kept between fragments, so each character is looked at
once.  Inside a string -- where long arguments spend nearly all their
characters -- a C-level regex match takes the run of ordinary characters and
complete escapes, and the run goes out as one ``append`` (one per fragment in
the middle of a long string).  Escapes are decoded by msgspec; an escape, or a
``\\uXXXX`` surrogate pair, split across fragments is held back until it is
complete.  A number is added once a delimiter ends it (it could still grow),
``true``/``false``/``null`` once their last letter arrives, an object member
or array element as soon as its value begins.

It reads, it does not judge: at the first character that cannot continue
valid JSON it stops emitting (the call will fail when it ends, as the final
decode says).  :meth:`finish` makes the applied patches equal the decoded
arguments exactly, whatever was streamed: a root ``add`` of the decoded object
when the streamed value was not that object (empty arguments, a JSON string
holding the object, a call that arrived whole).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import msgspec

from ._events import Event, PathSegment, ToolCallPatch

__all__ = ("PatchWriter",)

_decode = msgspec.json.decode

# A string's body up to its end or to something that needs a look: ordinary
# characters, and complete escapes -- a \u escape that is a surrogate only as
# a whole high-low pair, since msgspec rejects a lone surrogate.
_BODY = re.compile(
    r'[^"\\\x00-\x1f]*'
    r"(?:\\(?:[\"\\/bfnrt]|u(?:(?![dD][89a-fA-F])[0-9a-fA-F]{4}"
    r"|[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}))"
    r'[^"\\\x00-\x1f]*)*'
)
# What may stop _BODY at the end of a fragment and still be completed by the
# next one: the start of an escape, or a high surrogate waiting for its low half.
_ESCAPE_START = re.compile(
    r"\\(?:u[0-9a-fA-F]{0,3}|u[dD][89abAB][0-9a-fA-F]{2}(?:\\(?:u(?:[dD](?:[c-fC-F][0-9a-fA-F]{0,1})?)?)?)?)?\Z"
)
_SPECIAL = re.compile(r'["\x00-\x1f]')  # in a string without escapes: its end, or a character JSON forbids
_NUMBER_CHARS = re.compile(r"[-+.0-9eE]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?\Z")
_SPACES = re.compile(r"[ \t\r\n]*")
_WHITESPACE = " \t\r\n"
_NUMBER_START = "-0123456789"
_LITERALS = {"t": ("true", True), "f": ("false", False), "n": ("null", None)}

# Reader states.
_VALUE = 0  # a value must come (the root, after ':', after ',' in an array)
_VALUE_OR_END = 1  # after '[': a value or ']'
_KEY_OR_END = 2  # after '{': a key or '}'
_KEY_START = 3  # after ',' in an object: a key
_KEY = 4  # inside a key
_COLON = 5  # after a key
_AFTER = 6  # after a member or element: ',' or the closing bracket
_STRING = 7  # inside a string value
_NUMBER_STATE = 8  # inside a number
_LITERAL = 9  # inside true, false or null
_DONE = 10  # the root value ended: only blanks may follow
_BROKEN = 11  # not JSON: nothing more is read

_OPEN_KEY = (_KEY_OR_END, _KEY_START)


class PatchWriter:
    """Turns one call's argument text, fed in fragments, into patch events, each given to ``put``."""

    __slots__ = (
        "_containers",
        "_held",
        "_index",
        "_key",
        "_paths",
        "_pending",
        "_put",
        "_root_object",
        "_state",
        "_target",
        "_word",
    )

    def __init__(self, put: Callable[[Event], None], index: int) -> None:
        self._put = put
        self._index = index
        self._state = _VALUE
        # The open containers, innermost last: an object's next member key,
        # or an array's length (its next index); and each one's path.
        self._containers: list[list[Any]] = []
        self._paths: list[tuple[PathSegment, ...]] = []
        self._target: tuple[PathSegment, ...] = ()  # the path of the string, number or literal being read
        self._held = ""  # the start of an escape cut off by the fragment's end
        self._pending: list[str] = []  # the raw text of a key or number read so far
        self._key = False  # the container on top is an object (then _containers[-1][0] is its key)
        self._word = ""  # the literal being read, and how much of it came: _pending
        self._root_object = False

    # -- reading ---------------------------------------------------------------------

    def feed(self, text: str) -> None:
        """Read the next fragment of argument text; emits the patches it makes."""
        if self._state == _STRING and not self._held:
            # The common case: the middle of a long string value, the whole
            # fragment one append.  With escapes, msgspec both checks and
            # decodes them; it refuses a fragment where the string ends or an
            # escape is cut off, which the careful path below then reads.
            if "\\" in text:
                try:
                    value = _decode('"' + text + '"')
                except msgspec.DecodeError:
                    pass
                else:
                    self._put(ToolCallPatch(self._index, "append", self._target, value))
                    return
            elif text and _SPECIAL.search(text) is None:
                self._put(ToolCallPatch(self._index, "append", self._target, text))
                return
        self._read(text)

    def _read(self, text: str) -> None:
        if self._held:
            text = self._held + text
            self._held = ""
        pos = 0
        end = len(text)
        while pos < end:
            state = self._state
            if state in (_STRING, _KEY):
                pos = self._string(text, pos)
            elif state == _NUMBER_STATE:
                pos = self._number(text, pos)
            elif state == _LITERAL:
                pos = self._literal(text, pos)
            elif state == _BROKEN:
                return
            elif text[pos] in _WHITESPACE:
                pos = _SPACES.match(text, pos).end()  # type: ignore[union-attr]
            elif state == _DONE:
                self._state = _BROKEN
                return
            else:
                pos = self._structure(text[pos], pos)

    def _structure(self, char: str, pos: int) -> int:
        """A character outside strings, numbers and literals."""
        state = self._state
        if state == _VALUE or (state == _VALUE_OR_END and char != "]"):
            self._value(char)
        elif state == _AFTER:
            if char == ",":
                self._state = _KEY_START if self._key else _VALUE
            elif char == ("}" if self._key else "]"):
                self._close()
            else:
                self._state = _BROKEN
        elif state in _OPEN_KEY:
            if char == '"':
                self._state = _KEY
            elif char == "}" and state == _KEY_OR_END:
                self._close()
            else:
                self._state = _BROKEN
        elif state == _COLON:
            self._state = _VALUE if char == ":" else _BROKEN
        elif state == _VALUE_OR_END:  # char == "]": an empty array
            self._close()
        else:
            self._state = _BROKEN
        return pos + 1

    def _value(self, char: str) -> None:
        """A value begins with ``char``: the member or element it makes, and what to read next."""
        path = self._member_path()
        if char == '"':
            self._target = path
            self._add(path, "")
            self._state = _STRING
        elif char == "{":
            self._add(path, {})
            self._open(path, True)
        elif char == "[":
            self._add(path, [])
            self._open(path, False)
        elif char in _NUMBER_START:
            self._target = path
            self._pending = [char]
            self._state = _NUMBER_STATE
        elif char in _LITERALS:
            self._target = path
            self._word = char
            self._state = _LITERAL
        else:
            self._state = _BROKEN

    def _member_path(self) -> tuple[PathSegment, ...]:
        """The path of the value that begins now: the root, the current key, or the next index."""
        containers = self._containers
        if not containers:
            return ()
        top = containers[-1]
        if self._key:
            return (*self._paths[-1], top[0])
        index = top[0]
        top[0] = index + 1
        return (*self._paths[-1], index)

    def _open(self, path: tuple[PathSegment, ...], is_object: bool) -> None:
        if not self._containers and is_object:
            self._root_object = True
        self._containers.append(["" if is_object else 0, is_object])
        self._paths.append(path)
        self._key = is_object
        self._state = _KEY_OR_END if is_object else _VALUE_OR_END

    def _close(self) -> None:
        containers = self._containers
        containers.pop()
        self._paths.pop()
        if containers:
            self._key = containers[-1][1]
            self._state = _AFTER
        else:
            self._state = _DONE

    def _ended(self) -> None:
        """A string, number or literal value ended."""
        self._state = _AFTER if self._containers else _DONE

    def _string(self, text: str, pos: int) -> int:
        """Inside a string value (appends) or a key (kept until it closes)."""
        end = len(text)
        stop = _BODY.match(text, pos).end()  # type: ignore[union-attr]
        if stop > pos:
            run = text if stop - pos == end else text[pos:stop]
            if self._state == _KEY:
                self._pending.append(run)
            else:
                if "\\" in run:
                    run = _decode('"' + run + '"')
                self._append(run)
        if stop == end:
            return end
        char = text[stop]
        if char == '"':
            if self._state == _KEY:
                self._end_key()
            else:
                self._ended()
            return stop + 1
        if char == "\\" and _ESCAPE_START.match(text, stop):
            self._held = text[stop:]  # completed by the next fragment
            return end
        self._state = _BROKEN  # a control character, or an escape that cannot be completed
        return end

    def _end_key(self) -> None:
        raw = "".join(self._pending)
        self._pending = []
        key = _decode('"' + raw + '"') if "\\" in raw else raw
        self._containers[-1][0] = key
        self._state = _COLON

    def _number(self, text: str, pos: int) -> int:
        stop = _NUMBER_CHARS.match(text, pos).end()  # type: ignore[union-attr]
        if stop > pos:
            self._pending.append(text[pos:stop])
        if stop == len(text):
            return stop  # it may still grow
        raw = "".join(self._pending)
        self._pending = []
        if text[stop] not in ",}] \t\r\n" or _NUMBER.match(raw) is None:
            self._state = _BROKEN
            return stop
        try:
            value = _decode(raw)
        except msgspec.DecodeError:  # out of range (1e400): the final decode fails too
            self._state = _BROKEN
            return stop
        self._add(self._target, value)
        self._ended()
        return stop

    def _literal(self, text: str, pos: int) -> int:
        word, value = _LITERALS[self._word[0]]
        need = len(word) - len(self._word)
        piece = text[pos : pos + need]
        got = self._word + piece
        if not word.startswith(got):
            self._state = _BROKEN
            return pos
        self._word = got
        if len(got) == len(word):
            self._add(self._target, value)
            self._ended()
        return pos + len(piece)

    # -- emitting --------------------------------------------------------------------

    def _add(self, path: tuple[PathSegment, ...], value: Any) -> None:
        self._put(ToolCallPatch(self._index, "add", path, value))

    def _append(self, text: str) -> None:
        self._put(ToolCallPatch(self._index, "append", self._target, text))

    def whole(self, value: Any, text: str) -> None:
        """A value that arrived whole, emitted as the fragment ``text``: one root ``add`` of an object."""
        if type(value) is not dict:
            self.feed(text)  # the call fails; its patches still say what the text says
            return
        self._add((), value)
        self._root_object = True
        self._state = _DONE

    def finish(self, arguments: dict[str, Any]) -> None:
        """The call completed with ``arguments``: make the applied patches equal them.

        Nothing is emitted when the streamed value was that object (it closed,
        and only blanks followed); otherwise one root ``add`` of ``arguments``.
        """
        if not (self._state == _DONE and self._root_object):
            self._add((), arguments)
        self._state = _BROKEN
