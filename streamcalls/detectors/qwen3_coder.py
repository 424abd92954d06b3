"""Qwen3-Coder and Qwen3.5 XML tool calls (``source="qwen3_coder"``).

What the chat template renders for a call (the model writes the same)::

    <tool_call>
    <function=get_weather>
    <parameter=city>
    Paris
    </parameter>
    <parameter=days>
    3
    </parameter>
    </function>
    </tool_call>

- Exactly one line end after ``<parameter=KEY>`` and one before ``</parameter>`` are markup;
  everything else is the value, which may hold line ends and ``<`` (issue 15, rule 2).  A
  ``</parameter>`` ends the value only where ``<parameter=``, ``</function>`` or
  ``</tool_call>`` follows it (after blanks): ``print("</parameter>")`` in code is value.
- Values are typed by the tools' schemas (:mod:`._values`); without one they are strings.
- The call completes at ``</function>`` (or at ``</tool_call>`` when ``</function>`` is
  missing).  ``</tool_call>`` after it is the call's markup; several ``<function=...>``
  blocks in one ``<tool_call>`` are several calls.
- ``<tool_call>`` is shared with ``hermes`` and ``glm``: with more than one of them on, what
  follows it decides (:mod:`._tooltag`).
"""

from __future__ import annotations

import re

from ._base import DONE, Hold, Trigger, prefixes
from ._tagged import TaggedDetector
from ._xmlcall import Closer, literal_prefix_at, skip_blanks

__all__ = ("Qwen3CoderDetector",)

_FUNCTION = "<function="
_PARAMETER = "<parameter="
_END_FUNCTION = "</function>"
_END_BLOCK = "</tool_call>"
_CLOSER = Closer("</parameter>", (_PARAMETER, _END_FUNCTION, _END_BLOCK), newline=True)

# States.
_OPEN = 0  # after <tool_call>: <function= must come
_NAME = 1  # inside <function=...>
_BODY = 2  # a parameter, </function> or </tool_call>
_KEY = 3  # inside <parameter=...>
_VALUE_START = 4  # the line end that follows <parameter=KEY>
_VALUE = 5
_AFTER = 6  # a call completed: another <function=, or </tool_call>
_SKIP = 7  # malformed: up to </tool_call>


class Qwen3CoderDetector(TaggedDetector):
    name = "qwen3_coder"
    triggers = (Trigger("<", re.escape("tool_call>")),)
    holds = (Hold(prefixes("<tool_call>"), "<"),)
    closer = _CLOSER
    block_end = (_END_BLOCK,)

    __slots__ = ()

    def step(self, text: str, pos: int) -> int:
        state = self._state
        if state == _VALUE:
            stop, ended = self.value(text, pos, _CLOSER)
            if ended:
                self._state = _BODY
            return stop
        if state in (_OPEN, _AFTER):
            return self._next_function(text, pos)
        if state in (_NAME, _KEY):
            at, found = self.read_up_to(text, pos, ">")
            if at < 0:
                self.fail(f"a {'tool' if state == _NAME else 'parameter'} name longer than the limit")
                self._state = _SKIP
                return pos
            if not found:
                return at
            name = self.taken().strip()
            if state == _NAME:
                self._state = _BODY if self.open_call(name, at) else _SKIP
            elif name:
                assert self._param is not None
                self._param.parameter(name, at + 1)
                self._state = _VALUE_START
            else:
                self.fail("a <parameter=> without a name")
                self._state = _SKIP
            return at + 1
        if state == _VALUE_START:
            self._state = _VALUE
            return pos + 1 if text[pos] == "\n" else pos  # the line end after the tag is markup
        if state == _BODY:
            return self._body(text, pos)
        stop, closed = self.skip(text, pos)
        return self.done(stop) if closed >= 0 else stop

    def _next_function(self, text: str, pos: int) -> int:
        found, at = self.look_past(text, pos, (_FUNCTION, _END_BLOCK))
        if found == -2:
            return pos
        if found == 0:
            if self._state == _AFTER:
                self.markup.next_call(at)
            self._param = None
            self._state = _NAME
            return at + len(_FUNCTION)
        if found == 1:  # the block's end (after an empty block: markup that holds no call)
            return self.done(at + len(_END_BLOCK))
        if self._state == _OPEN:
            self.markup.fail("<tool_call> with no <function=...> after it")
        return self.done(pos)  # the text resumes

    def _body(self, text: str, pos: int) -> int:
        at = skip_blanks(text, pos)
        if at == len(text):
            return at
        param = self._param
        assert param is not None
        found = literal_prefix_at(text, at, (_PARAMETER, _END_FUNCTION, _END_BLOCK))
        if found == -2:
            return at
        if found == 0:
            self._state = _KEY
            return at + len(_PARAMETER)
        if found == 1:
            param.end(at)
            self._state = _AFTER
            return at + len(_END_FUNCTION)
        if found == 2:
            param.end(at)
            return self.done(at + len(_END_BLOCK))
        self.fail("expected <parameter=...> or </function> in the tool call")
        self._state = _SKIP
        return at

    def finish(self, rest: str) -> str:
        state = self._state
        self.status = DONE
        if state == _AFTER:
            return rest  # after a completed call: text
        if state != _SKIP:
            self.cut_off()
        return ""
