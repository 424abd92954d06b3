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
from enum import IntEnum

from ..._call import OPEN, Call
from .._engine.detector import Detector, Hold, Trigger
from .._engine.machine import Status, fast
from .._engine.tokens import literal_at, skip_blanks
from .._parts.arguments import cut_off, feed_arguments
from .._parts.callrun import CallRun, Layout

__all__ = ("MistralDetector",)

_ARGS = "[ARGS]"
_CALL_ID = "[CALL_ID]"
_TOKEN = re.compile(r"[^\[{\s]*")
_MAX_NAME = 256


class MistralDetector(Detector):
    class State(IntEnum):
        START = 0  # after the marker: a list, or a name
        NAME = 1
        CALL_ID = 2  # after [CALL_ID]
        BEFORE_ARGS = 3  # after [ARGS] (or a name and "{")
        ARGUMENTS = 4
        LIST = 5  # the array form: a run of call objects

    name = "mistral"
    triggers = (Trigger.literal("[TOOL_CALLS]"),)
    holds = (Hold.literal("[TOOL_CALLS]"),)

    __slots__ = ("_call", "_id_pieces", "_name_pieces", "_named", "_run")

    def begin(self, trigger: str) -> None:
        self.start(_S.START)
        self._run: CallRun | None = None
        self._name_pieces: list[str] = []
        self._named = False  # markup after the word showed that it is a tool's name
        self._id_pieces: list[str] = []
        self._call: Call | None = None

    def _list(self, text: str, pos: int) -> int:
        run = self._run
        assert run is not None
        pos = run.feed(text, pos)
        if run.status is not _Status.ACTIVE:
            self.status = _Status.DONE
        return pos

    def _start(self, text: str, pos: int) -> int:
        pos = skip_blanks(text, pos)
        if pos == len(text):
            return pos
        char = text[pos]
        if char in "[{":
            layout = Layout.ARRAY if char == "[" else Layout.RUN
            self._run = CallRun(self.calls, self.markup, self.tools, committed=True, layout=layout)
            self._state = _S.LIST
            return pos + 1
        self._state = _S.NAME
        return pos

    def _name(self, text: str, pos: int) -> int:
        """The word after the marker, up to what shows it is a tool's name (or is not)."""
        return self._token(text, pos, self._name_pieces)

    def _call_id(self, text: str, pos: int) -> int:
        return self._token(text, pos, self._id_pieces)

    def _token(self, text: str, pos: int, target: list[str]) -> int:
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
        if char == "{" and self._name_pieces:
            self._state = _S.BEFORE_ARGS
            self._named = True
            return pos
        if char == "[":
            for literal, state in ((_ARGS, _S.BEFORE_ARGS), (_CALL_ID, _S.CALL_ID)):
                found = literal_at(text, pos, literal)
                if found == 1:
                    self._state = state
                    self._named = True
                    return pos + len(literal)
                if found == 0:
                    return pos  # wait for the rest of the marker
        # Whitespace or a stray "[": no [ARGS] follows; the marker stood alone.
        return self._fail(pos, "expected [ARGS] and the arguments after the tool name")

    def _before_args(self, text: str, pos: int) -> int:
        pos = skip_blanks(text, pos)
        if pos == len(text):
            return pos
        name = "".join(self._name_pieces)
        if text[pos] not in '{["':
            return self._fail(pos, "the arguments after [ARGS] must be JSON")
        self._call = self.markup.open_call("".join(self._id_pieces) or None, name or None)
        if self._call is None:
            return self.stop(pos)
        self.markup.arguments(self._call, pos)
        self._state = _S.ARGUMENTS
        return pos

    def _arguments(self, text: str, pos: int) -> int:
        assert self._call is not None
        stop = feed_arguments(self.calls, self._call, text, pos)
        if stop < 0:
            return len(text)
        self.markup.after_arguments(stop)
        return self.stop(stop)

    def _fail(self, pos: int, error: str) -> int:
        if self._named:
            name = "".join(self._name_pieces) or None
            self.markup.fail(error, self._call, name=name, call_id="".join(self._id_pieces) or None)
        else:
            self.markup.fail(error)  # the word was not a tool's name after all
        return self.stop(pos)

    def finish(self, rest: str) -> str:
        if self._run is not None:
            self.status = _Status.DONE
            return self._run.finish(rest)
        if self._call is not None:
            if self._call.status == OPEN:
                cut_off(self, self._call, rest)
        else:
            self._fail(0, "the text ended inside the [TOOL_CALLS] markup")
        self.status = _Status.DONE
        return ""


_S = fast(MistralDetector.State)
_Status = fast(Status)
