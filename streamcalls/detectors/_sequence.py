"""A run of call objects: a JSON array of them, or objects separated by ``;`` (Llama).

Each call completes at its own closing brace.  The run is a candidate until
its first object commits; after that, later objects are committed too (a
bad one fails its call instead of turning the run back into prose).  A
failed call's markup runs to where the next object begins (``, ``, ``;`` and
a closing ``]`` included); a malformed object ends the run, and the text
resumes at the character that broke it.
"""

from __future__ import annotations

from .._calls import CallAssembler
from ._base import ACTIVE, DONE, REJECTED
from ._callobject import DONE as OBJECT_DONE
from ._callobject import INVALID, PARSING, CallObjectParser
from ._callobject import REJECTED as OBJECT_REJECTED
from ._markup import Markup

__all__ = ("CallSequence",)

_WHITESPACE = " \t\r\n"
_BLANK = " \t"
_MAX_BLANK = 64

# States.
_ELEMENT = 0  # before an element
_OBJECT = 1  # inside an element
_AFTER = 2  # after an element


class CallSequence:
    __slots__ = (
        "_array",
        "_calls",
        "_count",
        "_markup",
        "_object",
        "_state",
        "_tools",
        "committed",
        "status",
    )

    def __init__(
        self,
        calls: CallAssembler,
        markup: Markup,
        tools: frozenset[str] | None,
        *,
        committed: bool,
        array: bool,
    ) -> None:
        """``array``: the ``[`` was consumed; else the first ``{`` was."""
        self._calls = calls
        self._markup = markup
        self._tools = tools
        self._array = array
        self.committed = committed
        self.status = ACTIVE
        self._count = 0
        self._object: CallObjectParser | None = None
        if array:
            self._state = _ELEMENT
        else:
            self._new_object(opened=True)

    def _new_object(self, *, opened: bool) -> None:
        self._object = CallObjectParser(
            self._calls, self._markup, committed=self.committed, tools=self._tools, opened=opened
        )
        self._state = _OBJECT

    def feed(self, text: str, pos: int) -> int:
        end = len(text)
        while pos < end and self.status == ACTIVE:
            state = self._state
            if state == _OBJECT:
                pos = self._feed_object(text, pos)
            elif state == _ELEMENT:
                while pos < end and text[pos] in _WHITESPACE:
                    pos += 1
                if pos == end:
                    break
                char = text[pos]
                if char == "{":
                    self._markup.next_call(pos)
                    self._new_object(opened=True)
                    pos += 1
                elif char == "]" and self._array and (self._count or self.committed):
                    if not self._count:
                        self._markup.fail("the list holds no tool call")
                    self.status = DONE
                    pos += 1
                else:
                    return self._stop(pos)
            else:
                before = pos
                pos = self._after(text, pos)
                if pos == before and self._state == _AFTER and self.status == ACTIVE:
                    break  # blanks at the end: a ";" may still come
        return pos

    def _feed_object(self, text: str, pos: int) -> int:
        obj = self._object
        assert obj is not None
        pos = obj.feed(text, pos)
        if obj.committed:
            self.committed = True
        if obj.status == PARSING:
            return pos
        if obj.status == OBJECT_REJECTED:
            self.status = REJECTED
            return pos
        self._count += 1
        if obj.status == OBJECT_DONE:
            obj.finish_call()
        elif obj.status == INVALID:
            obj.fail(obj.error or "malformed tool call object")
            self.status = DONE  # what follows the broken object is text
            return pos
        self._state = _AFTER
        return pos

    def _after(self, text: str, pos: int) -> int:
        end = len(text)
        if self._array:
            while pos < end and text[pos] in _WHITESPACE:
                pos += 1
            if pos == end:
                return pos
            char = text[pos]
            if char == ",":
                self._state = _ELEMENT
                return pos + 1
            if char == "]":
                self.status = DONE
                return pos + 1
            return self._stop(pos)
        # Objects separated by ";" (blanks around it, not line ends).
        start = pos
        while pos < end and text[pos] in _BLANK:
            pos += 1
        if pos == end:
            if pos - start > _MAX_BLANK:
                self.status = DONE
            return start  # wait: a ";" may still come
        if text[pos] == ";":
            self._state = _ELEMENT
            return pos + 1
        self.status = DONE
        return start

    def _stop(self, pos: int) -> int:
        """Something that is not part of the run: prose if nothing committed yet."""
        self.status = DONE if self.committed else REJECTED
        if self.committed and not self._count:
            self._markup.fail("expected a tool call object")
        return pos

    def abandon(self) -> None:
        obj = self._object
        if obj is not None and obj.call is not None and not obj.committed:
            self._calls.discard(obj.call)

    def finish(self, rest: str) -> str:
        """The text ended inside the run; returns what of ``rest`` is prose."""
        obj = self._object
        self.status = DONE
        if self._state == _OBJECT and obj is not None and obj.status == PARSING and obj.committed:
            obj.fail("the tool call object was cut off (the text ended inside it)")
        return rest if self._state == _AFTER else ""
