"""Reading complete (non-streamed) responses: what each provider's body holds.

A reader takes the decoded response -- or the assistant message inside it,
as :func:`~streamcalls.encode_call` writes it -- and returns a
:class:`Found`: the native calls, exactly as sent (the caller checks them);
the text segments in which the text detectors may look for calls; every
piece of text, reasoning and every call in the order the response holds
them; the provider's own finish reason and usage object, as sent; and the
model and response id it names.  Reasoning (``thinking`` blocks and parts,
``thought`` parts, ``reasoning`` items, Cohere's ``tool_plan``) is never
text; each block of it is one :class:`Thought`, with what the provider
requires back (signatures, redacted and encrypted content, item ids), as
the stream adapters read the same blocks.

Two users: :func:`~streamcalls.extract` takes the calls, and the parser
turns a body that is one complete response (the caller forgot ``stream:
true``) into the events its stream would have given (:mod:`~.framing._document`).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from ._errors import UsageError
from ._found import BREAK, CALL, REASONING, SIGNATURE, TEXT, Found, Native, Thought, text_or_none

__all__ = (
    "BREAK",
    "CALL",
    "READERS",
    "REASONING",
    "SIGNATURE",
    "TEXT",
    "Found",
    "Native",
    "Thought",
    "detect_provider",
)


Reader = Callable[[Any], Found]


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _unrecognized(provider: str, obj: Any) -> UsageError:
    return UsageError(f"not a complete {provider} response or assistant message: {obj!r:.200}")


# -- OpenAI Chat, Ollama, Cohere v2: {choices: [{message}]}, {message}, or the message ------------

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


# -- OpenAI Responses: {output: [items]}, or a list of items ----------------------------------------


def read_responses(obj: Any) -> Found:
    if isinstance(obj, list):
        items = obj
    elif isinstance(obj, dict) and isinstance(obj.get("output"), list):
        items = obj["output"]
    elif isinstance(obj, dict) and "type" in obj:
        items = [obj]
    else:
        raise _unrecognized("OpenAI Responses", obj)
    found = Found()
    for item in items:
        item = _dict(item)
        kind = item.get("type")
        if kind == "function_call":
            found.call(item.get("call_id"), item.get("name"), item, "arguments")
        elif kind == "reasoning":
            _reasoning_item(item, found)
        elif (kind == "message" or "role" in item) and item.get("role", "assistant") == "assistant":
            content = item.get("content")
            if isinstance(content, str):
                found.text(content)
            for part in _list(content):
                part = _dict(part)
                if part.get("type") in ("output_text", "text"):
                    found.text(part.get("text"))
                elif part.get("type") == "refusal":
                    found.text(part.get("refusal"))
            found.end_text()
        # Built-in tools' items (web_search_call, mcp_call, ...) are run by OpenAI: not calls.
    if isinstance(obj, dict):
        found.finish_reason = obj.get("status")
        found.usage = obj.get("usage")
        found.names(obj.get("model"), obj.get("id") if "output" in obj else None)
    return found.done()


def _reasoning_item(item: dict[str, Any], found: Found) -> None:
    """One block per summary part and per reasoning text part; the encrypted content on the last."""
    found_parts = [(kind, _dict(part)) for kind, key in _REASONING_PARTS for part in _list(item.get(key))]
    parts: list[tuple[str | None, dict[str, Any]]] = [
        (kind, part) for kind, part in found_parts if part.get("type") == kind
    ] or [(None, {})]
    for number, (kind, part) in enumerate(parts, 1):
        encrypted = item.get("encrypted_content") if number == len(parts) else None
        found.reasoning(part.get("text"), kind, encrypted=encrypted, id=item.get("id"))


_REASONING_PARTS = (("summary_text", "summary"), ("reasoning_text", "content"))


# -- Anthropic: a message with content blocks ---------------------------------------------------------


def read_anthropic(obj: Any) -> Found:
    if not isinstance(obj, dict) or "content" not in obj:
        raise _unrecognized("Anthropic", obj)
    found = Found()
    content = obj["content"]
    if isinstance(content, str):
        found.text(content)
    for block in _list(content):
        block = _dict(block)
        kind = block.get("type")
        if kind == "text":
            found.text(block.get("text"))
        elif kind == "tool_use":
            found.call(block.get("id"), block.get("name"), block, "input")
        elif kind == "thinking":
            found.reasoning(block.get("thinking"), kind, signature=block.get("signature"))
        elif kind == "redacted_thinking":
            found.reasoning("", kind, redacted=block.get("data"))
        else:
            found.end_text()  # server tools and their results are not client calls
    found.finish_reason = obj.get("stop_reason")
    found.usage = obj.get("usage")
    found.names(obj.get("model"), obj.get("id"))
    return found.done()


# -- Gemini: GenerateContentResponse, or a Content ----------------------------------------------------


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


# -- Bedrock Converse: {output: {message}}, or the message ------------------------------------------


def read_bedrock(obj: Any) -> Found:
    if isinstance(obj, dict) and isinstance(obj.get("output"), dict):
        message = _dict(obj["output"].get("message"))
    elif isinstance(obj, dict) and "content" in obj:
        message = obj
    else:
        raise _unrecognized("Bedrock Converse", obj)
    found = Found()
    for block in _list(message.get("content")):
        block = _dict(block)
        use = block.get("toolUse")
        if isinstance(use, dict) and use.get("type") != "server_tool_use":
            found.call(use.get("toolUseId"), use.get("name"), use, "input")
        elif "text" in block:
            found.text(block["text"])
        elif "reasoningContent" in block:
            reasoning = _dict(block["reasoningContent"])
            if "redactedContent" in reasoning:
                found.reasoning("", "redactedContent", redacted=_blob(reasoning["redactedContent"]))
            else:
                said = _dict(reasoning.get("reasoningText"))
                found.reasoning(said.get("text"), "reasoningText", signature=said.get("signature"))
        else:
            found.end_text()  # a server tool's use or result (Nova's code interpreter), an image, ...
    found.finish_reason = obj.get("stopReason")
    found.usage = obj.get("usage")
    return found.done()


def _blob(value: Any) -> Any:
    """A blob as base64 text: a JSON body holds it so; boto3 hands the bytes themselves."""
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode("ascii")
    return value


def read_text(obj: Any) -> Found:
    found = Found()
    found.text(obj)
    return found.done()


READERS: dict[str, Reader] = {
    "openai": read_chat,
    "openai-responses": read_responses,
    "anthropic": read_anthropic,
    "ollama": read_chat,
    "gemini": read_gemini,
    "bedrock": read_bedrock,
    "cohere": read_chat,
    "text": read_text,
}


def detect_provider(obj: Any) -> str:
    """Which provider's shape this decoded response (or assistant message) has.

    :raises UsageError: when no shape fits (an error body is named as such).
    """
    if isinstance(obj, list):
        # A list of Responses output (or input) items; not, say, a streamed Gemini array.
        if all(isinstance(item, dict) and ("type" in item or "role" in item) for item in obj):
            return "openai-responses"
        raise UsageError(f"a list is read as OpenAI Responses items, and this one is not: {obj!r:.200}")
    if not isinstance(obj, dict):
        raise UsageError(f"a response is a JSON object (or a list of Responses items), not {obj!r:.200}")
    if "choices" in obj:
        return "openai"
    if "candidates" in obj or "parts" in obj or "promptFeedback" in obj:
        return "gemini"
    output = obj.get("output")
    if isinstance(output, list) or obj.get("object") == "response" or obj.get("type") == "function_call":
        return "openai-responses"
    if isinstance(output, dict):
        return "bedrock"
    if isinstance(obj.get("message"), dict):
        return "ollama" if "done" in obj else "cohere"
    if "done" in obj and "response" in obj:
        return "ollama"
    if "tool_calls" in obj or "function_call" in obj:
        return "openai"  # or Ollama's or Cohere's message: one reader reads them all
    content = obj.get("content")
    if isinstance(content, list):
        blocks = [block for block in content if isinstance(block, dict)]
        if blocks and not any("type" in block for block in blocks):
            return "bedrock"  # blocks keyed by their kind: {"text"}, {"toolUse"}
        if any(block.get("type") in ("output_text", "refusal") for block in blocks):
            return "openai-responses"
        return "anthropic"
    if "role" in obj and (content is None or isinstance(content, str)):
        return "openai"
    if isinstance(obj.get("name"), str) and ("arguments" in obj or "parameters" in obj):
        return "text"  # a bare call object, as a model writes it
    if "error" in obj:
        raise UsageError(f"the response is an error, not a completion: {obj['error']!r:.300}")
    raise UsageError(f"cannot tell the provider from the response (keys: {sorted(obj)[:12]}); pass provider=")
