"""Every check a POST goes through before it is answered, in the order the providers make them.

1. :func:`check_fields`: the request's own fields (:mod:`._request`) --
   Anthropic's ``max_tokens``, tool definitions, ``stream``, fields the
   provider does not have;
2. the history's shape and pairing (:func:`._history.conversation_turn`,
   called by the app, which also learns from it the turn asked for);
3. :func:`check_recorded`: what needs the recording -- the rules of the
   server behind the Chat Completions route (by the model the recording
   names: :func:`._recorded.chat_dialect`), and the reasoning state the turn
   answered must come back with (Anthropic's and Bedrock's thinking blocks,
   Responses' reasoning items, Gemini's thought signatures, DeepSeek's and
   Kimi's ``reasoning_content``).

A recording says that its model thinks by what it holds: the thinking
blocks, reasoning items, ``reasoningContent``, ``reasoning_content`` or
thought signatures its stream carries; the request says whether thinking is
on where the provider has a switch (Anthropic's and Bedrock's ``thinking``,
DeepSeek's and Kimi's ``thinking.type: "disabled"``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..providers.anthropic.history_rules import anthropic_thinking
from ..providers.bedrock.history_rules import bedrock_thinking
from ..providers.openai_chat.server_rules import chat_server_rules
from ..providers.openai_responses.history_rules import responses_reasoning
from ._history import Rejected, check_signatures
from ._recorded import (
    anthropic_blocks,
    bedrock_blocks,
    chat_dialect,
    chat_model,
    chat_reasons,
    responses_items,
)
from ._recordings import Recording
from ._request import check_request

__all__ = ("Rejected", "check_fields", "check_recorded", "dialect_of")


def dialect_of(provider: str, recording: Recording | None) -> str:
    """The server a request to ``provider``'s route talks to: ``provider``, or the Chat server's dialect."""
    if provider != "openai":
        return provider
    return chat_dialect(chat_model(recording.body) if recording is not None else None)


def check_fields(provider: str, request: Mapping[str, Any], headers: Mapping[str, str], dialect: str) -> None:
    """Refuse (:class:`Rejected`) a request whose own fields the provider refuses."""
    check_request(provider, request, headers, dialect)


def check_recorded(
    provider: str,
    request: Mapping[str, Any],
    recording: Recording,
    answered: Recording | None,
    dialect: str,
) -> None:
    """Refuse (:class:`Rejected`) a request that breaks the rules needing the recording.

    ``recording`` is the conversation's first turn; ``answered`` the
    recorded turn whose calls the request sends back (None for a first turn).
    """
    if provider == "openai":
        chat_server_rules(request, dialect, chat_reasons(recording.body))
    if answered is None:
        return
    if provider == "anthropic":
        anthropic_thinking(request, anthropic_blocks(answered.body))
    elif provider == "bedrock":
        bedrock_thinking(request, bedrock_blocks(answered.body))
    elif provider == "openai-responses":
        responses_reasoning(request, responses_items(answered.body))
    elif provider == "gemini":
        check_signatures(request, answered.calls())
