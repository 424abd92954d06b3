"""Provider names as types: the ``Literal`` every ``provider=`` parameter is annotated with.

The registry in :mod:`streamcalls.providers` is what the code looks names up
in at run time; these ``Literal`` types let ``mypy`` reject a misspelt name
(``StreamParser("opnai")``) before anything runs.  A test keeps both equal.
"""

from __future__ import annotations

from typing import Literal

__all__ = ("CodecProviderName", "OpenAIChatName", "ProviderName")

OpenAIChatName = Literal[
    "openai",
    "openai-chat",
    "openrouter",
    "groq",
    "vllm",
    "deepseek",
    "mistral",
    "together",
    "llama.cpp",
    "lmstudio",
]
"""OpenAI Chat Completions, and the servers that speak its wire format, by their own names."""

CodecProviderName = Literal[
    OpenAIChatName, "openai-responses", "anthropic", "ollama", "gemini", "bedrock", "cohere"
]
"""The names the codec writes requests for: every wire format, and every alias of OpenAI Chat's."""

ProviderName = Literal[CodecProviderName, "text", "auto"]
"""Every name :class:`~streamcalls.StreamParser` takes: a provider, an alias, ``"text"`` or ``"auto"``.

A name read at run time (a config file, a command line) is a plain ``str``:
``typing.cast(streamcalls.ProviderName, name)`` states that it is one (the
parser still raises :class:`~streamcalls.UsageError` for an unknown one).
"""
