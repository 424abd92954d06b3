"""Gemini's complete response: a ``GenerateContentResponse``, or one ``Content``.

See :mod:`streamcalls._readers` for what a reader returns.
"""

from __future__ import annotations

from typing import Any

from ..._found import Found, text_or_none
from .._bodies import as_dict as _dict
from .._bodies import as_list as _list
from .._bodies import unrecognized as _unrecognized

__all__ = (
    "read_gemini",
    "stream_end",
)


def read_gemini(obj: Any) -> Found:
    if not isinstance(obj, dict):
        raise _unrecognized("Gemini", obj)
    candidate: dict[str, Any] = {}
    if "candidates" in obj:
        candidates = _list(obj["candidates"])
        candidate = _dict(candidates[0]) if candidates else {}
        content = _dict(candidate.get("content"))
    elif "parts" in obj:
        content = obj
    elif "promptFeedback" in obj:
        content = {}  # the prompt was blocked: no candidate at all
    else:
        raise _unrecognized("Gemini", obj)
    found = Found()
    thoughts: list[str] = []  # a run of thought parts is one block, up to a signed one
    for part in _list(content.get("parts")):
        part = _dict(part)
        # REST spells it functionCall; an SDK object dumped to a dict, function_call.
        call = part.get("functionCall", part.get("function_call"))
        signature = part.get("thoughtSignature", part.get("thought_signature"))
        text = part.get("text")
        if part.get("thought") and not isinstance(call, dict):
            if isinstance(text, str):
                thoughts.append(text)
            if text_or_none(signature) is not None:
                found.reasoning("".join(thoughts), "thought", signature=signature)
                thoughts = []
            continue
        if thoughts:
            found.reasoning("".join(thoughts), "thought")
            thoughts = []
        if isinstance(call, dict):
            found.call(call.get("id"), call.get("name"), call, "args", signature)
        elif "text" in part or signature is not None:
            found.text(text)
            found.signature(signature)
        # executableCode / codeExecutionResult: code Gemini ran itself, not calls.
    if thoughts:
        found.reasoning("".join(thoughts), "thought")
    found.finish_reason = candidate.get("finishReason")
    found.usage = obj.get("usageMetadata")
    found.names(obj.get("modelVersion"), obj.get("responseId"))
    return found.done()


def stream_end(found: Found, obj: Any) -> list[dict[str, Any]]:
    """The end of the stream this complete response stands for: the records its last events would be."""
    response = _dict(obj)
    candidates = response.get("candidates")
    first = _dict(candidates[0]) if isinstance(candidates, list) and candidates else {}
    candidate = {"finishReason": found.finish_reason, "finishMessage": first.get("finishMessage")}
    chunk = {"candidates": [candidate], "usageMetadata": found.usage}
    chunk["promptFeedback"] = response.get("promptFeedback")
    return [chunk]
