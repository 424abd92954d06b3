"""Provider names for the codec: the parser's names, and the servers that speak OpenAI's."""

from __future__ import annotations

from typing import Literal, overload

from .._errors import UsageError
from .._names import CodecProviderName, unknown_provider
from ..providers import ALIASES, PROVIDERS
from ..providers._registry import Encoding

__all__ = ("CODEC_PROVIDERS", "Canonical", "encoding_of", "resolve")

Canonical = Literal["openai", "openai-responses", "anthropic", "ollama", "gemini", "bedrock", "cohere"]
"""The codec's wire formats, by their canonical names (what :func:`resolve` returns)."""

# Each has its own request and response shapes; every alias of the parser
# ("openrouter", "groq", "vllm", ...) speaks OpenAI Chat's.
CODEC_PROVIDERS: tuple[CodecProviderName, ...] = (
    "openai",
    "openai-responses",
    "anthropic",
    "ollama",
    "gemini",
    "bedrock",
    "cohere",
)
"""The wire formats the codec writes and reads, by their canonical names.

An alias of the parser's (``"openrouter"``, ``"groq"``, ...) is accepted
wherever these are, as ``"openai"``.
"""


@overload
def resolve(provider: str) -> Canonical: ...
@overload
def resolve(provider: str, *, text: bool) -> str: ...
def resolve(provider: str, *, text: bool = False) -> str:
    """The canonical name for a provider name or alias.

    ``text=True`` also accepts ``"text"`` (a model's raw text, for :func:`extract`).

    :raises UsageError: for a name the codec does not know, suggesting the
        name meant where one is close (``'OpenAI'``: ``'openai'``;
        ``'claude'``: ``'anthropic'``).
    """
    if provider in CODEC_PROVIDERS or (text and provider == "text"):
        return provider
    name = ALIASES.get(provider) if isinstance(provider, str) else None
    if name is not None:
        return name
    known = [*CODEC_PROVIDERS, *ALIASES]
    if text:
        known.append("text")
    raise UsageError(unknown_provider(provider, known))


def encoding_of(provider: str) -> Encoding:
    """The request shapes of a codec provider name or alias, from the provider registry.

    :raises UsageError: as :func:`resolve` does.
    """
    encoding = PROVIDERS[resolve(provider)].encoding
    if encoding is None:  # every codec name has its shapes; a provider without them is not one
        raise UsageError(f"provider {provider!r} has no request shapes")
    return encoding
