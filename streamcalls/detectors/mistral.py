"""Mistral's ``[TOOL_CALLS]`` marker (``source="mistral"``).

Two generations of the format, both anywhere in the text::

    [TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "a1b2c3d4e"}]
    [TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}

The newer one (tokenizer v11+) repeats the marker for each call and may put
``[CALL_ID]id`` between the name and ``[ARGS]``.  Calls in the array form
complete at their object's closing brace, those of the newer form when their
arguments' JSON closes.  A word after the marker is a tool's name only once
``[ARGS]``, ``[CALL_ID]`` or ``{`` follows it: its call starts then.  A
marker followed by anything else fails as malformed markup, its call
nameless, and the text resumes where the markup broke.
"""

from __future__ import annotations

import re

from .._call import OPEN, Call
from ._base import ACTIVE, DONE, Detector, Hold, Trigger, feed_arguments, literal_at, prefixes
from ._sequence import CallSequence

__all__ = ("MistralDetector",)

_ARGS = "[ARGS]"
_CALL_ID = "[CALL_ID]"
_WHITESPACE = " \t\r\n"
_TOKEN = re.compile(r"[^\[{\s]*")
_MAX_NAME = 256

# States.
_START = 0
_NAME = 1
_CALL_ID_VALUE = 2
_BEFORE_ARGS = 3
_ARGUMENTS = 4


class MistralDetector(Detector):
    name = "mistral"
    triggers = (Trigger("[", re.escape("TOOL_CALLS]")),)
    holds = (Hold(prefixes("[TOOL_CALLS]"), "["),)

    __slots__ = ("_call", "_call_id", "_name", "_named", "_sequence", "_state")

    def begin(self, trigger: str) -> None:
        self.status = ACTIVE
        self.committed = True
        self._state = _START
        self._sequence: CallSequence | None = None
        self._name: list[str] = []
        self._named = False  # markup after the word showed that it is a tool's name
        self._call_id: list[str] = []
        self._call: Call | None = None

    def feed(self, text: str, pos: int) -> int:
        end = len(text)
        while pos < end and self.status == ACTIVE:
            if self._sequence is not None:
                pos = self._sequence.feed(text, pos)
                if self._sequence.status != ACTIVE:
                    self.status = DONE
                    continue
                break  # it consumed what it could and waits for more text
            state = self._state
            if state in (_START, _BEFORE_ARGS):
                while pos < end and text[pos] in _WHITESPACE:
                    pos += 1
                if pos == end:
                    break
                pos = self._start(text, pos) if state == _START else self._arguments_start(text, pos)
            elif state in (_NAME, _CALL_ID_VALUE):
                before = pos
                pos = self._token(text, pos)
                if pos == before and self._state == state and self.status == ACTIVE:
                    break  # "[AR" at the end: wait for the rest of the marker
            else:
                pos = self._arguments(text, pos)
        return pos

    def _start(self, text: str, pos: int) -> int:
        char = text[pos]
        if char in "[{":
            self._sequence = CallSequence(
                self.calls, self.markup, self.tools, committed=True, array=char == "["
            )
            return pos + 1
        self._state = _NAME
        return pos

    def _token(self, text: str, pos: int) -> int:
        target = self._name if self._state == _NAME else self._call_id
        room = _MAX_NAME - sum(map(len, target))
        match = _TOKEN.match(text, pos, pos + room + 1)
        assert match is not None
        if match.end() - pos > room:  # cut exactly at the limit, however the text was chunked
            target.clear()  # too long to be a name or an id: none is kept
            return self._fail(pos + room, "the tool name or call id after [TOOL_CALLS] is too long")
        target.append(match.group())
        pos = match.end()
        if pos == len(text):
            return pos
        char = text[pos]
        if char == "{" and self._name:
            self._state = _BEFORE_ARGS
            self._named = True
            return pos
        if char == "[":
            for literal, state in ((_ARGS, _BEFORE_ARGS), (_CALL_ID, _CALL_ID_VALUE)):
                found = literal_at(text, pos, literal)
                if found == 1:
                    self._state = state
                    self._named = True
                    return pos + len(literal)
                if found == 0:
                    return pos  # wait for the rest of the marker
        # Whitespace or a stray "[": no [ARGS] follows; the marker stood alone.
        return self._fail(pos, "expected [ARGS] and the arguments after the tool name")

    def _arguments_start(self, text: str, pos: int) -> int:
        name = "".join(self._name)
        if text[pos] not in '{["':
            return self._fail(pos, "the arguments after [ARGS] must be JSON")
        self._call = self.markup.open_call("".join(self._call_id) or None, name or None)
        if self._call is None:
            self.status = DONE
            return pos
        self.markup.arguments(self._call, pos)
        self._state = _ARGUMENTS
        return pos

    def _arguments(self, text: str, pos: int) -> int:
        assert self._call is not None
        stop = feed_arguments(self.calls, self._call, text, pos)
        if stop < 0:
            return len(text)
        self.markup.after_arguments(stop)
        self.status = DONE
        return stop

    def _fail(self, pos: int, error: str) -> int:
        if self._named:
            name = "".join(self._name) or None
            self.markup.fail(error, self._call, name=name, call_id="".join(self._call_id) or None)
        else:
            self.markup.fail(error)  # the word was not a tool's name after all
        self.status = DONE
        return pos

    def finish(self, rest: str) -> str:
        if self._sequence is not None:
            self.status = DONE
            return self._sequence.finish(rest)
        if self._call is not None:
            if self._call.status == OPEN:
                self.calls.feed(self._call, rest)
                self.markup.fail("the arguments were cut off (the text ended inside them)", self._call)
        else:
            self._fail(0, "the text ended inside the [TOOL_CALLS] markup")
        self.status = DONE
        return ""
