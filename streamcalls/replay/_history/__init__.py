"""What the replay server reads from a request's conversation history, as each provider would.

:func:`conversation_turn` checks a request's history -- OpenAI Chat's,
Cohere's and Ollama's ``messages``, Anthropic's and Bedrock's ``messages``
of content blocks, Responses' ``input`` items, Gemini's ``contents`` -- by
the rules that provider enforces, and raises :class:`Rejected` with the
provider's own wording for the first rule broken (one module per provider,
or per family of providers that share the rules).  Otherwise it returns
which turn of a recorded conversation the request asks for: 1, plus one
for each turn of the model's since the user's last prompt.
The rules that need the recording -- the turn a request answers must come
back with its reasoning state -- live beside each provider's history rules
and are called by :mod:`..._checks`: :func:`check_signatures` (Gemini's
thought signatures), ``_anthropic.anthropic_thinking`` and
``_bedrock.bedrock_thinking`` (Claude's thinking blocks, :mod:`._thinking`),
``_responses.responses_reasoning`` (a call's reasoning item) and
``_servers.chat_server_rules`` (what differs between the servers speaking
OpenAI Chat: id lengths and shapes, DeepSeek's and Kimi's
``reasoning_content``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...providers._rejected import Rejected
from ...providers.anthropic.history_rules import anthropic_turn
from ...providers.bedrock.history_rules import bedrock_turn
from ...providers.cohere.history_rules import cohere_turn
from ...providers.gemini.history_rules import gemini_turn
from ...providers.gemini.signature_rules import check_signatures
from ...providers.ollama.history_rules import ollama_turn
from ...providers.openai_chat.history_rules import openai_turn
from ...providers.openai_responses.history_rules import responses_turn

__all__ = ("RULES", "Rejected", "check_signatures", "conversation_turn")

RULES: dict[str, Callable[[Mapping[str, Any]], int]] = {
    "openai": openai_turn,
    "openai-responses": responses_turn,
    "anthropic": anthropic_turn,
    "ollama": ollama_turn,
    "gemini": gemini_turn,
    "bedrock": bedrock_turn,
    "cohere": cohere_turn,
}
"""Each provider's rules: the request (a decoded JSON object) -> the turn it asks for."""


def conversation_turn(provider: str, request: Mapping[str, Any]) -> int:
    """The turn a request's history asks for (1 for a new prompt).

    :raises Rejected: for a history ``provider`` would refuse.
    """
    return RULES[provider](request)
