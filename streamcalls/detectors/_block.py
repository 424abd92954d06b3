"""A block of markup that ends at a closing delimiter: ``~~~``, ``</tool_call>``, a closing code fence.

The body is fed to a :class:`CallObjectParser` up to the delimiter; a
possible partial delimiter at the end of a chunk is left unconsumed (the
channel gives it back with the next text).  The call completes when the
delimiter arrives -- in that very ``feed`` -- or fails there with the raw
block if the body was not one well-formed call object.
"""

from __future__ import annotations

import re
from typing import ClassVar

from .._calls import CallAssembler
from ._base import ACTIVE, DONE, REJECTED, Detector
from ._callobject import DONE as OBJECT_DONE
from ._callobject import INVALID, PARSING, CallObjectParser
from ._callobject import REJECTED as OBJECT_REJECTED

__all__ = ("BlockBody", "BlockDetector")

_WHITESPACE = " \t\r\n"


class BlockBody:
    """The body of one delimited block, and the call it holds."""

    __slots__ = (
        "_close",
        "_close_hold",
        "_error",
        "_line_start",
        "_max_raw",
        "_raw",
        "_raw_size",
        "object",
        "status",
    )

    def __init__(
        self,
        calls: CallAssembler,
        source: str,
        *,
        close: tuple[re.Pattern[str], re.Pattern[str]],
        close_hold: tuple[re.Pattern[str], re.Pattern[str]],
        committed: bool,
        tools: frozenset[str] | None,
    ) -> None:
        # Each pattern pair: [for text whose first character is mid-line, ... at a line start].
        self._close = close
        self._close_hold = close_hold
        self.object = CallObjectParser(calls, source, committed=committed, tools=tools)
        self._raw: list[str] = []
        self._raw_size = 0
        self._max_raw = calls.limits.max_arguments_bytes
        self._error = ""
        self._line_start = True  # blocks start after the opening line's end
        self.status = ACTIVE

    @property
    def committed(self) -> bool:
        return self.object.committed

    def feed(self, text: str, pos: int) -> int:
        line_start = self._line_start if pos == 0 else text[pos - 1] == "\n"
        match = self._close[line_start].search(text, pos)
        if match is None:
            held = self._close_hold[line_start].search(text, max(pos, len(text) - 96))
            cut = held.start() if held is not None else len(text)
            rejected_at = self._body(text, pos, cut)
            if rejected_at >= 0:
                return rejected_at
            if cut > pos:
                self._line_start = text[cut - 1] == "\n"
            return cut
        rejected_at = self._body(text, pos, match.start())
        if rejected_at >= 0:
            return rejected_at
        if self.status == ACTIVE:
            self._close_block()
        return match.end()

    def finish(self, rest: str) -> None:
        """The text ended inside the block.

        ``rest`` is what ``feed`` held back: a possible closing delimiter, which
        the end of the text completes (``~~~`` with no line end after it).
        """
        match = self._close[self._line_start].match(rest + "\n")
        if match is not None and match.end() == len(rest) + 1:
            if self.status == ACTIVE:
                self._close_block()
            return
        self._body(rest, 0, len(rest))
        if self.status == ACTIVE:
            self.status = DONE
            self.object.fail_call("the block was never closed (the text ended inside it)", self._raw_text())

    def _body(self, text: str, start: int, stop: int) -> int:
        """Feed the body's next part; returns where the object was rejected, or -1."""
        if start >= stop or self.status != ACTIVE:
            return -1
        room = self._max_raw - self._raw_size
        if room > 0:  # keep exactly the first max_arguments_bytes of the block, however chunked
            self._raw.append(text[start : min(stop, start + room)])
        self._raw_size += stop - start
        obj = self.object
        if obj.status == PARSING:
            pos = obj.feed(text[start:stop], 0)
            start += pos
            if obj.status == OBJECT_REJECTED:
                self.status = REJECTED
                return start  # prose resumes exactly where the candidate stopped being one
            if obj.status == INVALID and not self._error:
                self._error = obj.error or "malformed tool call object"
        if obj.status == OBJECT_DONE and not self._error and text[start:stop].strip(_WHITESPACE):
            self._error = "unexpected text after the tool call object"
        return -1

    def _close_block(self) -> None:
        self.status = DONE
        obj = self.object
        if obj.status == PARSING and not self._error:
            if not "".join(self._raw).strip(_WHITESPACE):
                self._error = "the block holds no tool call"
            else:
                self._error = "the tool call object is incomplete at the end of the block"
        if self._error:
            obj.fail_call(self._error, self._raw_text())
        else:
            obj.finish_call()

    def _raw_text(self) -> str:
        raw = "".join(self._raw)
        if self._raw_size > self._max_raw:
            raw += f"... [cut at max_arguments_bytes={self._max_raw}]"
        return raw


class BlockDetector(Detector):
    """Explicit markup whose body is one call object, up to a closing delimiter.

    Subclasses set ``close`` and ``close_hold`` (each a pair of patterns: for
    text whose first character is mid-line, and at a line start) besides the
    detector's own triggers.
    """

    close: ClassVar[tuple[re.Pattern[str], re.Pattern[str]]]
    close_hold: ClassVar[tuple[re.Pattern[str], re.Pattern[str]]]

    __slots__ = ("_body",)

    def begin(self, trigger: str) -> None:
        self._body = BlockBody(
            self.calls,
            self.name,
            close=self.close,
            close_hold=self.close_hold,
            committed=True,
            tools=self.tools,
        )
        self.status = ACTIVE
        self.committed = True

    def feed(self, text: str, pos: int) -> int:
        stop = self._body.feed(text, pos)
        if self._body.status != ACTIVE:
            self.status = DONE
        return stop

    def finish(self, rest: str) -> str:
        self._body.finish(rest)
        self.status = DONE
        return ""
