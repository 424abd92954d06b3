"""The rules that differ between the servers speaking OpenAI Chat, told apart by the model a recording names.

:func:`chat_server_rules` runs after the shared history rules (:mod:`.history_rules`),
with the server (:func:`streamcalls.replay._recorded.chat_dialect`) and whether the recorded
model thought (streamed ``reasoning_content``):

- OpenAI: an assistant message's ``tool_calls[].id`` is at most 40
  characters: "Invalid 'messages[3].tool_calls[0].id': string too long.
  Expected a string with maximum length 40, but got a string with length 41
  instead." (``code: "string_above_max_length"``; agno-agi/agno#5382 shows
  the whole body).
- Mistral: call ids are nine letters and digits, in the calls and in the
  tool messages: "Tool call id was ... but must be a-z, A-Z, 0-9, with a
  length of 9." (a 400 in Mistral's error shape, ``"object": "error"``:
  jackmpcollins/magentic#276).
- DeepSeek, in thinking mode (unless the request sets ``thinking.type``
  ``"disabled"``): every assistant message with ``tool_calls`` carries its
  ``reasoning_content`` back -- "For turns that do perform tool calls, the
  reasoning_content must be fully passed back to the API in all subsequent
  requests" (api-docs.deepseek.com, guides/thinking_mode, "Tool Calls") --
  else "The reasoning_content in the thinking mode must be passed back to
  the API." (``code: "invalid_request_error"``: anomalyco/opencode#24083).
- Kimi's thinking models: the same, in Moonshot's words and shape (no
  ``param`` or ``code``): "thinking is enabled but reasoning_content is
  missing in assistant tool call message at index 2" (iOfficeAI/AionUi#2746).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .._rejected import Rejected

__all__ = ("chat_server_rules",)

_MISTRAL_ID = re.compile(r"[a-zA-Z0-9]{9}")
OPENAI_LONGEST_ID = 40
DEEPSEEK_THINKING = "The reasoning_content in the thinking mode must be passed back to the API."


def chat_server_rules(request: Mapping[str, Any], dialect: str, thinks: bool) -> None:
    """Refuse (:class:`Rejected`) a Chat request the server ``dialect`` refuses (see the module doc).

    ``thinks``: the recorded model streamed reasoning (its thinking mode is on).
    The shared rules have checked the messages' shapes before.
    """
    messages: list[dict[str, Any]] = request.get("messages") or []
    if dialect == "openai":
        _openai_ids(messages)
    elif dialect == "mistral":
        _mistral_ids(messages)
    thinking = request.get("thinking")
    disabled = isinstance(thinking, dict) and thinking.get("type") == "disabled"
    if not thinks or disabled or dialect not in ("deepseek", "kimi"):
        return
    for index, message in enumerate(messages):
        if message.get("role") != "assistant" or not message.get("tool_calls"):
            continue
        if isinstance(message.get("reasoning_content"), str):
            continue
        if dialect == "deepseek":
            raise Rejected(DEEPSEEK_THINKING, code="invalid_request_error", shape="deepseek")
        text = f"thinking is enabled but reasoning_content is missing in assistant tool call message at index {index}"
        raise Rejected(text, shape="kimi")


def _openai_ids(messages: list[dict[str, Any]]) -> None:
    for index, message in enumerate(messages):
        for number, call in enumerate(message.get("tool_calls") or ()):
            call_id = call["id"]
            if len(call_id) > OPENAI_LONGEST_ID:
                path = f"messages[{index}].tool_calls[{number}].id"
                text = (
                    f"Invalid '{path}': string too long. Expected a string with maximum length "
                    f"{OPENAI_LONGEST_ID}, but got a string with length {len(call_id)} instead."
                )
                raise Rejected(text, param=path, code="string_above_max_length")


def _mistral_ids(messages: list[dict[str, Any]]) -> None:
    for message in messages:
        ids = [call["id"] for call in message.get("tool_calls") or ()]
        if message.get("role") == "tool":
            ids.append(message.get("tool_call_id"))
        for call_id in ids:
            if not isinstance(call_id, str) or not _MISTRAL_ID.fullmatch(call_id):
                text = f"Tool call id was {call_id} but must be a-z, A-Z, 0-9, with a length of 9."
                raise Rejected(text, shape="mistral")
