"""NVIDIA Nemotron Nano v2 tool calls (``source="nemotron"``).

What the chat template renders (the model writes the same)::

    <TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</TOOLCALL>

With thinking on, the generation prompt opens ``<think>``, so the output starts inside the
reasoning and only ``</think>`` appears (``detect=("think_prompted", "nemotron")``); the family
adds ``think`` for reasoning the model opens itself.  Nemotron 3 Nano writes Qwen3-Coder's XML.
"""

from __future__ import annotations

from .._parts.jsoncalls import Body, JsonCalls

__all__ = ("NemotronDetector",)


class NemotronDetector(JsonCalls):
    name = "nemotron"
    openers = (("<TOOLCALL>", "</TOOLCALL>"),)
    body = Body.ARRAY

    __slots__ = ()
