"""IBM Granite tool calls: Granite 3.x (``source="granite"``) and granite-20b-functioncalling
(``source="granite_fc"``).

::

    <|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]     Granite 3.0
    <tool_call>[{"name": "get_weather", "arguments": {"city": "Paris"}}]       Granite 3.1 to 3.3
    <function_call> {"name": "get_weather", "arguments": {"city": "Paris"}}    granite-20b-functioncalling

- Granite 3.x: a JSON array after the token, with no end token; each call completes when its
  object closes, and text after the array's ``]`` is text.  The string ``<tool_call>`` is a call
  only where ``[`` follows it (after blanks): it is shared with Hermes (``{``), Qwen3-Coder and
  GLM, and with all of them on, what follows it decides.  Granite 3.3 reasons between ``<think>``
  tags and answers inside ``<response>`` tags (its family adds ``think`` and ``answer``).
- granite-20b-functioncalling: each call after its own ``<function_call>``, one JSON object;
  a marker with no object after it fails alone (the text resumes right after it).
- Granite 4 writes Hermes blocks (``hermes``).
"""

from __future__ import annotations

from .._parts.jsoncalls import Body, Commit, JsonCalls

__all__ = ("GraniteDetector", "GraniteFunctionCallingDetector")


class GraniteDetector(JsonCalls):
    name = "granite"
    openers = (("<|tool_call|>", ""), ("<tool_call>", "</tool_call>"))
    body = Body.ARRAY
    commit = (("<tool_call>", Commit.BODY),)  # the string: a call once "[" follows it
    shares = "<tool_call>"  # with the other formats whose opener it is (see _engine.shared)
    claim = "["

    __slots__ = ()


class GraniteFunctionCallingDetector(JsonCalls):
    name = "granite_fc"
    openers = (("<function_call>", ""),)
    body = Body.OBJECTS

    __slots__ = ()
