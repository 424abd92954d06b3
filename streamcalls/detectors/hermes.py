"""Hermes / Qwen ``<tool_call>`` tags (``source="hermes"``).

::

    <tool_call>
    {"name": "get_weather", "arguments": {"city": "Oslo"}}
    </tool_call>

Repeatable, anywhere in the text.  The call completes at ``</tool_call>``;
a body that is not one well-formed call object fails with the raw body, and
a tag never closed fails when the text ends.
"""

from __future__ import annotations

import re

from ._base import ACTIVE, DONE, Detector, Hold, Trigger, prefixes
from ._block import BlockBody

__all__ = ("HermesDetector",)

_CLOSE = re.compile(re.escape("</tool_call>"))
_CLOSE_HOLD = re.compile(prefixes("</tool_call>") + r"\Z")


class HermesDetector(Detector):
    name = "hermes"
    triggers = (Trigger("<", re.escape("tool_call>")),)
    holds = (Hold(prefixes("<tool_call>"), "<"),)

    __slots__ = ("_body",)

    def begin(self, trigger: str) -> None:
        self._body = BlockBody(
            self.calls,
            self.name,
            close=(_CLOSE, _CLOSE),
            close_hold=(_CLOSE_HOLD, _CLOSE_HOLD),
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
