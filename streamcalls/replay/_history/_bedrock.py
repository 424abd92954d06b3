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
``user`` or ``assistant``, in their usual wording.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._rejected import Rejected

__all__ = ("bedrock_turn",)

_INVALID = "ValidationException"
_UNREADABLE = "SerializationException"
START = "A conversation must start with a user message. Try again with a conversation that starts with a user message."
ALTERNATE = (
    "A conversation must alternate between user and assistant roles. Make sure the conversation alternates "
    "between user and assistant roles and try again."
)
NO_TOOL_CONFIG = "The toolConfig field must be defined when using toolUse and toolResult content blocks."


def bedrock_turn(request: Mapping[str, Any]) -> int:
    """The turn a Converse request's ``messages`` ask for; :class:`Rejected` if Bedrock would refuse them."""
    messages = request.get("messages")
    if not messages:
        return 1
    if not isinstance(messages, list):
        raise _unreadable(messages)
    blocks = [_blocks(message, index) for index, message in enumerate(messages)]
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
