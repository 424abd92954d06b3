"""Provider names for the codec: the parser's names, and the servers that speak OpenAI's."""

from __future__ import annotations

import difflib
import re
from typing import Literal, overload

from .._errors import UsageError
from .._names import CodecProviderName
from ..providers import ALIASES

__all__ = ("CODEC_PROVIDERS", "Canonical", "resolve", "suggestion")

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

# What people call a provider when they do not use its name here: a model family, the company, the API.
_CALLED: dict[str, str] = {
    "claude": "anthropic",
    "gpt": "openai",
    "chatgpt": "openai",
    "azure": "openai",
    "azureopenai": "openai",
    "chat": "openai",
    "chatcompletions": "openai",
    "responses": "openai-responses",
    "openairesponse": "openai-responses",
    "google": "gemini",
    "vertex": "gemini",
    "vertexai": "gemini",
    "googleai": "gemini",
    "aws": "bedrock",
    "awsbedrock": "bedrock",
    "converse": "bedrock",
}


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
    meant = suggestion(provider, known)
    hint = f" (did you mean {meant!r}?)" if meant is not None else ""
    raise UsageError(f"unknown provider {provider!r}{hint}; expected one of {', '.join(map(repr, known))}")


def suggestion(name: object, known: list[str]) -> str | None:
    """The known name a mistyped one most likely meant, or ``None``.

    The same name in other case or with other separators (``'OpenAI'``,
    ``'openai_responses'``), what a provider is also called (``'claude'``,
    ``'google'``, ``'aws'``), then the closest spelling (``'opnai'``).
    """
    if not isinstance(name, str) or not name:
        return None
    squashed = _squash(name)
    by_squashed = {_squash(candidate): candidate for candidate in known}
    if squashed in by_squashed:
        return by_squashed[squashed]
    called = _CALLED.get(squashed)
    if called is not None and called in known:
        return called
    close = difflib.get_close_matches(squashed, list(by_squashed), n=1, cutoff=0.75)
    return by_squashed[close[0]] if close else None


def _squash(name: str) -> str:
    """A name without case or separators: ``'OpenAI-Responses'`` is ``'openairesponses'``."""
    return re.sub(r"[\s._\-/]+", "", name.lower())
