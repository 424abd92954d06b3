"""InternLM2 / 2.5 and Intern-S1 tool calls (``source="internlm"``).

::

    <|action_start|><|plugin|>
    {"name": "get_weather", "parameters": {"city": "Tokyo"}}<|action_end|>

One call per block; the template's key is ``"parameters"`` (``"arguments"`` is read too).
``<|action_start|>`` is a call only where ``<|plugin|>`` follows it (after blanks, which some
decoders put between the two tokens); the code interpreter's ``<|action_start|><|interpreter|>``
stays text.  Intern-S1 reasons between ``<think>`` tags first (its family adds ``think``).
"""

from __future__ import annotations

from .._parts.jsoncalls import Body, JsonCalls

__all__ = ("InternLMDetector",)


class InternLMDetector(JsonCalls):
    name = "internlm"
    openers = (("<|action_start|>", "<|action_end|>"),)
    then = (("<|action_start|>", "<|plugin|>"),)
    body = Body.OBJECTS

    __slots__ = ()
