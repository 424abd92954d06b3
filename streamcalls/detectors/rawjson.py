"""Bare JSON tool calls in prose (``source="json"``).

Weak models often answer with a call object instead of using any protocol::

    {"name": "get_weather", "arguments": {"city": "Oslo"}}

It is detected when it starts at the beginning of the text or of a line, has
a string ``name`` and an ``arguments`` (or Llama's ``parameters``) object or
JSON string (or ``null``), and -- when the parser was given ``tools=[...]`` --
names one of them.  With ``tools=``, a call object without arguments
(``{"name": "get_time"}``) counts too, as a call with ``{}``; without it,
such an object is data.  Anything else is prose, given back unchanged: the
object is held only while it could still be a call (an unknown key or a
foreign name ends that at once).  Also detected: a JSON array of call objects (several calls), calls
separated by ``;``, and one call object in a ```` ```json ```` block.  Each
call completes at its object's closing brace.
"""

from __future__ import annotations

import re

from ._base import ACTIVE, DONE, RAW, REJECTED, Detector, Hold, Trigger, prefixes
from ._block import BlockBody
from ._sequence import CallSequence

__all__ = ("JsonDetector",)

_CODE_OPEN = r"```json[ \t]{0,64}\r?\n"  # as many blanks as the holds wait for
CODE_CLOSE = (
    re.compile(r"(?<=\n)```[ \t]{0,64}\r?\n"),
    re.compile(r"(?:\A|(?<=\n))```[ \t]{0,64}\r?\n"),
)
CODE_CLOSE_HOLD = (
    re.compile(r"(?<=\n)`(?:`(?:`[ \t]{0,64}\r?)?)?\Z"),
    re.compile(r"(?:\A|(?<=\n))`(?:`(?:`[ \t]{0,64}\r?)?)?\Z"),
)


class JsonDetector(Detector):
    name = "json"
    triggers = (
        Trigger("{", "", line_start=True, tier=RAW),
        Trigger("[", "", line_start=True, tier=RAW),
        Trigger("`", _CODE_OPEN[1:], line_start=True, tier=RAW),
    )
    holds = (Hold(prefixes("```json") + r"(?:[ \t]{0,64}\r?)?", "`", line_start=True),)

    __slots__ = ("_block", "_sequence")

    def begin(self, trigger: str) -> None:
        self.status = ACTIVE
        self.committed = False
        self._block: BlockBody | None = None
        self._sequence: CallSequence | None = None
        if trigger.startswith("```"):
            self._block = BlockBody(
                self.calls,
                self.markup,
                close=CODE_CLOSE,
                close_hold=CODE_CLOSE_HOLD,
                committed=False,
                tools=self.tools,
            )
        else:
            self._sequence = CallSequence(
                self.calls, self.markup, self.tools, committed=False, array=trigger == "["
            )

    def feed(self, text: str, pos: int) -> int:
        part = self._block or self._sequence
        assert part is not None
        stop = part.feed(text, pos)
        self.committed = part.committed
        if part.status == REJECTED:
            self.status = REJECTED
        elif part.status != ACTIVE:
            self.status = DONE
        return stop

    def finish(self, rest: str) -> str:
        self.status = DONE
        if self._block is not None:
            self._block.finish(rest)
            return ""
        assert self._sequence is not None
        return self._sequence.finish(rest)

    def abandon(self) -> None:
        if self._sequence is not None:
            self._sequence.abandon()
        elif self._block is not None:
            self._block.object.abandon()
