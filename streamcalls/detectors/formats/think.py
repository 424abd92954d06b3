"""Reasoning written in the text (``"think"``, ``"think_prompted"``): ``ReasoningDelta``, never searched for calls.

::

    <think>The user wants the weather.</think>          Qwen3, QwQ, the DeepSeek-R1 distills, ERNIE, MiniMax-M2
    <seed:think>...</seed:think>                         Seed-OSS
    <|START_THINKING|>...<|END_THINKING|>                Cohere Command R7B / Command A
    <|inner_prefix|>...<|inner_suffix|>                  Apertus

``think`` reads reasoning that opens with its tag at the start of the text or of a line.
``think_prompted`` is for models whose chat template writes the opening tag into the prompt,
so that the output starts inside the reasoning and only the closing tag appears (DeepSeek-R1
and its distills, QwQ, the Qwen3 ``Thinking-2507`` models): everything up to the first closing
tag is reasoning, and all of it when none comes, as the peers' reasoning parsers read them.
The machine is :mod:`~streamcalls.detectors._parts.reasoning`.
"""

from __future__ import annotations

from .._parts.reasoning import Reasoning

__all__ = ("ThinkDetector", "ThinkPromptedDetector")

TAGS = {
    "<think>": "</think>",
    "<seed:think>": "</seed:think>",
    "<|START_THINKING|>": "<|END_THINKING|>",
    "<|inner_prefix|>": "<|inner_suffix|>",
}


class ThinkDetector(Reasoning):
    name = "think"
    tags = TAGS

    __slots__ = ()


class ThinkPromptedDetector(Reasoning):
    name = "think_prompted"
    tags = TAGS
    opens_text = True  # the template opened the reasoning: the text starts inside it

    __slots__ = ()
