"""MeetKai functionary v3.1 tool calls (``source="functionary_v31"``).

Llama 3.1's custom-tool format, which functionary v3.1 writes::

    <function=get_weather>{"city": "Paris"}</function>
    <|python_tag|>import math
    print(math.pi)

- ``<function=NAME>`` is a call only where a JSON object follows it (after blanks): the call
  starts at that ``{`` and completes when its object closes; ``</function>`` after it is its
  markup (and need not come).  ``<function=NAME>`` followed by anything else -- prose about the
  format, Qwen3-Coder's ``<parameter=`` -- is text.
- ``<|python_tag|>`` starts a call to the python tool whose argument is the rest of the text,
  completed when the text ends: the tool ``tools=`` names ``python`` (else ``ipython``), its
  first string parameter (else ``code``).
"""

from __future__ import annotations

import re
from enum import IntEnum

import msgspec

from ..._call import OPEN
from .._engine.detector import Hold, Trigger
from .._engine.machine import Status, fast
from .._engine.shared import MAX_GAP
from .._engine.tokens import literal_at, skip_blanks
from .._engine.tools import STRING
from .._parts.arguments import cut_off
from .._parts.namedobject import NamedObject

__all__ = ("FunctionaryV31Detector",)

_OPEN = "<function="
_CLOSE = "</function>"
_PYTHON = "<|python_tag|>"
_NAME = re.compile(r"[\w.:-]*")
_MAX_NAME = 256
_encode = msgspec.json.encode


class FunctionaryV31Detector(NamedObject):
    class State(IntEnum):
        NAME = 0  # after <function=: the name, up to ">"
        GAP = 1  # after ">": blanks, then "{"
        ARGUMENTS = 2
        END = 3  # after the arguments: blanks, then </function>
        CODE = 4  # after <|python_tag|>: the rest of the text

    name = "functionary_v31"
    triggers = (Trigger.literal(_OPEN), Trigger.literal(_PYTHON))
    holds = (Hold.literal(_OPEN), Hold.literal(_PYTHON))

    __slots__ = ()

    def begin(self, trigger: str) -> None:
        self._begin_call()
        if trigger == _PYTHON:
            self.start(_S.CODE)
            self._call = self.markup.open_call(None, self._python_tool(), deferred=True)
            if self._call is not None:
                self._write_code(f'{{{_encode(self._code_key()).decode()}:"', 0, "")
        else:
            self.start(_S.NAME, committed=False)

    # -- <function=NAME>{...}</function> ------------------------------------------------

    def _name(self, text: str, pos: int) -> int:
        at = self._take_name(_NAME, _MAX_NAME, text, pos)
        if at < 0:
            return self._reject(pos)
        if at == len(text):
            return at
        if text[at] != ">" or not "".join(self._name_pieces):
            return self._reject(at)
        self._state = _S.GAP
        return at + 1

    def _gap(self, text: str, pos: int) -> int:
        at = skip_blanks(text, pos)
        if at - pos > MAX_GAP:
            return self._reject(pos)
        if at == len(text):
            return pos  # wait
        if text[at] != "{":
            return self._reject(pos)  # prose about the tag, or another format's markup
        return self._open_object(at, _S.ARGUMENTS)

    def _arguments(self, text: str, pos: int) -> int:
        stop = self._feed_object(text, pos)
        if stop < 0:
            return len(text)
        self._state = _S.END
        return stop

    def _end(self, text: str, pos: int) -> int:
        at = skip_blanks(text, pos)
        if at - pos > MAX_GAP:
            return self.stop(pos)
        if at == len(text):
            return pos  # wait: </function> may follow
        found = literal_at(text, at, _CLOSE)
        if found == 0:
            return pos
        return self.stop(at + len(_CLOSE) if found == 1 else pos)

    # -- <|python_tag|>code ---------------------------------------------------------------

    def _python_tool(self) -> str:
        if self.tools is not None and "python" not in self.tools and "ipython" in self.tools:
            return "ipython"
        return "python"

    def _code_key(self) -> str:
        parameters = self.types.parameters(self._python_tool())
        return next((key for key, kind in parameters.items() if kind.kind == STRING), "code")

    def _code(self, text: str, pos: int) -> int:
        call = self._call
        if call is not None and call.status == OPEN:
            self._write_code(_encode(text[pos:]).decode()[1:-1], len(text), text[pos:])
        return len(text)  # the rest of the text is the code (a failed call's is dropped)

    def _write_code(self, piece: str, at: int, chars: str) -> None:
        """Feed a piece of the arguments' JSON; a limit it breaks cuts the raw text at ``at``'s
        last character that fits."""
        call = self._call
        assert call is not None
        limits = self.calls.limits
        room = min(limits.max_arguments_bytes - call.size, limits.max_buffered_bytes - self.calls.held)
        if len(piece) > room and chars:
            used = 0
            fit = 0
            for char in chars:
                used += len(_encode(char).decode()) - 2
                if used > room:
                    break
                fit += 1
            at -= len(chars) - fit
        self.markup.consumed(at)
        self.calls.feed(call, piece)

    def finish(self, rest: str) -> str:
        self.status = _Status.DONE
        call = self._call
        state = self._state
        if state is _S.CODE:
            if call is not None and call.status == OPEN:
                self._write_code(_encode(rest).decode()[1:-1], len(rest), rest)
                if call.status == OPEN:
                    self.calls.feed(call, '"}')
                    self.calls.end(call)
            return ""
        if state is _S.ARGUMENTS and call is not None:
            if call.status == OPEN:
                cut_off(self, call, rest)
            return ""
        return rest  # after the call: blanks, or </function> cut short -- text


_S = fast(FunctionaryV31Detector.State)
_Status = fast(Status)
