"""What the replay server reads from a request's conversation history, as each provider would.

:func:`conversation_turn` checks the ``messages`` of an OpenAI Chat or
Anthropic Messages request by the rules those APIs enforce -- each message
an object with a known role, tool calls well formed, every tool result
answering a call of the assistant message right before it, and every call
answered before the conversation goes on -- and raises :class:`Rejected`
with the provider's own wording (and, for OpenAI, its ``param`` and
``code``) for the first rule broken.  Otherwise it returns which turn of a
recorded conversation the request asks for: 1, plus one for each assistant
message since the last prompt of the user's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ("Rejected", "conversation_turn")

_OPENAI_ROLES = ("system", "assistant", "user", "function", "tool", "developer")


class Rejected(Exception):
    """A request the provider would answer with a 400: its message, ``param`` and ``code``."""

    def __init__(self, message: str, param: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.code = code


def conversation_turn(provider: str, messages: object) -> int:
    """The turn a request's ``messages`` ask for (1 for a new prompt).

    :raises Rejected: for a history ``provider`` would reject.
    """
    return _CHECKS[provider](messages)


def _kind(value: object) -> str:
    """A JSON value's type, as OpenAI's validation messages name it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


# -- OpenAI Chat Completions ---------------------------------------------------------------------------


def _openai_expect(value: object, kind: type, expected: str, path: str) -> None:
    if value is None:
        raise Rejected(f"Missing required parameter: '{path}'.", path, "missing_required_parameter")
    if not isinstance(value, kind):
        raise Rejected(
            f"Invalid type for '{path}': expected {expected}, but got {_kind(value)} instead.",
            path,
            "invalid_type",
        )


def _openai_call_ids(message: dict[str, Any], path: str) -> list[str]:
    calls = message.get("tool_calls")
    if calls is None:
        return []
    _openai_expect(calls, list, "an array", f"{path}.tool_calls")
    ids = []
    for number, call in enumerate(calls):
        where = f"{path}.tool_calls[{number}]"
        _openai_expect(call, dict, "an object", where)
        _openai_expect(call.get("id"), str, "a string", f"{where}.id")
        function = call.get("function")
        _openai_expect(function, dict, "an object", f"{where}.function")
        _openai_expect(function.get("name"), str, "a string", f"{where}.function.name")
        _openai_expect(function.get("arguments"), str, "a string", f"{where}.function.arguments")
        ids.append(call["id"])
    return ids


def _openai_turn(messages: object) -> int:
    _openai_expect(messages, list, "an array", "messages")
    assert isinstance(messages, list)
    pending: list[str] = []  # ids of the last assistant message's calls not answered yet
    calls_at = -1  # that assistant message's index, while its calls are being answered
    turn = 1
    for index, message in enumerate(messages):
        path = f"messages[{index}]"
        _openai_expect(message, dict, "an object", path)
        role = message.get("role")
        _openai_expect(role, str, "a string", f"{path}.role")
        if role not in _OPENAI_ROLES:
            supported = ", ".join(f"'{r}'" for r in _OPENAI_ROLES[:-1]) + f", and '{_OPENAI_ROLES[-1]}'"
            raise Rejected(
                f"Invalid value: '{role}'. Supported values are: {supported}.",
                f"{path}.role",
                "invalid_value",
            )
        if role == "tool":
            _openai_expect(message.get("tool_call_id"), str, "a string", f"{path}.tool_call_id")
            if calls_at < 0:
                raise Rejected(
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
                    f"messages.[{index}].role",
                )
            if message["tool_call_id"] not in pending:
                raise Rejected(
                    f"Invalid parameter: 'tool_call_id' of '{message['tool_call_id']}' not found in 'tool_calls' of previous message.",
                    f"messages.[{index}].tool_call_id",
                )
            pending.remove(message["tool_call_id"])
            continue
        _openai_unanswered(pending, calls_at)
        calls_at = -1
        if role == "user":
            turn = 1
        elif role == "assistant":
            turn += 1
            pending = _openai_call_ids(message, path)
            calls_at = index if pending else -1
    _openai_unanswered(pending, calls_at)
    return turn


def _openai_unanswered(pending: list[str], calls_at: int) -> None:
    if pending:
        raise Rejected(
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
            f"'tool_call_id'. The following tool_call_ids did not have response messages: {', '.join(pending)}",
            f"messages.[{calls_at}].role",
        )


# -- Anthropic Messages ----------------------------------------------------------------------------------


def _anthropic_blocks(message: dict[str, Any], path: str) -> list[dict[str, Any]]:
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


def _anthropic_turn(messages: object) -> int:
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
        blocks = _anthropic_blocks(message, path)
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
        _anthropic_unanswered([u for u in uses if u not in answered], index - 1)
        uses = []
        if role == "user":
            turn = turn if answered else 1
        else:
            turn += 1
            uses = _anthropic_uses(blocks, path)
    _anthropic_unanswered(uses, len(messages) - 1)
    return turn


def _anthropic_uses(blocks: list[dict[str, Any]], path: str) -> list[str]:
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


def _anthropic_unanswered(unanswered: list[str], index: int) -> None:
    if unanswered:
        raise Rejected(
            f"messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately after: "
            f"{', '.join(unanswered)}. Each `tool_use` block must have a corresponding `tool_result` block "
            "in the next message."
        )


_CHECKS: dict[str, Callable[[object], int]] = {"openai": _openai_turn, "anthropic": _anthropic_turn}
