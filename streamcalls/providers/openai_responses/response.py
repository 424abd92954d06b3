"""OpenAI Responses' complete response for a turn: the ``response`` that ``write_response`` writes.

The shape of the openai SDK's ``Response``: an ``output`` item per part of
the turn, in its order -- a ``message`` per text, a ``function_call`` per
completed call (its ``call_id`` the call's id, its ``arguments`` the text as
the model wrote it), a ``reasoning`` item for the reasoning -- then the
``status`` (``incomplete`` with its reason for ``"length"`` and
``"content_filter"``, ``failed`` for ``"error"``) and the ``usage``, every
count the SDK requires (0 where the turn has none).  A Responses turn's own
reasoning goes back as it came: the parts of one item (the same ``id``) in
one item, ``summary_text`` and ``reasoning_text`` parts, its
``encrypted_content``; another provider's reasoning goes as its text, a
summary part, an item per block.
"""

from __future__ import annotations

import uuid
from typing import Any

from ..._events import StreamFinished, ToolCall
from ..._turn import ReasoningPart, TextPart, Turn
from .items import (
    call_item,
    finish_response,
    message_item,
    reasoning_item,
    response_object,
    responses_usage,
)

__all__ = ("responses_response",)


def _new_id(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:24]


def _output(turn: Turn) -> list[dict[str, Any]]:
    own = turn.provider == "openai-responses"
    output: list[dict[str, Any]] = []
    reasoning: dict[str, Any] | None = None  # the reasoning item the next part of the same id joins
    for part in turn.parts:
        if type(part) is ReasoningPart:
            same = own and reasoning is not None and part.id is not None and part.id == reasoning["id"]
            if not same:
                if not own and not part.text:
                    reasoning = None
                    continue  # another provider's block with no text: nothing of it is written
                reasoning = reasoning_item((part.id if own else None) or _new_id("rs_"), [], [], None)
                output.append(reasoning)
            assert reasoning is not None
            if part.text or (own and part.kind in ("summary_text", "reasoning_text")):
                if own and part.kind == "reasoning_text":
                    reasoning.setdefault("content", []).append({"type": "reasoning_text", "text": part.text})
                else:
                    reasoning["summary"].append({"type": "summary_text", "text": part.text})
            if own and part.encrypted is not None:
                reasoning["encrypted_content"] = part.encrypted
            continue
        reasoning = None
        if type(part) is TextPart:
            if part.text:
                output.append(message_item(_new_id("msg_"), part.text))
        else:
            call: ToolCall = part  # type: ignore[assignment]  # (the parts are texts, reasoning, calls)
            arguments = turn.raw_arguments.get(call.id, call.arguments_json)
            output.append(call_item(_new_id("fc_"), call.id, call.name, arguments, "completed"))
    return output


def responses_response(turn: Turn) -> dict[str, Any]:
    """The ``response`` body for ``turn`` (see the module doc)."""
    response = response_object(turn.response_id or _new_id("resp_"), turn.model, _output(turn))
    has_calls = any(type(part) is ToolCall for part in turn.parts)
    finish_response(
        response, StreamFinished(turn.finish_reason or ("tool_calls" if has_calls else "stop")), None
    )
    if turn.usage is not None:
        response["usage"] = responses_usage(turn.usage)
    return response
