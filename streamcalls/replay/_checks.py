"""Every check a POST goes through before it is answered, in the order the providers make them.

The rules are the providers' own, each in its package
(``providers/<name>/*_rules.py``), found through the provider registry
(:class:`~..providers._registry.Rules`); this module runs them, and gives
the rules that need the recording what they compare the request with:

1. :func:`check_fields`: the request's own fields (``Rules.request``) --
   Anthropic's ``max_tokens``, tool definitions, ``stream``, fields the
   provider does not have;
2. :func:`conversation_turn`: the history's shape and pairing
   (``Rules.history``), which also says the turn asked for;
3. :func:`check_recorded`: what needs the recording -- the rules of the
   server behind the Chat Completions route (``Rules.server``, by the model
   the recording names: :func:`._recorded.chat_dialect`), and the reasoning
   state the turn answered must come back with (``Rules.answered``:
   Anthropic's and Bedrock's thinking blocks (Claude's behind InvokeModel
   too), Responses' reasoning items, Gemini's thought signatures), read from the recording as the provider's
   client keeps it (:mod:`._recorded`).

A recording says that its model thinks by what it holds: the thinking
blocks, reasoning items, ``reasoningContent``, ``reasoning_content`` or
thought signatures its stream carries; the request says whether thinking is
on where the provider has a switch (Anthropic's and Bedrock's ``thinking``,
DeepSeek's and Kimi's ``thinking.type: "disabled"``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..providers import PROVIDERS
from ..providers._registry import Rules
from ..providers._rejected import Rejected
from ._recorded import (
    anthropic_blocks,
    bedrock_blocks,
    chat_dialect,
    chat_model,
    chat_reasons,
    invoke_claude_blocks,
    responses_items,
)
from ._recordings import Recording

__all__ = ("Rejected", "check_fields", "check_recorded", "conversation_turn", "dialect_of")

_ANSWERED: dict[str, Callable[[Recording], Any]] = {
    "anthropic": lambda answered: anthropic_blocks(answered.body),
    "bedrock": lambda answered: bedrock_blocks(answered.body),
    "openai-responses": lambda answered: responses_items(answered.body),
    "gemini": lambda answered: answered.calls(),
    "bedrock-invoke": lambda answered: invoke_claude_blocks(answered.body),
}
"""What a provider's ``Rules.answered`` compares the request with, read from the recorded turn."""


def _rules(provider: str) -> Rules:
    rules = PROVIDERS[provider].rules
    if rules is None:  # every provider with a route has its rules
        raise KeyError(f"provider {provider!r} has no request rules")
    return rules


def dialect_of(provider: str, recording: Recording | None) -> str:
    """The server a request to ``provider``'s route talks to: ``provider``, or the Chat server's dialect."""
    if provider != "openai":
        return provider
    return chat_dialect(chat_model(recording.body) if recording is not None else None)


def check_fields(provider: str, request: Mapping[str, Any], headers: Mapping[str, str], dialect: str) -> None:
    """Refuse (:class:`Rejected`) a request whose own fields the provider refuses.

    ``headers`` are the request's (lower-case names); ``dialect`` the server
    behind the Chat Completions route (see :func:`._recorded.chat_dialect`):
    only OpenAI's own fields are checked in OpenAI's words.
    """
    if provider == "openai" and dialect != "openai":
        return
    _rules(provider).request(request, headers)


def conversation_turn(provider: str, request: Mapping[str, Any]) -> int:
    """The turn a request's history asks for (1 for a new prompt).

    :raises Rejected: for a history ``provider`` would refuse.
    """
    return _rules(provider).history(request)


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
    rules = _rules(provider)
    if rules.server is not None:
        rules.server(request, dialect, chat_reasons(recording.body))
    if answered is None or rules.answered is None:
        return
    rules.answered(request, _ANSWERED[provider](answered))
