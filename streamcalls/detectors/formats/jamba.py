"""AI21 Jamba's tool calls (``source="jamba"``), which Hunyuan-A13B writes too.

What the chat template renders for a turn's calls (the model writes the same)::

    <tool_calls>[
        {"name": "get_weather", "arguments": {"city": "Dallas"}},
        {"name": "get_time", "arguments": {}}
    ]</tool_calls>

One JSON array of ``{"name", "arguments"}`` objects between the tags; each call completes when
its object closes (:mod:`~streamcalls.detectors._parts.jsoncalls`).  Hunyuan-A13B writes the
block inside its ``<answer>`` tags, after ``<think>`` reasoning (its family adds ``think`` and
``answer``).
"""

from __future__ import annotations

from .._parts.jsoncalls import Body, JsonCalls

__all__ = ("JambaDetector",)


class JambaDetector(JsonCalls):
    name = "jamba"
    openers = (("<tool_calls>", "</tool_calls>"),)
    body = Body.ARRAY

    __slots__ = ()
