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

from .._call import OPEN, Call
from ._base import ACTIVE, DONE, Detector, Hold, Trigger, feed_arguments, literal_at, prefixes

__all__ = ("DeepSeekDetector",)

CALLS_BEGIN = "<｜tool▁calls▁begin｜>"
CALLS_END = "<｜tool▁calls▁end｜>"
CALL_BEGIN = "<｜tool▁call▁begin｜>"
CALL_END = "<｜tool▁call▁end｜>"
SEP = "<｜tool▁sep｜>"
_WHITESPACE = " \t\r\n"
_MAX_HEAD = 256
_CODE_OPEN_LINE = re.compile(r"```(?:json)?[ \t]*\r?\n")
# What the text may end with while it could still become that line.
_CODE_OPEN_PREFIX = re.compile(r"(?:`{1,3}|```j|```js|```jso|```json[ \t]*\r?|```[ \t]*\r?)\Z")

# States.
_LIST = 0  # between calls
_HEAD = 1  # between CALL_BEGIN and SEP
_NAME_LINE = 2  # V3: the name after SEP, up to the line end
_CODE_OPEN = 3  # V3: the ```json line
_ARGUMENTS_START = 4
_ARGUMENTS = 5
_AFTER_ARGUMENTS = 6  # V3's closing ```, then CALL_END


class DeepSeekDetector(Detector):
    name = "deepseek"
    triggers = (Trigger("<", re.escape(CALLS_BEGIN[1:])), Trigger("<", re.escape(CALL_BEGIN[1:])))
    holds = (Hold(prefixes(CALLS_BEGIN), "<"), Hold(prefixes(CALL_BEGIN), "<"))

    __slots__ = ("_call", "_head", "_state", "_v3")

    def begin(self, trigger: str) -> None:
        self.status = ACTIVE
        self.committed = True
        self._state = _HEAD if trigger == CALL_BEGIN else _LIST
        self._head: list[str] = []
        self._call: Call | None = None
        self._v3 = False

    def feed(self, text: str, pos: int) -> int:
        end = len(text)
        while pos < end and self.status == ACTIVE:
            state = self._state
            if state == _ARGUMENTS:
                pos = self._arguments(text, pos)
                continue
            if state in (_HEAD, _NAME_LINE):
                stop = self._until(text, pos, SEP if state == _HEAD else "\n")
                if stop == pos and self.status == ACTIVE and self._state == state:
                    break  # a possible separator at the end: wait for more
                pos = stop
                continue
            while pos < end and text[pos] in _WHITESPACE:
                pos += 1
            if pos == end:
                break
            before = pos
            pos = self._token(state, text, pos)
            if pos == before and self._state == state and self.status == ACTIVE:
                break  # a token split across chunks: wait
        return pos

    def _token(self, state: int, text: str, pos: int) -> int:
        if state == _LIST:
            for literal, then in ((CALL_BEGIN, _HEAD), (CALLS_END, -1)):
                found = literal_at(text, pos, literal)
                if found == 1:
                    if then < 0:
                        self.status = DONE
                    else:
                        self.markup.next_call(pos)
                        self._state = then
                        self._head = []
                        self._call = None
                        self._v3 = False
                    return pos + len(literal)
                if found == 0:
                    return pos
            self.status = DONE  # not a token: the rest is text
            return pos
        if state == _CODE_OPEN:
            if text[pos] == "`":
                match = _CODE_OPEN_LINE.match(text, pos)
                if match is not None:
                    self._state = _ARGUMENTS_START
                    return match.end()
                if _CODE_OPEN_PREFIX.match(text, pos):
                    return pos  # the rest of the line may still come
                return self._fail(pos, "expected ```json before the arguments")
            self._state = _ARGUMENTS_START
            return pos
        if state == _ARGUMENTS_START:
            return self._open_arguments(text, pos)
        # _AFTER_ARGUMENTS
        if self._v3 and text.startswith("```", pos):
            return pos + 3
        if self._v3 and "```".startswith(text[pos:]):
            return pos
        found = literal_at(text, pos, CALL_END)
        if found == 1:
            self._state = _LIST
            return pos + len(CALL_END)
        if found == 0:
            return pos
        self.status = DONE
        return pos

    def _until(self, text: str, pos: int, stop: str) -> int:
        """Collect text up to ``stop`` (the head or the V3 name), at most _MAX_HEAD characters."""
        room = _MAX_HEAD - sum(map(len, self._head))
        at = text.find(stop, pos, pos + room + len(stop))
        if at < 0:
            cut = len(text)
            for keep in range(min(len(stop) - 1, len(text) - pos), 0, -1):
                if stop.startswith(text[len(text) - keep :]):
                    cut = len(text) - keep
                    break
            if cut - pos > room:  # cut exactly at the limit, however the text was chunked
                self._head = []  # too long to be a name
                return self._fail(pos + room, "expected <｜tool▁sep｜> after the tool name")
            self._head.append(text[pos:cut])
            return cut
        self._head.append(text[pos:at])
        head = "".join(self._head).strip()
        self._head = []
        if self._state == _HEAD:
            if head == "function":  # V3: the name follows the separator
                self._v3 = True
                self._state = _NAME_LINE
            else:
                self._name_found(head)
        else:
            self._name_found(head)
            self._state = _CODE_OPEN
        return at + len(stop)

    def _name_found(self, name: str) -> None:
        self._call = self.markup.open_call(None, name or None)
        if self._call is None:
            self.status = DONE
        elif not self._v3:
            self._state = _ARGUMENTS_START

    def _open_arguments(self, text: str, pos: int) -> int:
        if text[pos] not in '{["':
            return self._fail(pos, "the arguments must be JSON")
        assert self._call is not None
        self.markup.arguments(self._call, pos)
        self._state = _ARGUMENTS
        return pos

    def _arguments(self, text: str, pos: int) -> int:
        assert self._call is not None
        stop = feed_arguments(self.calls, self._call, text, pos)
        if stop < 0:
            return len(text)
        self.markup.after_arguments(stop)
        self._state = _AFTER_ARGUMENTS
        return stop

    def _fail(self, pos: int, error: str) -> int:
        self.markup.fail(error, self._call)
        self.status = DONE
        return pos

    def finish(self, rest: str) -> str:
        call = self._call
        if call is not None and call.status == OPEN:
            self.calls.feed(call, rest)
            self.markup.fail("the arguments were cut off (the text ended inside them)", call)
        elif self._state in (_HEAD, _NAME_LINE):
            self._fail(0, "the text ended inside a tool call")
        self.status = DONE
        return ""
