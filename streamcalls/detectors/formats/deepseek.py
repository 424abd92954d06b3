"""DeepSeek's tool-call tokens (``source="deepseek"``).

V3 / R1::

    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
    ```json
    {"city": "Oslo"}
    ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>

V3.1 (name before the separator, bare JSON after it)::

    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Oslo"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>

Each call completes when its arguments' JSON closes.  A call that fails is
reported when its markup ends (its ``<｜tool▁call▁end｜>``, and the list's
end token after the last one, are part of its ``raw``).
"""

from __future__ import annotations

import re
from enum import IntEnum

from ..._call import OPEN, Call
from .._engine.detector import Detector, Hold, Trigger
from .._engine.machine import Status, fast
from .._engine.tokens import literal_at, skip_blanks
from .._parts.arguments import cut_off, feed_arguments

__all__ = ("DeepSeekDetector",)

CALLS_BEGIN = "<｜tool▁calls▁begin｜>"
CALLS_END = "<｜tool▁calls▁end｜>"
CALL_BEGIN = "<｜tool▁call▁begin｜>"
CALL_END = "<｜tool▁call▁end｜>"
SEP = "<｜tool▁sep｜>"
_MAX_HEAD = 256
_CODE_OPEN_LINE = re.compile(r"```(?:json)?[ \t]*\r?\n")
# What the text may end with while it could still become that line.
_CODE_OPEN_PREFIX = re.compile(r"(?:`{1,3}|```j|```js|```jso|```json[ \t]*\r?|```[ \t]*\r?)\Z")


class DeepSeekDetector(Detector):
    class State(IntEnum):
        LIST = 0  # between calls
        HEAD = 1  # between CALL_BEGIN and SEP
        NAME_LINE = 2  # V3: the name after SEP, up to the line end
        CODE_OPEN = 3  # V3: the ```json line
        ARGUMENTS_START = 4
        ARGUMENTS = 5
        AFTER_ARGUMENTS = 6  # V3's closing ```, then CALL_END

    name = "deepseek"
    triggers = (Trigger.literal(CALLS_BEGIN), Trigger.literal(CALL_BEGIN))
    holds = (Hold.literal(CALLS_BEGIN), Hold.literal(CALL_BEGIN))

    __slots__ = ("_call", "_head_pieces", "_v3")

    def begin(self, trigger: str) -> None:
        self.start(_S.HEAD if trigger == CALL_BEGIN else _S.LIST)
        self._head_pieces: list[str] = []
        self._call: Call | None = None
        self._v3 = False

    # -- tokens between the calls and around the arguments ------------------------------------

    def _list(self, text: str, pos: int) -> int:
        pos = skip_blanks(text, pos)
        if pos == len(text):
            return pos
        for literal, then in ((CALL_BEGIN, _S.HEAD), (CALLS_END, None)):
            found = literal_at(text, pos, literal)
            if found == 1:
                if then is None:
                    self.status = _Status.DONE
                else:
                    self.markup.next_call(pos)
                    self._state = then
                    self._head_pieces = []
                    self._call = None
                    self._v3 = False
                return pos + len(literal)
            if found == 0:
                return pos
        return self.stop(pos)  # not a token: the rest is text

    def _code_open(self, text: str, pos: int) -> int:
        pos = skip_blanks(text, pos)
        if pos == len(text):
            return pos
        if text[pos] == "`":
            match = _CODE_OPEN_LINE.match(text, pos)
            if match is not None:
                self._state = _S.ARGUMENTS_START
                return match.end()
            if _CODE_OPEN_PREFIX.match(text, pos):
                return pos  # the rest of the line may still come
            return self._fail(pos, "expected ```json before the arguments")
        self._state = _S.ARGUMENTS_START
        return pos

    def _arguments_start(self, text: str, pos: int) -> int:
        pos = skip_blanks(text, pos)
        if pos == len(text):
            return pos
        if text[pos] not in '{["':
            return self._fail(pos, "the arguments must be JSON")
        assert self._call is not None
        self.markup.arguments(self._call, pos)
        self._state = _S.ARGUMENTS
        return pos

    def _after_arguments(self, text: str, pos: int) -> int:
        pos = skip_blanks(text, pos)
        if pos == len(text):
            return pos
        if self._v3 and text.startswith("```", pos):
            return pos + 3
        if self._v3 and "```".startswith(text[pos:]):
            return pos
        found = literal_at(text, pos, CALL_END)
        if found == 1:
            self._state = _S.LIST
            return pos + len(CALL_END)
        if found == 0:
            return pos
        return self.stop(pos)

    # -- the name, and the arguments --------------------------------------------------------

    def _head(self, text: str, pos: int) -> int:
        """Text up to SEP (the head), or, for V3, the name up to its line end."""
        stop = SEP if self._state is _S.HEAD else "\n"
        room = _MAX_HEAD - sum(map(len, self._head_pieces))
        at = text.find(stop, pos, pos + room + len(stop))
        if at < 0:
            cut = len(text)
            for keep in range(min(len(stop) - 1, len(text) - pos), 0, -1):
                if stop.startswith(text[len(text) - keep :]):
                    cut = len(text) - keep
                    break
            if cut - pos > room:  # cut exactly at the limit, however the text was chunked
                self._head_pieces = []  # too long to be a name
                return self._fail(pos + room, "expected <｜tool▁sep｜> after the tool name")
            self._head_pieces.append(text[pos:cut])
            return cut
        self._head_pieces.append(text[pos:at])
        head = "".join(self._head_pieces).strip()
        self._head_pieces = []
        if self._state is _S.HEAD:
            if head == "function":  # V3: the name follows the separator
                self._v3 = True
                self._state = _S.NAME_LINE
            else:
                self._name_found(head)
        else:
            self._name_found(head)
            self._state = _S.CODE_OPEN
        return at + len(stop)

    _name_line = _head

    def _name_found(self, name: str) -> None:
        self._call = self.markup.open_call(None, name or None)
        if self._call is None:
            self.status = _Status.DONE
        elif not self._v3:
            self._state = _S.ARGUMENTS_START

    def _arguments(self, text: str, pos: int) -> int:
        assert self._call is not None
        stop = feed_arguments(self.calls, self._call, text, pos)
        if stop < 0:
            return len(text)
        self.markup.after_arguments(stop)
        self._state = _S.AFTER_ARGUMENTS
        return stop

    def _fail(self, pos: int, error: str) -> int:
        self.markup.fail(error, self._call)
        return self.stop(pos)

    def finish(self, rest: str) -> str:
        call = self._call
        if call is not None and call.status == OPEN:
            cut_off(self, call, rest)
        elif self._state is _S.HEAD or self._state is _S.NAME_LINE:
            self._fail(0, "the text ended inside a tool call")
        self.status = _Status.DONE
        return ""


_S = fast(DeepSeekDetector.State)
_Status = fast(Status)
