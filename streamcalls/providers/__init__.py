"""Provider adapters: one module per provider, and the registry of names.

Nothing outside a provider's module knows its wire shapes; the rest of the
package sees only :class:`~streamcalls._adapter.Adapter`.

May import: framing and the core's leaf modules (events, errors, limits, the
emitter, the call assembler, the adapter base).  Never the parser, a
detector, the codec or anything that does I/O.
"""

from __future__ import annotations

from typing import Any

from .._adapter import Adapter
from .._errors import UsageError
from .anthropic.reader import AnthropicAdapter
from .bedrock.reader import BedrockAdapter
from .bedrock_invoke.reader import BedrockInvokeAdapter
from .cohere.reader import CohereAdapter
from .gemini.reader import GeminiAdapter
from .ollama.reader import OllamaAdapter
from .openai_chat.reader import OpenAIChatAdapter
from .openai_responses.reader import OpenAIResponsesAdapter
from .text.reader import TextAdapter

__all__ = ("ADAPTERS", "ALIASES", "DETECTABLE", "PROVIDER_NAMES", "adapter_for", "looks_like", "recognize")

ADAPTERS: dict[str, type[Adapter]] = {
    cls.name: cls
    for cls in (
        OpenAIChatAdapter,
        # Before Anthropic: a Responses stream may open with an error event
        # shaped like Anthropic's, told apart by its sequence_number.
        OpenAIResponsesAdapter,
        AnthropicAdapter,
        OllamaAdapter,
        CohereAdapter,
        GeminiAdapter,
        BedrockAdapter,
        BedrockInvokeAdapter,
        TextAdapter,
    )
}

# Servers that speak another provider's wire format, by their own names.
ALIASES: dict[str, str] = {
    "openai-chat": "openai",
    "openrouter": "openai",
    "groq": "openai",
    "vllm": "openai",
    "deepseek": "openai",
    "mistral": "openai",
    "together": "openai",
    "llama.cpp": "openai",
    "lmstudio": "openai",
}

PROVIDER_NAMES: tuple[str, ...] = (*ADAPTERS, *ALIASES, "auto")

# Tried in this order on the first record when provider="auto"; text last.
DETECTABLE: tuple[type[Adapter], ...] = tuple(cls for cls in ADAPTERS.values() if cls is not TextAdapter)


def recognize(name: str | None, obj: Any) -> type[Adapter] | None:
    """The provider a decoded first event (and its SSE event name) comes from, if any tells."""
    for cls in DETECTABLE:
        if cls.recognizes(name, obj):
            return cls
    return None


def looks_like(name: str | None, obj: Any) -> tuple[str, str] | None:
    """The provider a decoded first record comes from, as (its ``provider=`` value, its title)."""
    cls = recognize(name, obj)
    return None if cls is None else (cls.name, cls.title)


def adapter_for(provider: str) -> type[Adapter]:
    """The adapter class for a provider name or alias (not "auto")."""
    name = ALIASES.get(provider, provider)
    try:
        return ADAPTERS[name]
    except KeyError:
        known = ", ".join(repr(n) for n in PROVIDER_NAMES)
        raise UsageError(f"unknown provider {provider!r}; expected one of {known}") from None
