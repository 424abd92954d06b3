"""``~~~tool_call`` fences: the project's own prompt protocol (``source="fence"``).

::

    ~~~tool_call
    {"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "optional"}
    ~~~

Both fence lines stand on their own lines (up to 64 trailing blanks); the
body is one call object.  ``~~~tool_call`` inside a sentence is text.  The
call completes at the closing fence line's end (or the end of the text);
a body that is not one well-formed call object fails with the raw block,
and a fence never closed fails when the text ends.
"""

from __future__ import annotations

import re

from .._engine.detector import Hold, Trigger, prefixes
from .._parts.block import BlockDetector

__all__ = ("FenceDetector",)

_CLOSE = r"~~~[ \t]{0,64}\r?\n"  # as many blanks as the hold waits for: the same for any chunking
_CLOSE_HOLD = r"~(?:~(?:~[ \t]{0,64}\r?)?)?"


def _line_patterns(source: str, anchor_end: bool) -> tuple[re.Pattern[str], re.Pattern[str]]:
    end = r"\Z" if anchor_end else ""
    return (
        re.compile(rf"(?<=\n)(?:{source}){end}"),
        re.compile(rf"(?:\A|(?<=\n))(?:{source}){end}"),
    )


CLOSE = _line_patterns(_CLOSE, False)
CLOSE_HOLD = _line_patterns(_CLOSE_HOLD, True)


class FenceDetector(BlockDetector):
    name = "fence"
    triggers = (Trigger("~", r"~~tool_call[ \t]{0,64}\r?\n", line_start=True),)
    holds = (Hold(prefixes("~~~tool_call") + r"(?:[ \t]{0,64}\r?)?", "~", line_start=True),)
    close = CLOSE
    close_hold = CLOSE_HOLD
    json_ends = False  # the closing fence line is the protocol's: without it the block fails

    __slots__ = ()
