"""A run of call objects: a JSON array of them, objects separated by ``;`` (Llama), or one per line.

Each call completes at its own closing brace.  The run is a candidate until
its first object commits; after that, later objects are committed too (a
bad one fails its call instead of turning the run back into prose).  A
failed call's markup runs to where the next object begins (``, ``, ``;`` and
a closing ``]`` included); a malformed object ends the run, and the text
resumes at the character that broke it.

How the objects are laid out is the format's (:class:`Layout`): after an array's ``[``, its
elements and its ``]``; after a first ``{``, objects joined by ``;`` and blanks (no line ends),
or by blanks and line ends.  Blanks after the last object of a run without brackets are held
(at most 64) while another object may follow; if none does, they are text again.

A run that *resumes* (``resume=True``, the formats declared on :mod:`.jsoncalls`) keeps going
past a failed call where it can: an object whose JSON is whole but which is no call (no name,
two names, a key twice) fails alone, its rest read as JSON to its closing brace, and the run
goes on; an element that is not an object, or an object whose JSON breaks, fails and ends the
run, which says so (``broken``) so that its format can take the rest of its block as that
failure's markup.  Where the break comes after a completed call (``[{...}, 42]``), nothing of
it was read yet: it fails (``error``) only if its format reads on to the block's end.
"""

from __future__ import annotations

from enum import IntEnum

from ..._calls import CallAssembler
from ..._jsonscan import JsonScanner
from .._engine.machine import Machine, Status, fast
from .._engine.markup import Markup
from .callkeys import CALL_KEYS, CallKeys
from .callobject import CallObjectParser

__all__ = ("CallRun", "Layout")

_WHITESPACE = " \t\r\n"
_BLANK = " \t"
_MAX_BLANK = 64


class Layout(IntEnum):
    """How a run's objects are laid out."""

    ARRAY = 0  # [{...}, {...}]: the "[" was consumed
    RUN = 1  # {...}; {...}: the first "{" was consumed
    LINES = 2  # {...}\n{...}: the first "{" was consumed


class CallRun(Machine):
    class State(IntEnum):
        ELEMENT = 0  # before an element
        OBJECT = 1  # inside an element
        AFTER = 2  # after an element
        REST = 3  # the rest of an object that failed but whose JSON is whole, to its closing brace

    __slots__ = (
        "_calls",
        "_count",
        "_keys",
        "_layout",
        "_markup",
        "_reader",
        "_resume",
        "_skipper",
        "_tools",
        "broken",
        "committed",
        "error",
    )

    def __init__(
        self,
        calls: CallAssembler,
        markup: Markup,
        tools: frozenset[str] | None,
        *,
        committed: bool,
        layout: Layout,
        keys: CallKeys = CALL_KEYS,
        resume: bool = False,
    ) -> None:
        self._calls = calls
        self._resume = resume
        self._skipper: JsonScanner | None = None
        self.broken = False  # (resume) it ended at a character that broke it
        self.error = ""  # (resume) why, where it broke after a call: no failure yet, no markup yet
        self._markup = markup
        self._tools = tools
        self._layout = layout
        self._keys = keys
        self.committed = committed
        self.status = _Status.ACTIVE
        self._count = 0
        self._reader: CallObjectParser | None = None
        if layout is Layout.ARRAY:
            self._state = _S.ELEMENT
        else:
            self._new_object()

    def _new_object(self) -> None:
        self._reader = CallObjectParser(
            self._calls,
            self._markup,
            committed=self.committed,
            tools=self._tools,
            opened=True,
            keys=self._keys,
        )
        self._state = _S.OBJECT

    # -- the steps -------------------------------------------------------------------

    def _element(self, text: str, pos: int) -> int:
        end = len(text)
        while pos < end and text[pos] in _WHITESPACE:
            pos += 1
        if pos == end:
            return pos
        char = text[pos]
        if char == "{":
            self._markup.next_call(pos)
            self._new_object()
            return pos + 1
        if char == "]" and self._layout is Layout.ARRAY and (self._count or self.committed):
            if not self._count:
                self._markup.fail("the list holds no tool call")
            self.status = _Status.DONE
            return pos + 1
        return self._stop(pos)

    def _object(self, text: str, pos: int) -> int:
        obj = self._reader
        assert obj is not None
        pos = obj.feed(text, pos)
        if obj.committed:
            self.committed = True
        status = obj.status
        if status is _Status.ACTIVE:
            return pos
        if status is _Status.REJECTED:
            self.status = _Status.REJECTED
            return pos
        self._count += 1
        if status is _Status.DONE:
            obj.finish_call()
        elif status is _Status.INVALID:
            obj.fail(obj.error or "malformed tool call object")
            if self._resume and obj.intact:  # no call, but whole JSON: read past it, go on
                if not obj.closed:
                    self._skipper = JsonScanner(1_000_000)
                    self._skipper.feed("{")  # inside the object, at its own level
                    self._state = _S.REST
                    return pos
            else:
                self.status = _Status.DONE  # what follows the broken object is text
                self.broken = self._resume
                return pos
        self._state = _S.AFTER
        return pos

    def _rest(self, text: str, pos: int) -> int:
        skipper = self._skipper
        assert skipper is not None
        end = skipper.feed(text[pos:] if pos else text)
        if end < 0:
            return len(text)
        self._skipper = None
        self._state = _S.AFTER
        return pos + end

    def _after(self, text: str, pos: int) -> int:
        end = len(text)
        layout = self._layout
        if layout is Layout.ARRAY:
            while pos < end and text[pos] in _WHITESPACE:
                pos += 1
            if pos == end:
                return pos
            char = text[pos]
            if char == ",":
                self._state = _S.ELEMENT
                return pos + 1
            if char == "]":
                self.status = _Status.DONE
                return pos + 1
            return self._stop(pos, "expected ',' or ']' after the tool call object")
        # Objects joined by ";" and blanks (no line ends), or by blanks and line ends.
        start = pos
        blanks = _BLANK if layout is Layout.RUN else _WHITESPACE
        while pos < end and text[pos] in blanks:
            pos += 1
        if pos == end:
            if pos - start > _MAX_BLANK:
                self.status = _Status.DONE
            return start  # wait: another object may still come
        char = text[pos]
        if layout is Layout.RUN and char == ";":
            self._state = _S.ELEMENT
            return pos + 1
        if layout is Layout.LINES and char == "{":
            return self._element(text, pos)
        self.status = _Status.DONE
        return start

    def _stop(self, pos: int, error: str = "expected a tool call object") -> int:
        """Something that is not part of the run: prose if nothing committed yet."""
        self.status = _Status.DONE if self.committed else _Status.REJECTED
        if self.committed and (not self._count or self._resume):
            if self._count:
                # What came before is the last call's markup; what breaks the run fails with the
                # markup its format reads on to (the rest of its block), if it reads any.
                self._markup.next_call(pos)
                self.error = error
            else:
                self._markup.fail(error)
            self.broken = self._resume
        return pos

    # -- the detector's side ---------------------------------------------------------------

    def abandon(self) -> None:
        obj = self._reader
        if obj is not None and obj.call is not None and not obj.committed:
            self._calls.discard(obj.call)

    def finish(self, rest: str) -> str:
        """The text ended inside the run; returns what of ``rest`` is prose."""
        obj = self._reader
        self.status = _Status.DONE
        if self._state is _S.OBJECT and obj is not None and obj.status is _Status.ACTIVE and obj.committed:
            obj.fail("the tool call object was cut off (the text ended inside it)")
        return rest if self._state is _S.AFTER else ""


_S = fast(CallRun.State)
_Status = fast(Status)
