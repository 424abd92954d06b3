"""MeetKai functionary v3.2 tool calls (``source="functionary_v32"``).

MeetKai's own template: the output is segments, each opened by a recipient line, and every
segment after the first by ``>>>`` (the first one's is in the generation prompt)::

    all
    Let me check.>>>get_weather
    {"city": "Paris"}>>>get_time
    {}

- A recipient ``all`` opens text: ``all`` and its line end (after ``>>>`` too) are framing,
  dropped; the text runs to the next ``>>>``.
- Any other recipient is a tool: the JSON object on the lines after it is the call, which
  completes when the object closes.  A recipient line with no object after it fails, its raw
  running to the next ``>>>`` or the end of the text.
- ``>>>`` that no recipient and line end follow (``>>> print(1)`` in a Python session) is text,
  and so is a text that does not open with a recipient line.

The first segment begins at the text's first character, with no trigger (``opens_text``): the
format reads from there, so it must be on from the start (``detect=`` or ``model=``).
"""

from __future__ import annotations

import re
from enum import IntEnum

from ..._call import OPEN
from .._engine.detector import Hold, Trigger
from .._engine.machine import Status, fast
from .._engine.shared import MAX_GAP
from .._engine.tokens import Tokens, skip_blanks
from .._parts.arguments import cut_off
from .._parts.namedobject import NamedObject

__all__ = ("FunctionaryV32Detector",)

_NEXT = ">>>"
_TEXT = "all"  # the recipient of a text segment
_NAME = re.compile(r"[\w.-]*")
_MAX_NAME = 128
_SEGMENT = Tokens((_NEXT,))


class FunctionaryV32Detector(NamedObject):
    class State(IntEnum):
        RECIPIENT = 0  # the recipient, up to its line end
        OBJECT = 1  # blanks, then the call's "{"
        ARGUMENTS = 2
        FAILED = 3  # a recipient with no object: the rest of its segment is the failure's

    name = "functionary_v32"
    triggers = (Trigger.literal(_NEXT),)
    holds = (Hold.literal(_NEXT),)
    opens_text = True  # the prompt wrote the first ">>>": the text opens with a recipient line

    __slots__ = ("_first",)

    def begin(self, trigger: str) -> None:
        self._begin_call()
        self._first = not trigger  # the text's first segment (no ">>>" before it)
        self.start(_S.RECIPIENT, committed=False)

    def _recipient(self, text: str, pos: int) -> int:
        at = self._take_name(_NAME, _MAX_NAME, text, pos)
        if at < 0:
            return self._reject(pos)
        if at == len(text):
            return at
        name = "".join(self._name_pieces)
        if text[at] != "\n" or not name:
            return self._reject(at)  # no recipient line: text
        if name == _TEXT:  # a text segment: its header is framing
            self.committed = True
            self.content(text, at + 1, at + 1)
            return self.stop(at + 1)
        self.committed = not self._first  # ">>>" and a recipient line: markup
        self._state = _S.OBJECT
        return at + 1

    def _object(self, text: str, pos: int) -> int:
        at = skip_blanks(text, pos)
        if at - pos > MAX_GAP:
            return self._no_object(pos)
        if at == len(text):
            return pos  # wait
        if text[at] != "{":
            return self._no_object(at)
        return self._open_object(at, _S.ARGUMENTS)

    def _no_object(self, pos: int) -> int:
        if not self.committed:
            return self._reject(pos)  # the text's first line is no recipient line after all
        self._fail()
        self._state = _S.FAILED
        return pos

    def _fail(self) -> None:
        self.markup.fail("a recipient line with no JSON object after it", name="".join(self._name_pieces))

    def _arguments(self, text: str, pos: int) -> int:
        stop = self._feed_object(text, pos)
        return len(text) if stop < 0 else self.stop(stop)

    def _failed(self, text: str, pos: int) -> int:
        cut, found = _SEGMENT.find(text, pos)
        if found is not None:
            return self.stop(cut)
        return cut  # (a ">" or ">>" at the end may begin the next segment: held)

    def finish(self, rest: str) -> str:
        self.status = _Status.DONE
        state = self._state
        call = self._call
        if state is _S.ARGUMENTS and call is not None and call.status == OPEN:
            cut_off(self, call, rest)
            return ""
        if state is _S.OBJECT:
            self._fail()
        return ""


_S = fast(FunctionaryV32Detector.State)
_Status = fast(Status)
