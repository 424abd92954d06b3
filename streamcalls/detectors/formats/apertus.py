"""Swiss AI Apertus tool calls (``source="apertus"``).

::

    <|tools_prefix|>[{"get_weather": {"city": "Paris"}}, {"get_time": {}}]<|tools_suffix|>

Each item is an object whose one key is the tool's name and whose value the arguments.  An item
with a second key fails (the call its first key began) and the next item stands.  Apertus
reasons between ``<|inner_prefix|>`` and ``<|inner_suffix|>`` (``think`` reads them).
"""

from __future__ import annotations

from .._parts.callkeys import CallKeys
from .._parts.jsoncalls import Body, JsonCalls

__all__ = ("ApertusDetector",)


class ApertusDetector(JsonCalls):
    name = "apertus"
    openers = (("<|tools_prefix|>", "<|tools_suffix|>"),)
    body = Body.ARRAY
    keys = CallKeys(name_keyed=True)

    __slots__ = ()
