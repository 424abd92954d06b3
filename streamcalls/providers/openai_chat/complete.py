"""OpenAI Chat's complete (non-streamed) response: ``{choices: [{message}]}``, or the message itself.

The same reader takes Ollama's ``/api/chat`` (``{message, done}``) and
``/api/generate`` (``{response, done}``) bodies and Cohere v2's
(``{message, finish_reason, usage}``): their messages have Chat's fields
(``content``, ``tool_calls``) and their own beside them (Ollama's
``thinking``, Cohere's ``tool_plan`` and typed content parts), so the three
providers' registry entries all name :func:`read_chat`.  See
:mod:`streamcalls._readers` for what a reader returns.
"""

from __future__ import annotations

from typing import Any

from ..._errors import UsageError
from ..._found import Found, text_or_none
from .._bodies import as_dict as _dict
from .._bodies import as_list as _list
from .._bodies import unrecognized as _unrecognized

__all__ = (
    "read_chat",
    "stream_end",
)


# Ollama's counts, beside its durations at the top level: its usage.
_OLLAMA_COUNTS = ("prompt_eval_count", "eval_count")


def read_chat(obj: Any) -> Found:
    if not isinstance(obj, dict):
        raise _unrecognized("chat", obj)
    found = Found()
    if "choices" in obj:
        choices = _list(obj["choices"])
        first = _dict(choices[0]) if choices else {}
        if "delta" in first and "message" not in first:
            raise UsageError("a streamed chunk, not a complete response: parse the stream with StreamParser")
        _chat_message(_dict(first.get("message")), found)
        found.finish_reason = first.get("finish_reason")
        found.usage = obj.get("usage")
        found.names(obj.get("model"), obj.get("id"))
    elif isinstance(obj.get("message"), dict):
        _chat_message(obj["message"], found)  # Ollama /api/chat, Cohere v2
        _top_level_end(obj, found)
        found.names(obj.get("model"), obj.get("id"))
    elif isinstance(obj.get("response"), str):  # Ollama /api/generate
        found.reasoning(obj.get("thinking"), "thinking")
        found.text(obj["response"])
        _top_level_end(obj, found)
        found.names(obj.get("model"), None)
    elif "role" in obj or "tool_calls" in obj or "content" in obj:
        _chat_message(obj, found)
    else:
        raise _unrecognized("chat", obj)
    return found.done()


def _top_level_end(obj: dict[str, Any], found: Found) -> None:
    if "done" in obj:  # Ollama
        found.finish_reason = obj.get("done_reason")
        found.usage = {key: obj[key] for key in _OLLAMA_COUNTS if key in obj} or None
    else:  # Cohere v2
        found.finish_reason = obj.get("finish_reason")
        found.usage = obj.get("usage")


def _chat_message(message: dict[str, Any], found: Found) -> None:
    # In the order a stream of the same message sends them (see the adapters).
    details = _list(message.get("reasoning_details"))  # OpenRouter: instead of its "reasoning"
    thinking = message.get("reasoning_content")
    found.reasoning(thinking, "reasoning_content")  # DeepSeek, Kimi
    if not details and message.get("reasoning") != thinking:
        found.reasoning(message.get("reasoning"), "reasoning")  # OpenRouter, vLLM
    for detail in details:
        detail = _dict(detail)
        kind = text_or_none(detail.get("type"))
        text = detail.get("summary" if kind == "reasoning.summary" else "text")
        found.reasoning(
            text,
            kind,
            signature=detail.get("signature"),
            encrypted=detail.get("data"),
            id=detail.get("id"),
            format=detail.get("format"),
        )
    found.reasoning(message.get("thinking"), "thinking")  # Ollama
    found.reasoning(message.get("tool_plan"), "tool_plan")  # Cohere: the plan before its calls
    content = message.get("content")
    if isinstance(content, str):
        found.text(content)
    else:  # OpenAI content parts, Mistral's and Cohere's typed parts
        for part in _list(content):
            part = _dict(part)
            kind = part.get("type")
            if kind in ("text", "output_text"):
                found.text(part.get("text"))
            elif kind == "thinking":
                _thinking(part.get("thinking"), found)
    found.text(message.get("refusal"))
    found.end_text()
    for entry in _list(message.get("tool_calls")):
        entry = _dict(entry)
        function = _dict(entry.get("function"))
        google = _dict(_dict(entry.get("extra_content")).get("google"))  # Gemini's compatible endpoint
        found.call(
            entry.get("id"), function.get("name"), function, "arguments", google.get("thought_signature")
        )
    legacy = message.get("function_call")  # OpenAI's deprecated single call
    if isinstance(legacy, dict):
        found.call(None, legacy.get("name"), legacy, "arguments")


def _thinking(value: Any, found: Found) -> None:
    """A thinking part's text, one block: Cohere's is a string, Mistral's a list of text chunks."""
    if isinstance(value, list):
        texts = (_dict(chunk) for chunk in value)
        value = "".join(
            t["text"] for t in texts if t.get("type") == "text" and isinstance(t.get("text"), str)
        )
    found.reasoning(value, "thinking")


def stream_end(found: Found, obj: Any) -> list[dict[str, Any]]:
    """The end of the stream this complete response stands for: the records its last events would be."""
    choice = {"index": 0, "finish_reason": found.finish_reason}
    return [{"choices": [choice], "usage": found.usage}]
