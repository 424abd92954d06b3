"""DeepSeek-V3.2 and DeepSeek-V4 DSML tool calls (``source="dsml"``).

What DeepSeek-V3.2's encoding writes for a turn's calls (the bars are U+FF5C, the fullwidth
vertical line of DeepSeek's other special tokens)::

    <｜DSML｜function_calls>
    <｜DSML｜invoke name="get_weather">
    <｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>
    <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
    </｜DSML｜invoke>
    </｜DSML｜function_calls>

DeepSeek-V4 keeps the invoke and parameter tags, wraps the calls in ``<｜DSML｜tool_calls>``,
and often writes an ``<｜DSML｜invoke name=...>`` with no wrapper at all: each opens markup.

- ``string="true"``: the value is a string, kept verbatim; ``string="false"``: the value is JSON
  (``3``, ``true``, ``{"a": 1}``), and if it is none, it is typed by the tool's schema like any
  bare value; with no ``string`` attribute the schema types it (:mod:`~streamcalls.detectors._parts.values`).
- A call completes at its ``</｜DSML｜invoke>`` (or at the block's end when that is missing); a
  ``</｜DSML｜parameter>`` ends a value only where another parameter, the call's end or the
  block's follows it (after blanks).  The machine is the XML formats' (:mod:`~streamcalls.detectors._parts.callblock`).
"""

from __future__ import annotations

from .._parts.callblock import CallBlock
from .._parts.xmlparams import Closer

__all__ = ("DsmlDetector",)

_CALLS = "</｜DSML｜function_calls>"
_TOOL_CALLS = "</｜DSML｜tool_calls>"


class DsmlDetector(CallBlock):
    name = "dsml"
    openers = (
        ("<｜DSML｜function_calls>", _CALLS),  # V3.2
        ("<｜DSML｜tool_calls>", _TOOL_CALLS),  # V4
        ("<｜DSML｜invoke name=", ""),  # V4 without the wrapper: the call's own tag opens it
    )
    call_open = "<｜DSML｜invoke name="
    parameter_open = "<｜DSML｜parameter name="
    call_end = "</｜DSML｜invoke>"
    closer = Closer("</｜DSML｜parameter>", (parameter_open, call_end, _CALLS, _TOOL_CALLS))
    quoted_names = True
    string_attribute = True

    __slots__ = ()
