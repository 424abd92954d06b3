"""Reasoning written in the text (``"think"``, ``"think_prompted"``): ``ReasoningDelta``, never searched for calls.

::

    <think>The user wants the weather.</think>          Qwen3, QwQ, the DeepSeek-R1 distills, ERNIE, MiniMax-M2,
                                                         MiniCPM 5, Olmo 3 Think, LFM2.5 Thinking, Step3
    <seed:think>...</seed:think>                         Seed-OSS
    <|START_THINKING|>...<|END_THINKING|>                Cohere Command R7B / Command A
    <mm:think>...</mm:think>                             MiniMax M3
    <|channel>thought\\n...<channel|>                     Gemma 4
    <|open|>think<|sep|>...<|close|>think<|sep|>         Kimi K3
    <|inner_prefix|>...<|inner_suffix|>                  Apertus

``think`` reads reasoning that opens with its tag at the start of the text or of a line.
``think_prompted`` is for models whose chat template writes the opening tag into the prompt,
so that the output starts inside the reasoning and only the closing tag appears (DeepSeek-R1
and its distills, QwQ, the Qwen3 ``Thinking-2507`` models, Step3, Kimi K3 with thinking on):
everything up to the first closing tag is reasoning, and all of it when none comes, as the
peers' reasoning parsers read them.  Kimi K3's think section also ends where its response or
tools section begins, when its closer is missing.
The machine is :mod:`~streamcalls.detectors._parts.reasoning`.
"""

from __future__ import annotations

from .._parts.reasoning import Reasoning

__all__ = ("ThinkDetector", "ThinkPromptedDetector")

TAGS = {
    "<think>": "</think>",
    "<seed:think>": "</seed:think>",
    "<|START_THINKING|>": "<|END_THINKING|>",
    "<mm:think>": "</mm:think>",
    "<|channel>thought\n": "<channel|>",
    "<|open|>think<|sep|>": "<|close|>think<|sep|>",
    "<|inner_prefix|>": "<|inner_suffix|>",
}
# Kimi K3's think section may lack its closer: its response or tools section ends it (as llama.cpp reads it).
BOUNDARIES = {"<|open|>think<|sep|>": ("<|open|>response<|sep|>", "<|open|>tools<|sep|>")}


class ThinkDetector(Reasoning):
    name = "think"
    tags = TAGS
    boundaries = BOUNDARIES

    __slots__ = ()


class ThinkPromptedDetector(Reasoning):
    name = "think_prompted"
    tags = TAGS
    boundaries = BOUNDARIES
    opens_text = True  # the template opened the reasoning: the text starts inside it

    __slots__ = ()
