"""Streaming one ``{"name": ..., "arguments": ..., "id": ...}`` object out of text.

The wrapper object is parsed character by character (it is a few dozen
characters); the arguments value, which can be megabytes, goes straight to the
:class:`~streamcalls._calls.CallAssembler`, whose scanner finds its end at
C speed and emits its raw text as ``ToolCallDelta`` fragments.

Two modes:

- *committed* (the object sits inside explicit markup such as a
  ``~~~tool_call`` fence): any problem fails the call, unknown keys are
  skipped.  No ``"arguments"`` key means no arguments: ``{}``.
- *uncommitted* (a bare JSON object in prose): the object is only a
  candidate.  It is *rejected* -- the caller gives its text back as prose --
  as soon as it cannot be a call: a key other than the call's own, a name
  that is not one of the known tools, no name at the end, or -- unless
  ``tools`` names it -- no arguments (``{"name": "x"}`` alone in prose is
  far more often data than a call).  It commits (``ToolCallStarted``) once
  it has a valid name and its arguments have begun, or at its closing
  brace.  Arguments that come before the name go to a *tentative* call,
  which a limit gives up without a trace.

Which keys name the tool, hold the arguments and the call's id is the format's
(:class:`~.callkeys.CallKeys`).

What the object consumes is recorded by the region's
:class:`~streamcalls.detectors._engine.markup.Markup`; a failed call's ``raw`` is
that markup.
"""

from __future__ import annotations

import re
from enum import IntEnum
from typing import Any

import msgspec

from ..._call import COMPLETED, FAILED, OPEN, Call
from ..._calls import CallAssembler
from ..._jsonscan import JsonScanner
from .._engine.machine import Machine, Status, fast
from .._engine.markup import Markup
from .._engine.tokens import skip_blanks
from .callkeys import CALL_KEYS, CallKeys

__all__ = ("CallObjectParser",)


_NAME_KEYED = "\0arguments"  # the key a name-keyed object's value is read under

_WHITESPACE = " \t\r\n"
_STRING_END = re.compile(r'["\\]')
_SCALAR_END = re.compile(r"[,}\]\s]")
_MAX_SHORT = 512  # longest key, name or id accepted


class CallObjectParser(Machine):
    """Parses one call object; see the module docstring."""

    class State(IntEnum):
        OPEN = 0  # before "{"
        KEY_OR_CLOSE = 1  # after "{"
        KEY_START = 2  # after ","
        KEY = 3  # inside a key string
        COLON = 4
        VALUE = 5  # before a value
        STRING = 6  # inside the name or id string
        SCALAR = 7  # inside a number/literal value
        ARGUMENTS = 8  # streaming the arguments value into the assembler
        SKIP = 9  # skipping the value of a key that does not matter
        AFTER_VALUE = 10  # before "," or "}"

    __slots__ = (
        "_arguments_keys",
        "_calls",
        "_current_key",
        "_escape",
        "_id_keys",
        "_known_keys",
        "_markup",
        "_name_keyed",
        "_name_keys",
        "_pieces",
        "_scalar_for",
        "_short",
        "_skipper",
        "_string_for",
        "_tools",
        "call",
        "closed",
        "committed",
        "error",
        "has_arguments",
        "id",
        "intact",
        "name",
    )

    def __init__(
        self,
        calls: CallAssembler,
        markup: Markup,
        *,
        committed: bool,
        tools: frozenset[str] | None,
        opened: bool = False,
        keys: CallKeys = CALL_KEYS,
    ) -> None:
        self._calls = calls
        self._markup = markup
        self._tools = tools
        self._name_keys = keys.name
        self._arguments_keys = keys.arguments | {_NAME_KEYED} if keys.name_keyed else keys.arguments
        self._id_keys = keys.id
        self._known_keys = keys.name | keys.arguments | keys.id | keys.skipped
        self._name_keyed = keys.name_keyed
        self.committed = committed
        self.status = _Status.ACTIVE
        self._state = _S.KEY_OR_CLOSE if opened else _S.OPEN
        self._current_key = ""
        self._pieces: list[str] = []  # the key, name or id being read
        self._short = 0  # its length so far
        self._escape = False  # the last piece ended on a backslash inside a string
        self._string_for = ""
        self._scalar_for = ""
        self._skipper: JsonScanner | None = None
        self.call: Call | None = None
        self.name: str | None = None
        self.id: str | None = None
        self.has_arguments = False
        self.error = ""
        # After a failure (INVALID): the object's JSON was whole up to where it stopped (outside
        # strings, at the object's own level), so a reader may skip the rest of it; ``closed``:
        # it stopped after its closing brace.
        self.intact = self.closed = False

    # -- structure: blanks, then one structural character -------------------------
    #
    # feed (Machine.feed) stops at the end of the text (still ACTIVE), just after the
    # closing brace (DONE), or at the character that ended the candidate (REJECTED, INVALID).

    def _open(self, text: str, pos: int) -> int:
        if text[pos] in _WHITESPACE:
            pos = skip_blanks(text, pos)
            if pos == len(text):
                return pos
        if text[pos] != "{":
            return self._bad(pos, "a tool call must be a JSON object")
        self._state = _S.KEY_OR_CLOSE
        return pos + 1

    def _key_or_close(self, text: str, pos: int) -> int:
        if text[pos] in _WHITESPACE:
            pos = skip_blanks(text, pos)
            if pos == len(text):
                return pos
        char = text[pos]
        if char == '"':
            self._state = _S.KEY
            self._string_for = "key"
            return pos + 1
        if char == "}" and self._state is _S.KEY_OR_CLOSE:
            return self._close(pos)
        return self._bad(pos, "expected a key in the tool call object")

    _key_start = _key_or_close

    def _colon(self, text: str, pos: int) -> int:
        if text[pos] in _WHITESPACE:
            pos = skip_blanks(text, pos)
            if pos == len(text):
                return pos
        if text[pos] != ":":
            return self._bad(pos, "expected ':' in the tool call object")
        self._state = _S.VALUE
        return pos + 1

    def _value(self, text: str, pos: int) -> int:
        if text[pos] in _WHITESPACE:
            pos = skip_blanks(text, pos)
            if pos == len(text):
                return pos
        return self._begin_value(text[pos], pos)

    def _after_value(self, text: str, pos: int) -> int:
        if text[pos] in _WHITESPACE:
            pos = skip_blanks(text, pos)
            if pos == len(text):
                return pos
        char = text[pos]
        if char == ",":
            self._state = _S.KEY_START
            return pos + 1
        if char == "}":
            return self._close(pos)
        return self._bad(pos, "expected ',' or '}' in the tool call object")

    # -- values --------------------------------------------------------------------

    def _begin_value(self, char: str, pos: int) -> int:
        key = self._current_key
        if key in self._arguments_keys:
            if self.has_arguments:
                return self._bad(pos, f"the tool call has {key!r} twice", intact=True)
            self.has_arguments = True
            if char in '{["':
                if self.call is None and not self._open_call():
                    return pos
                assert self.call is not None
                self._markup.arguments(self.call, pos)
                self._state = _S.ARGUMENTS
                return pos
            self._state = _S.SCALAR
            self._scalar_for = "arguments"
            return pos
        if key in self._name_keys or key in self._id_keys:
            target = "name" if key in self._name_keys else "id"
            if char == '"':
                self._state = _S.STRING
                self._string_for = target
                return pos + 1
            if target == "name":
                return self._bad(pos, "the tool call's name must be a string", intact=True)
            self._state = _S.SCALAR
            self._scalar_for = "id"
            return pos
        # A skipped or (committed only) an unknown key: skip its value.
        if char in '{["':
            self._skipper = JsonScanner(1_000_000)
            self._state = _S.SKIP
            return pos
        self._state = _S.SCALAR
        self._scalar_for = ""
        return pos

    def _string(self, text: str, pos: int) -> int:
        if self._escape:  # this character was escaped at the end of the last piece
            self._escape = False
            self._take(text, pos, pos + 1)
            return pos + 1
        room = _MAX_SHORT - self._short
        match = _STRING_END.search(text, pos, pos + room + 1)
        if match is None:
            if len(text) - pos > room:
                return self._too_long(pos + room)
            self._take(text, pos, len(text))
            return len(text)
        at = match.start()
        if text[at] == "\\":
            if at + 1 >= len(text):
                self._take(text, pos, len(text))
                self._escape = True
                return len(text)
            self._take(text, pos, at + 2)
            return at + 2
        self._take(text, pos, at)
        raw = "".join(self._pieces)
        self._pieces.clear()
        self._short = 0
        try:
            value = msgspec.json.decode('"' + raw + '"', type=str)
        except msgspec.DecodeError:
            return self._bad(at, "malformed string in the tool call object")
        target = self._string_for
        if target == "key":
            return self._key_read(value, at + 1)
        self._state = _S.AFTER_VALUE
        if target == "id":
            self._set_id(value)
        else:
            self._set_name(value)
        return at + 1

    _key = _string  # a key is read as the name and the id are

    def _key_read(self, value: str, pos: int) -> int:
        self._state = _S.COLON
        if self._name_keyed:
            if self.name is not None or self.has_arguments:
                return self._bad(pos, "a name-keyed tool call object has one key", intact=True)
            self._current_key = _NAME_KEYED
            self._set_name(value)
            return pos
        self._current_key = value
        if not self.committed and value not in self._known_keys:
            return self._reject(pos)
        return pos

    def _take(self, text: str, start: int, stop: int) -> None:
        self._pieces.append(text[start:stop])
        self._short += stop - start

    def _too_long(self, pos: int) -> int:
        # Cut exactly at the limit, so that every chunking gives the same result.
        return self._bad(pos, f"a key, name, id or value longer than {_MAX_SHORT} characters")

    def _scalar(self, text: str, pos: int) -> int:
        room = _MAX_SHORT - self._short
        match = _SCALAR_END.search(text, pos, pos + room + 1)
        if match is None:
            if len(text) - pos > room:
                return self._too_long(pos + room)
            self._take(text, pos, len(text))
            return len(text)
        at = match.start()
        self._take(text, pos, at)
        raw = "".join(self._pieces)
        self._pieces.clear()
        self._short = 0
        self._state = _S.AFTER_VALUE
        try:
            value: Any = msgspec.json.decode(raw)
        except msgspec.DecodeError:
            return self._bad(at, f"malformed value {raw[:40]!r} in the tool call object")
        if self._scalar_for == "arguments" and value is not None:  # null: no arguments
            if self.call is None and not self._open_call():
                return at
            call = self.call
            assert call is not None
            self._calls.feed(call, raw)  # not an object: the call fails when it ends
            if call.status != OPEN:  # a tentative call given up at a limit
                return self._bad(at, "")
        elif self._scalar_for == "id":
            self._set_id(raw)
        return at

    def _skip(self, text: str, pos: int) -> int:
        skipper = self._skipper
        assert skipper is not None
        end = skipper.feed(text[pos:])
        if end < 0:
            return len(text)
        self._skipper = None
        self._state = _S.AFTER_VALUE
        return pos + end

    def _arguments(self, text: str, pos: int) -> int:
        call = self.call
        assert call is not None
        rest = self._calls.feed(call, text[pos:] if pos else text)
        end = pos + rest if rest >= 0 else len(text)
        if call.closed_json:  # the value ended (also when it was counted on past a limit)
            self._markup.after_arguments(end)
            self._state = _S.AFTER_VALUE
            return end
        if call.status == OPEN or call.draining:
            return len(text)
        # A tentative call given up at a limit: not a call after all.
        self._markup.after_arguments(end)
        return self._bad(end, "")

    # -- the call ------------------------------------------------------------------

    def _set_name(self, name: str) -> None:
        if not self.committed and self._tools is not None and name not in self._tools:
            self._reject_now()
            return
        self.name = name
        call = self.call
        if call is not None:
            self._calls.set_name(call, name)
            self.committed = True
        elif self.committed:
            self._open_call()  # inside explicit markup: the call starts with its name

    def _set_id(self, value: str) -> None:
        self.id = value
        if self.call is not None:
            self._calls.adopt_id(self.call, value)

    def _open_call(self) -> bool:
        call = self._markup.open_call(self.id, self.name, deferred=True, tentative=not self.committed)
        if call is None:  # over max_calls, already reported
            self.status = _Status.INVALID
            return False
        self.call = call
        if self.name:
            self.committed = True
        return True

    def _close(self, pos: int) -> int:
        """The object's closing brace."""
        if self.name is None:
            if not self.committed:
                return self._reject(pos)
            self.error = "the tool call object has no name"
            self.status = _Status.INVALID
            self.intact = self.closed = True
            return pos + 1
        if not self.has_arguments and not self.committed and self._tools is None:
            return self._reject(pos)  # {"name": "x"} in prose: data, unless tools= names x
        if self.call is None and not self._open_call():  # no arguments, or null: {}
            return pos + 1
        self.status = _Status.DONE
        return pos + 1

    def finish_call(self) -> None:
        """Complete the call (the caller decides when: at the markup's end)."""
        call = self.call
        if call is not None and call.status not in (COMPLETED, FAILED):
            self._calls.end(call)

    def fail(self, error: str) -> None:
        """Fail the call (a new one if the object never got that far), when its markup ends."""
        self._markup.fail(error, self.call, name=self.name, call_id=self.id)

    def abandon(self) -> None:
        """The object was a candidate, and is prose after all."""
        self._reject_now()

    def _bad(self, pos: int, error: str, *, intact: bool = False) -> int:
        if not self.committed:
            return self._reject(pos)
        self.error = error
        self.intact = intact
        self.status = _Status.INVALID
        return pos

    def _reject(self, pos: int) -> int:
        self._reject_now()
        return pos

    def _reject_now(self) -> None:
        self.status = _Status.REJECTED
        if self.call is not None:
            self._calls.discard(self.call)
            self.call = None


_S = fast(CallObjectParser.State)
_Status = fast(Status)
