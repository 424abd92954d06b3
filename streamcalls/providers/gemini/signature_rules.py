"""Gemini's thought-signature rule: a call must come back with the signature it was sent with.

Gemini 3 signs its function calls (``thoughtSignature`` beside ``functionCall``
in the part; of parallel calls, only the first) and refuses a next request
whose calls come back without it, with a 400 ``INVALID_ARGUMENT`` in the
words below (as its users report them: "Function call is missing a
thought_signature in functionCall parts").  The replay server checks the
request against the calls of the turn it answers: the recording before
that turn says which calls were signed, and with what.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..._events import ToolCall
from .._rejected import Rejected
from .history_rules import items

__all__ = ("check_signatures",)

MISSING = (
    "Function call is missing a thought_signature in functionCall parts. This is required for tools to work "
    "correctly, and missing thought_signature may lead to degraded model performance. Additional data, function "
    "call `default_api:{name}` , position {position}. Please refer to "
    "https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
)
INVALID = "Corrupted thought signature."


def check_signatures(request: Mapping[str, Any], calls: Sequence[ToolCall]) -> None:
    """Refuse (:class:`Rejected`) a Gemini request whose last turn of calls lost a signature of ``calls``.

    ``calls`` are the calls of the recorded turn the request answers, in order;
    the request's last ``model`` content with ``functionCall`` parts is that
    turn as the client sent it back.
    """
    if not any(call.thought_signature for call in calls):
        return
    # As Google's JSON reader takes them (the history rules have refused what it refuses).
    contents = [content for _, content in items(request.get("contents"), "contents", "Content")]
    for position, content in reversed(list(enumerate(contents, 1))):
        sent = [part for _, part in items(content.get("parts"), "parts", "Part") if "functionCall" in part]
        if content.get("role") == "model" and sent:
            for call, part in zip(calls, sent, strict=False):
                if call.thought_signature is None:
                    continue
                signature = part.get("thoughtSignature")
                if signature is None:
                    raise Rejected(MISSING.format(name=call.name, position=position))
                if signature != call.thought_signature:
                    raise Rejected(INVALID)
            return
