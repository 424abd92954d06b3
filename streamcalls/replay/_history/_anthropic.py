"""Anthropic Messages' history rules, in the API's own words.

``messages`` alternate ``user`` and ``assistant``; ``content`` is a string
or a list of blocks; every ``tool_use`` block of an assistant message is
answered by a ``tool_result`` block (its ``tool_use_id``) in the very next
message, and a ``tool_result`` answers only a ``tool_use`` of the message
right before it.  The messages name the failing item by its pydantic-style
path (``messages.2.content.0``), as the API's 400 bodies do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._rejected import Rejected

__all__ = ("anthropic_turn",)


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
        uses.append(block["id"])
    return uses


def _unanswered(unanswered: list[str], index: int) -> None:
    if unanswered:
        raise Rejected(
            f"messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately after: "
            f"{', '.join(unanswered)}. Each `tool_use` block must have a corresponding `tool_result` block "
            "in the next message."
        )
