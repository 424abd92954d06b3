"""MiniMax-M2 tool calls (``source="minimax"``).

One block holds every call of a turn::

    <minimax:tool_call>
    <invoke name="get_weather">
    <parameter name="city">Paris</parameter>
    <parameter name="days">3</parameter>
    </invoke>
    <invoke name="get_time">
    </invoke>
    </minimax:tool_call>

- Names and keys may be in double or single quotes, or none (MiniMax's own parser reads all
  three).  A value sits right between its tags and is kept verbatim, then typed by the
  tools' schemas (:mod:`~streamcalls.detectors._parts.values`); ``</parameter>`` ends it only where ``<parameter name=``,
  ``</invoke>`` or ``</minimax:tool_call>`` follows (after blanks).
- Each call completes at its ``</invoke>`` (or at ``</minimax:tool_call>`` when ``</invoke>``
  is missing).  What joins it to the next ``<invoke`` and the block's closing tag are its
  markup; anything else after a completed call is text again.
- Malformed markup inside an ``<invoke>`` fails that call, up to its ``</invoke>``; the
  block's other calls stand.
"""

from __future__ import annotations

from .._parts.callblock import CallBlock
from .._parts.xmlparams import Closer

__all__ = ("MinimaxDetector",)

OPENER = "<minimax:tool_call>"


class MinimaxDetector(CallBlock):
    name = "minimax"
    openers = ((OPENER, "</minimax:tool_call>"),)
    call_open = "<invoke name="
    parameter_open = "<parameter name="
    call_end = "</invoke>"
    closer = Closer("</parameter>", (parameter_open, call_end, "</minimax:tool_call>"))
    quoted_names = True

    __slots__ = ()
