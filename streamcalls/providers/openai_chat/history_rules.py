"""OpenAI Chat Completions' history rules, which Cohere v2's follow (:mod:`..cohere.history_rules`).

Both APIs take ``messages`` with roles, an assistant message's ``tool_calls``
(``id``, ``function.name``, ``function.arguments`` as a JSON string) and one
``tool`` message per call, with its ``tool_call_id``, right after the
assistant message.  OpenAI's wording, ``param`` and ``code`` are the API's
own (as its 400 bodies show them).  Cohere answers a call left without its
result with OpenAI's sentence behind ``invalid request: `` (recorded from the
API, oracle/langchain-oracle#10); its other checks are written the same way,
as its errors carry only a ``message``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from .._rejected import Rejected, openai_kind

__all__ = ("ChatRules", "chat_turn", "expect_openai", "openai_turn")


class ChatRules(NamedTuple):
    """How an API that follows OpenAI Chat's history rules words its refusals (OpenAI's own, Cohere's)."""

    prefix: str  # before every message
    roles: tuple[str, ...]
    details: bool  # the error body carries OpenAI's ``param`` and ``code``

    def reject(self, message: str, param: str | None, code: str | None = None) -> Rejected:
        if not self.details:
            return Rejected(self.prefix + message)
        return Rejected(self.prefix + message, param=param, code=code)


_OPENAI = ChatRules("", ("system", "assistant", "user", "function", "tool", "developer"), details=True)


def openai_turn(request: Mapping[str, Any]) -> int:
    """The turn an OpenAI Chat request's ``messages`` ask for; :class:`Rejected` if OpenAI would refuse them."""
    return chat_turn(request.get("messages"), _OPENAI)


def expect_openai(value: object, kind: type, expected: str, path: str) -> None:
    """Reject ``value`` at ``path`` as OpenAI does if it is missing or not of ``kind``."""
    _expect(_OPENAI, value, kind, expected, path)


def _expect(rules: ChatRules, value: object, kind: type, expected: str, path: str) -> None:
    if value is None:
        raise rules.reject(f"Missing required parameter: '{path}'.", path, "missing_required_parameter")
    if not isinstance(value, kind):
        message = f"Invalid type for '{path}': expected {expected}, but got {openai_kind(value)} instead."
        raise rules.reject(message, path, "invalid_type")


def _call_ids(rules: ChatRules, message: dict[str, Any], path: str) -> list[str]:
    calls = message.get("tool_calls")
    if calls is None:
        return []
    _expect(rules, calls, list, "an array", f"{path}.tool_calls")
    ids = []
    for number, call in enumerate(calls):
        where = f"{path}.tool_calls[{number}]"
        _expect(rules, call, dict, "an object", where)
        _expect(rules, call.get("id"), str, "a string", f"{where}.id")
        function = call.get("function")
        _expect(rules, function, dict, "an object", f"{where}.function")
        _expect(rules, function.get("name"), str, "a string", f"{where}.function.name")
        _expect(rules, function.get("arguments"), str, "a string", f"{where}.function.arguments")
        ids.append(call["id"])
    return ids


def chat_turn(messages: object, rules: ChatRules) -> int:
    """The turn ``messages`` ask for, by OpenAI Chat's rules worded as ``rules`` says."""
    _expect(rules, messages, list, "an array", "messages")
    assert isinstance(messages, list)
    pending: list[str] = []  # ids of the last assistant message's calls not answered yet
    calls_at = -1  # that assistant message's index, while its calls are being answered
    turn = 1
    for index, message in enumerate(messages):
        path = f"messages[{index}]"
        _expect(rules, message, dict, "an object", path)
        role = message.get("role")
        _expect(rules, role, str, "a string", f"{path}.role")
        if role not in rules.roles:
            supported = ", ".join(f"'{r}'" for r in rules.roles[:-1]) + f", and '{rules.roles[-1]}'"
            text = f"Invalid value: '{role}'. Supported values are: {supported}."
            raise rules.reject(text, f"{path}.role", "invalid_value")
        if role == "tool":
            _expect(rules, message.get("tool_call_id"), str, "a string", f"{path}.tool_call_id")
            if calls_at < 0:
                raise rules.reject(
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
                    "with 'tool_calls'.",
                    f"messages.[{index}].role",
                )
            if message["tool_call_id"] not in pending:
                raise rules.reject(
                    f"Invalid parameter: 'tool_call_id' of '{message['tool_call_id']}' not found in "
                    "'tool_calls' of previous message.",
                    f"messages.[{index}].tool_call_id",
                )
            pending.remove(message["tool_call_id"])
            continue
        _unanswered(rules, pending, calls_at)
        calls_at = -1
        if role == "user":
            turn = 1
        elif role == "assistant":
            turn += 1
            pending = _call_ids(rules, message, path)
            calls_at = index if pending else -1
    _unanswered(rules, pending, calls_at)
    return turn


def _unanswered(rules: ChatRules, pending: list[str], calls_at: int) -> None:
    if pending:
        raise rules.reject(
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
            f"'tool_call_id'. The following tool_call_ids did not have response messages: {', '.join(pending)}",
            f"messages.[{calls_at}].role",
        )
