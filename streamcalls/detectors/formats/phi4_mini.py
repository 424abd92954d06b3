"""Phi-4-mini's tool calls, which Firefunction v2 writes too (``source="phi4_mini"``).

What the chat template asks for (and the model writes)::

    functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]

``functools[`` is a call list only where the array's first element, after blanks, opens an
object: ``functools[0]`` and ``functools.lru_cache`` in Python prose stay text.  There is no
end token; each call completes when its object closes, and the text resumes after ``]``.
"""

from __future__ import annotations

from .._engine.detector import Hold, Trigger
from .._parts.jsoncalls import Body, Commit, JsonCalls

__all__ = ("Phi4MiniDetector",)

_OPENER = "functools["


class Phi4MiniDetector(JsonCalls):
    name = "phi4_mini"
    openers = ((_OPENER, ""),)
    body = Body.ARRAY
    commit = ((_OPENER, Commit.BODY),)  # a call list once its first element opens an object
    # Found by its "[", which other formats' scans look for anyway: a word's first letter would
    # cost a pass over all the text (prose is full of "f").
    triggers = (Trigger.literal(_OPENER, lead=len(_OPENER) - 1),)
    holds = (Hold.literal(_OPENER),)

    __slots__ = ()
