"""The providers: one package per provider, and the registry of them.

Each ``providers/<name>/`` package holds everything one provider's wire
knows -- its stream reader (view Structs and the adapter), its
complete-response reader, its request and history encoding, its error
responses and the rules its API enforces on a request -- and declares its
:class:`~._registry.Provider` entry.  The rest of the package looks a
provider's pieces up here (:data:`PROVIDERS`, :func:`provider_for`), and
sees its stream reader only as an :class:`~streamcalls._adapter.Adapter`.
What several providers share is beside the packages: ``_registry`` (the
entry's shape), ``_bodies`` (the complete readers' helpers), ``_encoding``
(the request encodings'), ``_refusals`` (the error responses'),
``_rejected`` and ``_thinking_rules`` (the request rules').

May import: framing, the writer's parts (``writing/``) and the core's leaf
modules (events, errors, limits, the emitter, the call assembler, the
adapter base, the turn); ``tests/project/test_layering.py``'s ``ROLES`` says which
of them each kind of module takes.  Never the parser,
a detector, the codec, the replay server or anything that does I/O.
"""

from __future__ import annotations

from typing import Any

from .._adapter import Adapter
from .._errors import UsageError
from . import (
    anthropic,
    bedrock,
    bedrock_invoke,
    cohere,
    gemini,
    ollama,
    openai_chat,
    openai_responses,
    text,
)
from ._registry import Provider

__all__ = (
    "ADAPTERS",
    "ALIASES",
    "DETECTABLE",
    "NICKNAMES",
    "PROVIDERS",
    "PROVIDER_NAMES",
    "Provider",
    "adapter_for",
    "looks_like",
    "provider_for",
    "recognize",
)

PROVIDERS: dict[str, Provider] = {
    package.PROVIDER.name: package.PROVIDER
    for package in (
        openai_chat,
        # Before Anthropic: a Responses stream may open with an error event
        # shaped like Anthropic's, told apart by its sequence_number.
        openai_responses,
        anthropic,
        ollama,
        cohere,
        gemini,
        bedrock,
        bedrock_invoke,
        text,
    )
}
"""Every provider, by its ``provider=`` name, in the order ``"auto"`` tries them."""

ADAPTERS: dict[str, type[Adapter]] = {name: entry.adapter for name, entry in PROVIDERS.items()}

# Servers that speak another provider's wire format, by their own names.
ALIASES: dict[str, str] = {alias: name for name, entry in PROVIDERS.items() for alias in entry.aliases}

NICKNAMES: dict[str, str] = {
    nickname: meant for entry in PROVIDERS.values() for nickname, meant in entry.nicknames.items()
}
"""What people call a provider (its company, its product, its model family), by the name it has here."""

PROVIDER_NAMES: tuple[str, ...] = (*ADAPTERS, *ALIASES, "auto")

# Tried in this order on the first record when provider="auto"; text last.
DETECTABLE: tuple[type[Adapter], ...] = tuple(cls for name, cls in ADAPTERS.items() if name != "text")


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


def provider_for(provider: str) -> Provider:
    """The registry's entry for a provider name or alias (not "auto")."""
    name = ALIASES.get(provider, provider)
    try:
        return PROVIDERS[name]
    except KeyError:
        known = ", ".join(repr(n) for n in PROVIDER_NAMES)
        raise UsageError(f"unknown provider {provider!r}; expected one of {known}") from None


def adapter_for(provider: str) -> type[Adapter]:
    """The adapter class for a provider name or alias (not "auto")."""
    return provider_for(provider).adapter
