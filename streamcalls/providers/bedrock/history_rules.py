"""Bedrock Converse's history rules: ``messages`` of content blocks.

Bedrock answers a request it refuses with a 400 ``ValidationException``
(``{"message": ...}``, the name in the ``x-amzn-ErrorType`` header), in
these words, as its users report them: the conversation starts with the
user and alternates roles (microsoft/semantic-kernel#10281); each
``toolUse`` block of an assistant message gets a ``toolResult`` block in the
user message right after it (agno-agi/agno#6698: "Expected toolResult
blocks at messages.2.content for the following Ids: ..."), and results
answer only the calls of the message before; a history with tool blocks
needs the request's ``toolConfig`` (vxcontrol/pentagi#196); a ``toolUse``
input is a JSON object (aws/aws-sdk-js-v3#7330 shows the sentence for a
``json`` block).

Before that, AWS's JSON reader refuses a message that is not an object
(``SerializationException``), and its constraint check a role that is not
``user`` or ``assistant`` and a ``toolUseId`` outside the service model's
constraints (``ToolUseId``: 1 to 64 characters of ``[a-zA-Z0-9_.:-]+``, in
botocore's ``bedrock-runtime`` model), in their usual wording.

:func:`bedrock_thinking` is Claude's thinking rule behind Converse (with
``additionalModelRequestFields.thinking`` enabled): ``reasoningContent``
blocks are Claude's thinking blocks, and come back first and unchanged
(:mod:`.._thinking_rules`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .._rejected import Rejected
from .._thinking_rules import Message, Shown, check_thinking

__all__ = ("bedrock_thinking", "bedrock_turn", "constraint_errors")

_INVALID = "ValidationException"
_UNREADABLE = "SerializationException"
START = "A conversation must start with a user message. Try again with a conversation that starts with a user message."
ALTERNATE = (
    "A conversation must alternate between user and assistant roles. Make sure the conversation alternates "
    "between user and assistant roles and try again."
)
NO_TOOL_CONFIG = "The toolConfig field must be defined when using toolUse and toolResult content blocks."
MODEL_ERRORS = "The model returned the following errors: "
TOOL_USE_ID = re.compile(r"[a-zA-Z0-9_.:-]+")
# A Converse content block's member, as Claude's Messages API names the block it becomes.
_CLAUDE_KINDS = {"text": "text", "toolUse": "tool_use", "toolResult": "tool_result", "image": "image"}


def bedrock_turn(request: Mapping[str, Any]) -> int:
    """The turn a Converse request's ``messages`` ask for; :class:`Rejected` if Bedrock would refuse them."""
    messages = request.get("messages")
    if not messages:
        return 1
    if not isinstance(messages, list):
        raise _unreadable(messages)
    blocks = [_blocks(message, index) for index, message in enumerate(messages)]
    errors = [
        error
        for index, found in enumerate(blocks)
        for number, block in enumerate(found)
        for kind in ("toolUse", "toolResult")
        if isinstance(block.get(kind), dict)
        for error in constraint_errors(
            block[kind].get("toolUseId"),
            f"messages.{index + 1}.member.content.{number + 1}.member.{kind}.toolUseId",
            TOOL_USE_ID,
        )
    ]
    if errors:
        raise _invalid(errors)
    if any("toolUse" in block or "toolResult" in block for found in blocks for block in found):
        if not request.get("toolConfig"):
            raise Rejected(NO_TOOL_CONFIG, kind=_INVALID)
    turn = 1
    uses: list[str] = []  # the toolUse ids of the message before
    for index, (message, found) in enumerate(zip(messages, blocks, strict=True)):
        role = message["role"]
        if index == 0 and role != "user":
            raise Rejected(START, kind=_INVALID)
        if index and role == messages[index - 1]["role"]:
            raise Rejected(ALTERNATE, kind=_INVALID)
        results = [_use_id(block, "toolResult") for block in found if "toolResult" in block]
        if len(results) > len(uses):
            text = (
                f"The number of toolResult blocks at messages.{index}.content exceeds the number of toolUse "
                "blocks of previous turn."
            )
            raise Rejected(text, kind=_INVALID)
        missing = [use for use in uses if use not in results]
        if missing:
            text = f"Expected toolResult blocks at messages.{index}.content for the following Ids: "
            raise Rejected(text + ", ".join(missing), kind=_INVALID)
        if role == "user":
            turn = turn if results else 1
            uses = []
        else:
            turn += 1
            uses = [_use_id(block, "toolUse") for block in found if "toolUse" in block]
    return turn


def constraint_errors(value: object, path: str, pattern: re.Pattern[str], longest: int = 64) -> list[str]:
    """What AWS's constraint check says of a string field (1 to ``longest`` characters of ``pattern``)."""
    if not isinstance(value, str):
        return []  # a missing or mistyped id is the JSON reader's, or the pairing rules', to report
    shown = f"Value '{value}' at '{path}' failed to satisfy constraint: Member must "
    errors = []
    if len(value) > longest:
        errors.append(shown + f"have length less than or equal to {longest}")
    if not value:
        errors.append(shown + "have length greater than or equal to 1")
    if not pattern.fullmatch(value):
        errors.append(shown + f"satisfy regular expression pattern: {pattern.pattern}")
    return errors


def _invalid(errors: list[str]) -> Rejected:
    count = f"{len(errors)} validation error{'s' if len(errors) > 1 else ''} detected: "
    return Rejected(count + "; ".join(errors), kind=_INVALID)


def bedrock_thinking(request: Mapping[str, Any], recorded: Sequence[Mapping[str, Any]] | None) -> None:
    """Refuse (:class:`Rejected`) a thinking-enabled Converse request that drops or changes its reasoning.

    ``recorded`` are the content blocks of the turn the request answers
    (:func:`streamcalls.replay._recorded.bedrock_blocks`).  The history rules have checked
    the messages' shapes before.
    """
    fields = request.get("additionalModelRequestFields")
    thinking = fields.get("thinking") if isinstance(fields, dict) else None
    if not isinstance(thinking, dict) or thinking.get("type") not in ("enabled", "adaptive"):
        return
    messages = [
        Message(
            message["role"],
            any("toolResult" in block for block in found),
            [_shown(block) for block in found],
        )
        for message in request.get("messages") or ()
        for found in [[block for block in message.get("content") or () if isinstance(block, dict)]]
    ]
    shown = None if recorded is None else [_shown(block) for block in recorded]
    check_thinking(messages, shown, prefix=MODEL_ERRORS, kind=_INVALID)


def _shown(block: Mapping[str, Any]) -> Shown:
    reasoning = block.get("reasoningContent")
    if isinstance(reasoning, dict):
        text = reasoning.get("reasoningText")
        if isinstance(text, dict):
            return Shown("thinking", text.get("text"), text.get("signature"))
        return Shown("redacted_thinking")
    member = next(iter(block), "null")
    return Shown(_CLAUDE_KINDS.get(member, member))


def _use_id(block: dict[str, Any], kind: str) -> Any:
    value = block[kind]
    return value.get("toolUseId") if isinstance(value, dict) else None


def _unreadable(value: object) -> Rejected:
    """What AWS's JSON reader says of ``value`` where the model has something else."""
    if isinstance(value, list):
        text = "Start of list found where not expected"
    elif isinstance(value, dict):
        text = "Start of structure or map found where not expected."
    else:
        text = "Expected null"
    return Rejected(text, kind=_UNREADABLE)


def _blocks(message: object, index: int) -> list[dict[str, Any]]:
    """A message's content blocks, once its shape is what the Converse model says."""
    if not isinstance(message, dict):
        raise _unreadable(message)
    role = message.get("role")
    if role not in ("user", "assistant"):
        shown = "null" if role is None else f"'{role}'"
        text = (
            f"1 validation error detected: Value {shown} at 'messages.{index + 1}.member.role' failed to satisfy "
            "constraint: Member must satisfy enum value set: [user, assistant]"
        )
        raise Rejected(text, kind=_INVALID)
    content = message.get("content")
    blocks = content if isinstance(content, list) else []
    for number, block in enumerate(blocks):
        use = block.get("toolUse") if isinstance(block, dict) else None
        if isinstance(use, dict) and "input" in use and not isinstance(use["input"], dict):
            text = (
                f"The format of the value at messages.{index}.content.{number}.toolUse.input is invalid. "
                "Provide a json object for the field and try again."
            )
            raise Rejected(text, kind=_INVALID)
    return [block for block in blocks if isinstance(block, dict)]
