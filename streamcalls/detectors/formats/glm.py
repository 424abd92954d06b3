"""GLM-4.5, GLM-4.6 and GLM-4.7 tool calls (``source="glm"``).

GLM-4.5 / 4.6 put a line end after the name and after each tag pair; GLM-4.7 writes the same
tags with no line ends at all::

    <tool_call>get_weather
    <arg_key>city</arg_key>
    <arg_value>Paris</arg_value>
    </tool_call>
    <tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>

- The name runs to the first line end or ``<``; blanks around it are markup.  A name that is
  not one (blanks inside it, quotes, braces, ...) means the ``<tool_call>`` held no call: it
  fails, nameless, and the text resumes right after it.
- A value is kept verbatim (issue 15, rule 2) and typed by the tools' schemas
  (:mod:`~streamcalls.detectors._parts.values`).  ``</arg_value>`` ends it only where ``<arg_key>`` or ``</tool_call>``
  follows (after blanks).
- The call completes at ``</tool_call>``.
- ``<tool_call>`` is shared with ``hermes`` and ``qwen3_coder``: with more than one of them
  on, what follows it decides (:mod:`~streamcalls.detectors._engine.shared`).
"""

from __future__ import annotations

import re
from enum import IntEnum

from .._engine.detector import Hold, Trigger
from .._engine.machine import Status, fast
from .._engine.tokens import Seen, literal_prefix_at, skip_blanks
from .._parts.tagged import TaggedDetector
from .._parts.xmlparams import MAX_GAP, MAX_NAME, Closer

__all__ = ("GlmDetector",)

_KEY = "<arg_key>"
_KEY_END = "</arg_key>"
_VALUE = "<arg_value>"
_END_BLOCK = "</tool_call>"
_CLOSER = Closer("</arg_value>", (_KEY, _END_BLOCK))
_NAME_CHAR = r"[^\s<>{}\[\]()\"'`\\,;=|]"
# A name: blanks, the name, blanks, then a line end (consumed) or a tag (not consumed).
_NAME_LINE = re.compile(
    rf"[ \t\r\n]{{0,{MAX_GAP}}}({_NAME_CHAR}{{1,{MAX_NAME}}})[ \t\r]{{0,{MAX_GAP}}}(?:\n|(?=<))"
)
# What may still become one.
_MAYBE_NAME = re.compile(
    rf"[ \t\r\n]{{0,{MAX_GAP}}}(?:{_NAME_CHAR}{{1,{MAX_NAME}}}[ \t\r]{{0,{MAX_GAP}}})?\Z"
)


class GlmDetector(TaggedDetector):
    class State(IntEnum):
        NAME = 0
        BODY = 1  # <arg_key> or </tool_call>
        KEY_TEXT = 2  # inside <arg_key>...
        KEY_CLOSE = 3  # </arg_key>
        VALUE_OPEN = 4  # <arg_value>
        VALUE_TEXT = 5
        SKIP = 6  # malformed: up to </tool_call>

    name = "glm"
    triggers = (Trigger.literal("<tool_call>"),)
    holds = (Hold.literal("<tool_call>"),)
    shares = "<tool_call>"  # with the other formats whose opener it is (see _engine.shared)
    claim = None
    fallback_rank = 0
    closer = _CLOSER
    block_end = (_END_BLOCK,)

    __slots__ = ("_arg_key",)

    def _value_text(self, text: str, pos: int) -> int:
        stop, ended = self.value(text, pos, _CLOSER)
        if ended:
            self._state = _S.BODY
        return stop

    def _key_text(self, text: str, pos: int) -> int:
        at, ended = self.read_up_to(text, pos, "<")
        if at < 0:
            return self._malformed(pos, "a parameter name longer than the limit")
        if ended:
            self._state = _S.KEY_CLOSE
        return at

    def _skip(self, text: str, pos: int) -> int:
        stop, closed = self.skip(text, pos)
        return self.done(stop) if closed >= 0 else stop

    def _tag(self, text: str, pos: int) -> int:
        """The tags between a key and a value: what the state expects next."""
        state = self._state
        at = skip_blanks(text, pos) if state is not _S.KEY_CLOSE else pos
        if at == len(text):
            return at
        expected = _EXPECTED[state]
        found = literal_prefix_at(text, at, expected)
        if found == Seen.WAIT:
            return at
        if found < 0:
            return self._malformed(at, f"expected {' or '.join(expected)} in the tool call")
        stop = at + len(expected[found])
        param = self._param
        assert param is not None
        if state is _S.BODY:
            if found == 1:
                param.end(at)
                return self.done(stop)
            self._state = _S.KEY_TEXT
        elif state is _S.KEY_CLOSE:
            self._arg_key = self.taken().strip()
            if not self._arg_key:
                return self._malformed(at, "an <arg_key> without a name")
            self._state = _S.VALUE_OPEN
        else:
            param.parameter(self._arg_key, stop)
            self._state = _S.VALUE_TEXT
        return stop

    _body = _key_close = _value_open = _tag

    def _name(self, text: str, pos: int) -> int:
        match = _NAME_LINE.match(text, pos)
        if match is not None:
            self._state = _S.BODY if self.open_call(match.group(1)) else _S.SKIP
            return match.end()
        at = skip_blanks(text, pos)
        found = literal_prefix_at(text, at, (_END_BLOCK,)) if at - pos <= MAX_GAP else -1
        if found == 0:  # an empty block: markup that holds no call
            return self.done(at + len(_END_BLOCK))
        if found == Seen.WAIT or _MAYBE_NAME.match(text, pos) is not None:
            return pos  # the name may still come
        self.markup.fail("<tool_call> with no tool name after it")
        return self.done(pos)  # the text resumes

    def _malformed(self, pos: int, error: str) -> int:
        self.fail(error)
        self._state = _S.SKIP
        return pos

    def finish(self, rest: str) -> str:
        if self._state is not _S.SKIP:
            self.cut_off()
        self.status = _Status.DONE
        return ""


_S = fast(GlmDetector.State)
_EXPECTED: dict[IntEnum, tuple[str, ...]] = {
    _S.BODY: (_KEY, _END_BLOCK),
    _S.KEY_CLOSE: (_KEY_END,),
    _S.VALUE_OPEN: (_VALUE,),
}
_Status = fast(Status)
