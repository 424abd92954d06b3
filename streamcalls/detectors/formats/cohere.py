"""Cohere Command R7B and Command A tool calls, served as text (``source="cohere_command"``).

What the chat template renders (the open weights, ``c4ai-command-r7b-12-2024`` and kin)::

    <|START_THINKING|>I will look up Paris.<|END_THINKING|><|START_ACTION|>
    [
        {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}
    ]
    <|END_ACTION|>

- The model's ``tool_call_id`` is the call's id (made unique within the stream); ``tool_name``
  the name, ``parameters`` the arguments.
- ``<|START_RESPONSE|>`` ... ``<|END_RESPONSE|>`` (Command A also ``<|START_TEXT|>`` ...
  ``<|END_TEXT|>``) frame a text answer: the tags are dropped, the answer is text.  Citations
  (``<co>...</co: 0:[1]>``) are kept as written.
- The plan between ``<|START_THINKING|>`` and ``<|END_THINKING|>`` is reasoning (``think``,
  which the family adds).
"""

from __future__ import annotations

from .._parts.callkeys import CallKeys
from .._parts.jsoncalls import JsonCalls

__all__ = ("CohereCommandDetector",)


class CohereCommandDetector(JsonCalls):
    name = "cohere_command"
    openers = (("<|START_ACTION|>", "<|END_ACTION|>"),)
    keys = CallKeys.of(name=("tool_name",), arguments=("parameters",), id=("tool_call_id",))
    framing = ("<|START_RESPONSE|>", "<|END_RESPONSE|>", "<|START_TEXT|>", "<|END_TEXT|>")

    __slots__ = ()
