"""Hermes / Qwen ``<tool_call>`` tags (``source="hermes"``).

::

    <tool_call>
    {"name": "get_weather", "arguments": {"city": "Oslo"}}
    </tool_call>

Repeatable, anywhere in the text.  The call completes at ``</tool_call>``;
a body that is not one well-formed call object fails with the raw body.  When
the text ends after the object closed but before ``</tool_call>``, it is a call
all the same (what was held of a closing tag goes with it); a tag whose object
never closed fails when the text ends.
"""

from __future__ import annotations

import re

from .._engine.detector import Hold, Trigger, prefixes
from .._parts.block import BlockDetector

__all__ = ("HermesDetector",)

_CLOSE = re.compile(re.escape("</tool_call>"))
_CLOSE_HOLD = re.compile(prefixes("</tool_call>") + r"\Z")


class HermesDetector(BlockDetector):
    name = "hermes"
    triggers = (Trigger.literal("<tool_call>"),)
    holds = (Hold.literal("<tool_call>"),)
    shares = "<tool_call>"  # with the other formats whose opener it is (see _engine.shared)
    claim = "{"
    fallback_rank = 2
    close = (_CLOSE, _CLOSE)  # anywhere, line start or not
    close_hold = (_CLOSE_HOLD, _CLOSE_HOLD)

    __slots__ = ()
