"""InvokeModel's history rules for Claude: Anthropic's (:mod:`..anthropic.history_rules`), as Bedrock relays them.

A Claude body's ``messages`` are Anthropic's Messages, checked by
Anthropic's rules -- the turns' pairing, the ``tool_use`` ids, and with
``thinking`` enabled the thinking blocks that come back first and
unchanged -- and refused in Anthropic's words behind "The model returned
the following errors: " as a 400 ``ValidationException``
(:func:`.request_rules.relayed`).  Another model family's body has no
history here: each request is a new turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._rejected import Rejected
from ..anthropic.history_rules import anthropic_thinking, anthropic_turn
from .request_rules import is_claude, relayed

__all__ = ("invoke_thinking", "invoke_turn")


def invoke_turn(request: Mapping[str, Any]) -> int:
    """The turn a Claude body's ``messages`` ask for (1 for another family's body); :class:`Rejected` if refused."""
    if not is_claude(request):
        return 1
    try:
        return anthropic_turn(request)
    except Rejected as problem:
        raise relayed(problem) from None


def invoke_thinking(request: Mapping[str, Any], recorded: Sequence[Mapping[str, Any]] | None) -> None:
    """Refuse a thinking-enabled Claude body that drops or changes the recorded turn's thinking blocks.

    ``recorded`` are the Messages content blocks of the turn the request
    answers, read from its ``chunk`` frames by the replay server.
    """
    if not is_claude(request):
        return
    try:
        anthropic_thinking(request, recorded)
    except Rejected as problem:
        raise relayed(problem) from None
