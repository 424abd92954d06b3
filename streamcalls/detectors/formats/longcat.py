"""Meituan LongCat-Flash-Chat tool calls (``source="longcat"``).

::

    <longcat_tool_call>
    {"name": "get_weather", "arguments": {"city": "Tokyo"}}
    </longcat_tool_call>

One call per block; blocks may touch.  The blanks inside the block are markup; what lies between
two blocks is text.
"""

from __future__ import annotations

from .._parts.jsoncalls import Body, JsonCalls

__all__ = ("LongCatDetector",)


class LongCatDetector(JsonCalls):
    name = "longcat"
    openers = (("<longcat_tool_call>", "</longcat_tool_call>"),)
    body = Body.OBJECTS

    __slots__ = ()
