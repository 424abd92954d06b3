"""What the replay server checks of a request besides its history, as each provider does.

:func:`check_request` checks the fields a client commonly gets wrong --
Anthropic's required ``max_tokens``, tool definitions written for another
provider, a ``stream`` that is not a boolean, fields the provider does not
have -- by each provider's rules, in its words (one module per provider),
and raises :class:`~.._history.Rejected` for the first rule broken.  The
history (``messages``, ``contents``, ``input``) is :mod:`.._history`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...providers.anthropic.request_rules import anthropic_request
from ...providers.bedrock.request_rules import bedrock_request
from ...providers.cohere.request_rules import cohere_request
from ...providers.gemini.request_rules import gemini_request
from ...providers.ollama.request_rules import ollama_request
from ...providers.openai_chat.request_rules import chat_request
from ...providers.openai_responses.request_rules import responses_request

__all__ = ("check_request",)

Check = Callable[[Mapping[str, Any], Mapping[str, str]], None]

_CHECKS: dict[str, Check] = {
    "openai": chat_request,
    "openai-responses": responses_request,
    "anthropic": anthropic_request,
    "ollama": ollama_request,
    "gemini": gemini_request,
    "bedrock": bedrock_request,
    "cohere": cohere_request,
}


def check_request(
    provider: str, request: Mapping[str, Any], headers: Mapping[str, str], dialect: str = "openai"
) -> None:
    """Refuse (:class:`~.._history.Rejected`) a request ``provider`` would refuse for its fields.

    ``headers`` are the request's (lower-case names); ``dialect`` the server
    behind the Chat Completions route (see :func:`.._recorded.chat_dialect`):
    only OpenAI's own fields are checked in OpenAI's words.
    """
    if provider == "openai" and dialect != "openai":
        return
    _CHECKS[provider](request, headers)
