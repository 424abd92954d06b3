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
from enum import IntEnum

from .._engine.detector import Detector, Hold, Tier, Trigger, prefixes
from .._engine.machine import Status, fast
from .._parts.block import BlockBody
from .._parts.callrun import CallRun, Layout

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
    class State(IntEnum):
        BLOCK = 0  # a ```json block
        RUN = 1  # a bare object, an array of them, or a ;-run

    name = "json"
    triggers = (
        Trigger("{", "", line_start=True, tier=Tier.RAW),
        Trigger("[", "", line_start=True, tier=Tier.RAW),
        Trigger("`", _CODE_OPEN[1:], line_start=True, tier=Tier.RAW),
    )
    holds = (Hold(prefixes("```json") + r"(?:[ \t]{0,64}\r?)?", "`", line_start=True),)

    __slots__ = ("_part",)

    def begin(self, trigger: str) -> None:
        self._part: BlockBody | CallRun
        if trigger.startswith("```"):
            self._part = BlockBody(
                self.calls,
                self.markup,
                close=CODE_CLOSE,
                close_hold=CODE_CLOSE_HOLD,
                committed=False,
                tools=self.tools,
            )
            self.start(_S.BLOCK, committed=False)
        else:
            layout = Layout.ARRAY if trigger == "[" else Layout.RUN
            self._part = CallRun(self.calls, self.markup, self.tools, committed=False, layout=layout)
            self.start(_S.RUN, committed=False)

    def _block(self, text: str, pos: int) -> int:
        part = self._part
        stop = part.feed(text, pos)
        self.committed = part.committed
        if part.status is _Status.REJECTED:
            self.status = _Status.REJECTED
        elif part.status is not _Status.ACTIVE:
            self.status = _Status.DONE
        return stop

    _run = _block

    def finish(self, rest: str) -> str:
        self.status = _Status.DONE
        part = self._part
        if isinstance(part, BlockBody):
            part.finish(rest)
            return ""
        return part.finish(rest)

    def abandon(self) -> None:
        part = self._part
        if isinstance(part, CallRun):
            part.abandon()
        else:
            part.object.abandon()


_S = fast(JsonDetector.State)
_Status = fast(Status)
