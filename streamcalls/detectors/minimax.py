"""MiniMax-M2 tool calls (``source="minimax"``).

One block holds every call of a turn::

    <minimax:tool_call>
    <invoke name="get_weather">
    <parameter name="city">Paris</parameter>
    <parameter name="days">3</parameter>
    </invoke>
    <invoke name="get_time">
    </invoke>
    </minimax:tool_call>

- Names and keys may be in double or single quotes, or none (MiniMax's own parser reads all
  three).  A value sits right between its tags and is kept verbatim, then typed by the
  tools' schemas (:mod:`._values`); ``</parameter>`` ends it only where ``<parameter name=``,
  ``</invoke>`` or ``</minimax:tool_call>`` follows (after blanks).
- Each call completes at its ``</invoke>`` (or at ``</minimax:tool_call>`` when ``</invoke>``
  is missing).  What joins it to the next ``<invoke`` and the block's closing tag are its
  markup; anything else after a completed call is text again.
- Malformed markup inside an ``<invoke>`` fails that call, up to its ``</invoke>``; the
  block's other calls stand.
"""

from __future__ import annotations

import re

from ._base import DONE, Hold, Trigger, prefixes
from ._tagged import TaggedDetector
from ._xmlcall import Closer, literal_prefix_at, skip_blanks

__all__ = ("MinimaxDetector",)

OPENER = "<minimax:tool_call>"
_INVOKE = "<invoke name="
_END_INVOKE = "</invoke>"
_PARAMETER = "<parameter name="
_END_BLOCK = "</minimax:tool_call>"
_CLOSER = Closer("</parameter>", (_PARAMETER, _END_INVOKE, _END_BLOCK))
_QUOTES = ('"', "'")

# States.
_OPEN = 0  # after the opener: an <invoke must come
_NAME = 1  # inside <invoke name=...>
_BODY = 2  # a parameter, </invoke> or the block's end
_KEY = 3  # inside <parameter name=...>
_VALUE = 4
_AFTER = 5  # a call completed: another <invoke, or the block's end
_SKIP = 6  # malformed: up to </invoke> or the block's end


def _unquoted(name: str) -> str:
    name = name.strip()
    if len(name) >= 2 and name[0] == name[-1] and name[0] in _QUOTES:
        return name[1:-1]
    return name


class MinimaxDetector(TaggedDetector):
    name = "minimax"
    triggers = (Trigger("<", re.escape(OPENER[1:])),)
    holds = (Hold(prefixes(OPENER), "<"),)
    closer = _CLOSER
    block_end = (_END_INVOKE, _END_BLOCK)

    __slots__ = ()

    def step(self, text: str, pos: int) -> int:
        state = self._state
        if state == _VALUE:
            stop, ended = self.value(text, pos, _CLOSER)
            if ended:
                self._state = _BODY
            return stop
        if state in (_OPEN, _AFTER):
            return self._next_invoke(text, pos)
        if state in (_NAME, _KEY):
            at, found = self.read_up_to(text, pos, ">")
            if at < 0:
                self.fail(f"a {'tool' if state == _NAME else 'parameter'} name longer than the limit")
                self._state = _SKIP
                return pos
            if not found:
                return at
            name = _unquoted(self.taken())
            if state == _NAME:
                self._state = _BODY if self.open_call(name, at) else _SKIP
            elif name:
                assert self._param is not None
                self._param.parameter(name, at + 1)
                self._state = _VALUE
            else:
                self.fail("a <parameter> without a name")
                self._state = _SKIP
            return at + 1
        if state == _BODY:
            return self._body(text, pos)
        stop, closed = self.skip(text, pos)
        if closed == 0:  # </invoke>: the block goes on
            self._state = _AFTER
        elif closed == 1:
            return self.done(stop)
        return stop

    def _next_invoke(self, text: str, pos: int) -> int:
        found, at = self.look_past(text, pos, (_INVOKE, _END_BLOCK))
        if found == -2:
            return pos
        if found == 0:
            if self._state == _AFTER:
                self.markup.next_call(at)
            self._param = None
            self._state = _NAME
            return at + len(_INVOKE)
        if found == 1:  # the block's end (after an empty block: markup that holds no call)
            return self.done(at + len(_END_BLOCK))
        if self._state == _OPEN:
            self.markup.fail(f"{OPENER} with no <invoke> after it")
        return self.done(pos)  # the text resumes

    def _body(self, text: str, pos: int) -> int:
        at = skip_blanks(text, pos)
        if at == len(text):
            return at
        param = self._param
        assert param is not None
        found = literal_prefix_at(text, at, (_PARAMETER, _END_INVOKE, _END_BLOCK))
        if found == -2:
            return at
        if found == 0:
            self._state = _KEY
            return at + len(_PARAMETER)
        if found == 1:
            param.end(at)
            self._state = _AFTER
            return at + len(_END_INVOKE)
        if found == 2:
            param.end(at)
            return self.done(at + len(_END_BLOCK))
        self.fail("expected <parameter name=...> or </invoke> in the tool call")
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
