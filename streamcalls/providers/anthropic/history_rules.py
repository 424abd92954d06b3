"""Anthropic Messages' history rules, in the API's own words.

``messages`` alternate ``user`` and ``assistant``; ``content`` is a string
or a list of blocks; every ``tool_use`` block of an assistant message is
answered by a ``tool_result`` block (its ``tool_use_id``) in the very next
message, and a ``tool_result`` answers only a ``tool_use`` of the message
right before it; a ``tool_use`` id matches ``^[a-zA-Z0-9_-]+$`` (the API's
pattern, as its 400 quotes it: RooCodeInc/Roo-Code#10649).  The messages
name the failing item by its pydantic-style path (``messages.2.content.0``),
as the API's 400 bodies do.

:func:`anthropic_thinking` is the rule that needs the recording: with
``thinking`` enabled, the thinking blocks come back first and unchanged
(:mod:`.._thinking_rules`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .._rejected import Rejected
from .._thinking_rules import Message, Shown, check_thinking

__all__ = ("anthropic_thinking", "anthropic_turn", "thinking_enabled")

_TOOL_USE_ID = re.compile(r"[a-zA-Z0-9_-]+")


def anthropic_turn(request: Mapping[str, Any]) -> int:
    """The turn an Anthropic request's ``messages`` ask for; :class:`Rejected` if Anthropic would refuse them."""
    messages = request.get("messages")
    if messages is None:
        raise Rejected("messages: Field required")
    if not isinstance(messages, list):
        raise Rejected("messages: Input should be a valid list")
    uses: list[str] = []  # the tool_use ids of the message before
    turn = 1
    for index, message in enumerate(messages):
        path = f"messages.{index}"
        if not isinstance(message, dict):
            raise Rejected(f"{path}: Input should be a valid dictionary")
        role = message.get("role")
        if role not in ("user", "assistant"):
            raise Rejected(f"{path}.role: Input should be 'user' or 'assistant'")
        blocks = _blocks(message, path)
        answered = []
        for number, block in enumerate(blocks):
            if block.get("type") != "tool_result":
                continue
            if role != "user" or block.get("tool_use_id") not in uses:
                raise Rejected(
                    f"{path}.content.{number}: unexpected `tool_use_id` found in `tool_result` blocks: "
                    f"{block.get('tool_use_id')}. Each `tool_result` block must have a corresponding "
                    "`tool_use` block in the previous message."
                )
            answered.append(block["tool_use_id"])
        _unanswered([u for u in uses if u not in answered], index - 1)
        uses = []
        if role == "user":
            turn = turn if answered else 1
        else:
            turn += 1
            uses = _uses(blocks, path)
    _unanswered(uses, len(messages) - 1)
    return turn


def _blocks(message: dict[str, Any], path: str) -> list[dict[str, Any]]:
    content = message.get("content")
    if content is None:
        raise Rejected(f"{path}.content: Field required")
    if isinstance(content, str):
        return []
    if not isinstance(content, list):
        raise Rejected(f"{path}.content: Input should be a valid list")
    for number, block in enumerate(content):
        if not isinstance(block, dict):
            raise Rejected(f"{path}.content.{number}: Input should be a valid dictionary")
    return content


def _uses(blocks: list[dict[str, Any]], path: str) -> list[str]:
    uses = []
    for number, block in enumerate(blocks):
        if block.get("type") != "tool_use":
            continue
        where = f"{path}.content.{number}.tool_use"
        for field, kind, name in (
            ("id", str, "string"),
            ("name", str, "string"),
            ("input", dict, "dictionary"),
        ):
            if field not in block:
                raise Rejected(f"{where}.{field}: Field required")
            if not isinstance(block[field], kind):
                raise Rejected(f"{where}.{field}: Input should be a valid {name}")
        if not _TOOL_USE_ID.fullmatch(block["id"]):
            raise Rejected(f"{where}.id: String should match pattern '^[a-zA-Z0-9_-]+$'")
        uses.append(block["id"])
    return uses


def thinking_enabled(request: Mapping[str, Any]) -> bool:
    """Whether a request turns Claude's thinking on (``thinking.type`` ``enabled`` or ``adaptive``)."""
    thinking = request.get("thinking")
    return isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")


def anthropic_thinking(request: Mapping[str, Any], recorded: Sequence[Mapping[str, Any]] | None) -> None:
    """Refuse (:class:`Rejected`) a thinking-enabled request that drops or changes its thinking blocks.

    ``recorded`` are the content blocks of the turn the request answers, as
    the model sent them (:func:`streamcalls.replay._recorded.anthropic_blocks`).  The history
    rules have checked the messages' shapes before.
    """
    if not thinking_enabled(request):
        return
    messages = [
        Message(
            message["role"],
            any(block.get("type") == "tool_result" for block in _listed(message)),
            [_shown(block) for block in _listed(message)],
        )
        for message in request["messages"]
    ]
    check_thinking(messages, None if recorded is None else [_shown(block) for block in recorded])


def _listed(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def _shown(block: Mapping[str, Any]) -> Shown:
    kind = block.get("type")
    if kind == "thinking":
        return Shown(kind, block.get("thinking"), block.get("signature"))
    return Shown(kind if isinstance(kind, str) else "null")


def _unanswered(unanswered: list[str], index: int) -> None:
    if unanswered:
        raise Rejected(
            f"messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately after: "
            f"{', '.join(unanswered)}. Each `tool_use` block must have a corresponding `tool_result` block "
            "in the next message."
        )
