"""Provider names as types, and the name a misspelt one was meant to be.

The registry in :mod:`streamcalls.providers` is what the code looks names up
in at run time; these ``Literal`` types let ``mypy`` reject a misspelt name
(``StreamParser("opnai")``) before anything runs.  A test keeps both equal.
A name read at run time is checked against them, and an unknown one gets a
message naming the provider it most likely meant (:func:`unknown_provider`):
``'OpenAI'`` is ``openai``, ``'claude'`` is ``anthropic``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Literal

from .providers import NICKNAMES, PROVIDER_NAMES

__all__ = (
    "PROVIDER_NICKNAMES",
    "CodecProviderName",
    "OpenAIChatName",
    "ProviderName",
    "maybe_meant_provider",
    "unknown_provider",
)

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

ProviderName = Literal[CodecProviderName, "bedrock-invoke", "text", "auto"]
"""Every name :class:`~streamcalls.StreamParser` takes: a provider, an alias, ``"text"`` or ``"auto"``.

A name read at run time (a config file, a command line) is a plain ``str``:
``typing.cast(streamcalls.ProviderName, name)`` states that it is one (the
parser still raises :class:`~streamcalls.UsageError` for an unknown one).
"""

PROVIDER_NICKNAMES: dict[str, str] = NICKNAMES
"""What people call a provider (its company, its product, its model family), by the name it has here.

Each provider's entry in the registry declares its own (``Provider.nicknames``).
"""


def maybe_meant_provider(name: object, known: Iterable[str] = PROVIDER_NAMES) -> str | None:
    """The name in ``known`` that ``name`` most likely meant, or None if none is close.

    The same name in other case or with ``_`` or spaces for ``-`` (``'OpenAI'``,
    ``'openai_responses'``), a nickname (``'claude'``, ``'google'``), then the closest
    spelling (``'opnai'``).
    """
    if not isinstance(name, str):
        return None
    known = tuple(known)
    key = "-".join(name.strip().lower().replace("_", " ").split())
    nickname = PROVIDER_NICKNAMES.get(key)
    for candidate in (key, nickname):
        if candidate in known:
            return candidate
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.7)
    return close[0] if close else None


def unknown_provider(name: object, known: Iterable[str] = PROVIDER_NAMES) -> str:
    """The message for a provider name not in ``known``: the name meant, if one is close, then the names."""
    known = tuple(known)
    meant = maybe_meant_provider(name, known)
    hint = "" if meant is None else f" (did you mean {meant!r}?)"
    return f"unknown provider {name!r:.100}{hint}; expected one of {', '.join(map(repr, known))}"
