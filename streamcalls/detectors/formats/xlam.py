"""Salesforce xLAM-2 tool calls (``source="xlam"``): a JSON array of call objects, in four forms.

::

    [{"name": "get_weather", "arguments": {"city": "Dallas"}}]                  bare, at a line's start
    ```json
    [{"name": "get_weather", "arguments": {"city": "Dallas"}}]
    ```                                                                          in a code block
    [TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Dallas"}}]      after Mistral's marker
    <tool_call>[{"name": "get_weather", "arguments": {"city": "Dallas"}}]</tool_call>

- A bare array (at the start of the text, of a line, or right after ``</think>``) and a
  ```` ```json ```` block are candidates, as the ``json`` detector's are: text until the first
  object shows a call's name and arguments (``[1, 2]``, ``[{"id": 7}]`` stay text).  The block
  (a ``[`` or one object) takes precedence over the ``json`` detector's one-object block.
- ``[TOOL_CALLS]`` and ``<tool_call>`` are markup; ``<tool_call>`` followed by ``[`` is xLAM's
  beside Hermes, Qwen3-Coder and GLM (see :mod:`~streamcalls.detectors._engine.shared`).
- xLAM reasons between ``<think>`` tags before its calls (its family adds ``think``).
"""

from __future__ import annotations

from .._engine.detector import Hold, Tier, Trigger, prefixes
from .._parts.jsoncalls import Body, Commit, JsonCalls

__all__ = ("XlamDetector",)

_FENCE = "```json"


class XlamDetector(JsonCalls):
    name = "xlam"
    openers = (("[TOOL_CALLS]", ""), ("<tool_call>", "</tool_call>"), (_FENCE, "```"), ("[", ""))
    body = Body.EITHER
    commit = ((_FENCE, Commit.CALL), ("[", Commit.CALL))
    triggers = (
        Trigger.literal("[TOOL_CALLS]"),
        Trigger.literal("<tool_call>"),
        # The json detector's block and bare list, searched for once (the same patterns), the block
        # taken before that detector's (a lower tier), which reads one object only.
        Trigger("`", r"``json[ \t]{0,64}\r?\n", line_start=True, tier=Tier.SHAPED),
        Trigger("[", "", line_start=True, tier=Tier.RAW),
    )
    holds = (
        Hold.literal("[TOOL_CALLS]"),
        Hold.literal("<tool_call>"),
        Hold(prefixes(_FENCE) + r"(?:[ \t]{0,64}\r?)?", "`", line_start=True),
    )
    shares = "<tool_call>"  # with the other formats whose opener it is (see _engine.shared)
    claim = "["

    __slots__ = ()
