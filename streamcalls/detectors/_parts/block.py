"""A block of markup that ends at a closing delimiter: ``~~~``, ``</tool_call>``, a closing code fence.

The body is fed to a :class:`CallObjectParser` up to the delimiter; a
possible partial delimiter at the end of a chunk is left unconsumed (the
channel gives it back with the next text).  The call completes when the
delimiter arrives -- in that very ``feed`` -- or fails there, with the whole
block, delimiters included, as ``raw``, if the body was not one well-formed
call object.  A candidate block (```` ```json ````) whose object never
became a call is prose, delimiters and all.
"""

from __future__ import annotations

import re
from enum import IntEnum
from typing import ClassVar

from ..._calls import CallAssembler
from .._engine.detector import Detector
from .._engine.machine import Machine, Status, fast
from .._engine.markup import Markup
from .callobject import CallObjectParser

__all__ = ("BlockBody", "BlockDetector")

_WHITESPACE = " \t\r\n"


class BlockBody(Machine):
    """The body of one delimited block, and the call it holds."""

    class State(IntEnum):
        BODY = 0  # up to the closing delimiter

    __slots__ = (
        "_close",
        "_close_hold",
        "_error",
        "_json_ends",
        "_line_start",
        "_markup",
        "_seen",
        "object",
    )

    def __init__(
        self,
        calls: CallAssembler,
        markup: Markup,
        *,
        close: tuple[re.Pattern[str], re.Pattern[str]],
        close_hold: tuple[re.Pattern[str], re.Pattern[str]],
        committed: bool,
        tools: frozenset[str] | None,
        json_ends: bool = False,
    ) -> None:
        # Each pattern pair: [for text whose first character is mid-line, ... at a line start].
        self._close = close
        self._close_hold = close_hold
        self.object = CallObjectParser(calls, markup, committed=committed, tools=tools)
        self._markup = markup
        self._seen = False  # a character other than a blank in the body
        self._error = ""
        self._line_start = True  # blocks start after the opening line's end
        self._json_ends = json_ends  # a closed object is a call even when the closer never comes
        self._state = BlockBody.State.BODY
        self.status = _Status.ACTIVE

    @property
    def committed(self) -> bool:
        return self.object.committed

    def _body(self, text: str, pos: int) -> int:
        line_start = self._line_start if pos == 0 else text[pos - 1] == "\n"
        match = self._close[line_start].search(text, pos)
        if match is None:
            held = self._close_hold[line_start].search(text, max(pos, len(text) - 96))
            cut = held.start() if held is not None else len(text)
            rejected_at = self._feed_object(text, pos, cut)
            if rejected_at >= 0:
                return rejected_at
            if cut > pos:
                self._line_start = text[cut - 1] == "\n"
            return cut
        rejected_at = self._feed_object(text, pos, match.start())
        if rejected_at >= 0:
            return rejected_at
        if self.status is _Status.ACTIVE:
            if not self.object.committed:  # a candidate that never became a call: prose
                self.object.abandon()
                self.status = _Status.REJECTED
                return match.end()
            self._markup.after_arguments(match.start())  # arguments never closed end here
            self._close_block()
        return match.end()

    # One state, whose step reads all it can (to the closing delimiter, or to what must be
    # held): the loop would only call it again to see it wait.
    feed = _body

    def finish(self, rest: str) -> None:
        """The text ended inside the block.

        ``rest`` is what ``feed`` held back: a possible closing delimiter, which
        the end of the text completes (``~~~`` with no line end after it).
        """
        match = self._close[self._line_start].match(rest + "\n")
        if match is not None and match.end() == len(rest) + 1:
            if self.status is _Status.ACTIVE:
                self._markup.after_arguments(0)
                self._close_block()
            return
        if self._json_ends and self.status is _Status.ACTIVE and self.object.status is _Status.DONE:
            held = self._close_hold[self._line_start].search(rest)
            if not (rest[: held.start()] if held is not None else rest).strip(_WHITESPACE):
                self._close_block()  # its JSON closed: a call (blanks, or a closer cut short, its markup)
                return
        self._feed_object(rest, 0, len(rest))
        if self.status is _Status.ACTIVE:
            self.status = _Status.DONE
            self.object.fail("the block was never closed (the text ended inside it)")

    def _feed_object(self, text: str, start: int, stop: int) -> int:
        """Feed the body's next part; returns where the object was rejected, or -1."""
        if start >= stop or self.status is not _Status.ACTIVE:
            return -1
        if not self._seen and text[start:stop].strip(_WHITESPACE):
            self._seen = True
        obj = self.object
        status = obj.status
        if status is _Status.ACTIVE:
            # Fed with the text before ``start`` too, so that positions stay the markup's.
            start = obj.feed(text if stop == len(text) else text[:stop], start)
            status = obj.status
            if status is _Status.REJECTED:
                self.status = _Status.REJECTED
                return start  # prose resumes exactly where the candidate stopped being one
            if status is _Status.INVALID and not self._error:
                self._error = obj.error or "malformed tool call object"
        if status is _Status.DONE and not self._error and text[start:stop].strip(_WHITESPACE):
            self._error = "unexpected text after the tool call object"
        return -1

    def _close_block(self) -> None:
        self.status = _Status.DONE
        obj = self.object
        if obj.status is _Status.ACTIVE and not self._error:
            if not self._seen:
                self._error = "the block holds no tool call"
            else:
                self._error = "the tool call object is incomplete at the end of the block"
        if self._error:
            obj.fail(self._error)
        else:
            obj.finish_call()


class BlockDetector(Detector):
    """Explicit markup whose body is one call object, up to a closing delimiter.

    Subclasses set ``close`` and ``close_hold`` (each a pair of patterns: for
    text whose first character is mid-line, and at a line start) besides the
    detector's own triggers.
    """

    class State(IntEnum):
        BODY = 0

    close: ClassVar[tuple[re.Pattern[str], re.Pattern[str]]]
    close_hold: ClassVar[tuple[re.Pattern[str], re.Pattern[str]]]
    # When the text ends after the object closed but before the closing delimiter: a call
    # (the rule for JSON call blocks) or, for the project's own fences, a block never closed.
    json_ends: ClassVar[bool] = True

    __slots__ = ("_block",)

    def begin(self, trigger: str) -> None:
        self._block = BlockBody(
            self.calls,
            self.markup,
            close=self.close,
            close_hold=self.close_hold,
            committed=True,
            tools=self.tools,
            json_ends=self.json_ends,
        )
        self.start(BlockDetector.State.BODY)

    def _body(self, text: str, pos: int) -> int:
        block = self._block
        stop = block.feed(text, pos)
        if block.status is not _Status.ACTIVE:
            self.status = _Status.DONE
        return stop

    # One state, whose step reads all its block can (see BlockBody): fed directly, without the
    # loop, as on the hot path of a fenced call's arguments every chunk goes through it.
    feed = _body

    def finish(self, rest: str) -> str:
        self._block.finish(rest)
        self.status = _Status.DONE
        return ""


_Status = fast(Status)
