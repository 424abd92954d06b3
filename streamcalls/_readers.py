"""Reading complete (non-streamed) responses: what each provider's body holds.

A reader takes the decoded response -- or the assistant message inside it,
as :func:`~streamcalls.encode_call` writes it -- and returns a
:class:`Found`: the native calls, exactly as sent (the caller checks them);
the text segments in which the text detectors may look for calls; every
piece of text, reasoning and every call in the order the response holds
them; and the provider's own finish reason and usage object, as sent.
Reasoning (``thinking`` blocks and parts, ``thought`` parts, ``reasoning``
items, Cohere's ``tool_plan``) is never text.

Two users: :func:`~streamcalls.extract` takes the calls, and the parser
turns a body that is one complete response (the caller forgot ``stream:
true``) into the events its stream would have given (:mod:`~.framing._document`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ._errors import UsageError

__all__ = ("BREAK", "CALL", "READERS", "REASONING", "TEXT", "Found", "Native", "detect_provider")


class Native(NamedTuple):
    """A call as the provider sent it: nothing checked yet."""

    id: Any
    name: Any
    arguments: Any
    has_arguments: bool  # False: the key was absent (Gemini's call without arguments)
    entry: dict[str, Any]  # the object that held the call, to show when it is malformed
    signature: str | None = None  # Gemini 3's thoughtSignature, where the provider sent one


# What one of Found.steps is: (TEXT, str), (REASONING, str), (CALL, Native), or
# (BREAK, None) where a run of text ends (a block or message boundary, a call).
TEXT = 0
REASONING = 1
CALL = 2
BREAK = 3


class Found:
    __slots__ = ("_run", "finish_reason", "natives", "steps", "texts", "usage")

    def __init__(self) -> None:
        self.natives: list[Native] = []
        self.texts: list[str] = []  # one per run of consecutive text
        self.steps: list[tuple[int, Any]] = []  # everything, in the response's order
        self.finish_reason: Any = None  # the provider's own word
        self.usage: Any = None  # the provider's usage object
        self._run: list[str] = []

    def text(self, text: object) -> None:
        if isinstance(text, str) and text:
            self._run.append(text)
            self.steps.append((TEXT, text))

    def reasoning(self, text: object) -> None:
        if isinstance(text, str) and text:
            self.steps.append((REASONING, text))

    def end_text(self) -> None:
        if self._run:
            self.texts.append("".join(self._run))
            self._run = []
            self.steps.append((BREAK, None))

    def call(self, call_id: Any, name: Any, holder: dict[str, Any], key: str, signature: Any = None) -> None:
        self.end_text()
        signed = signature if isinstance(signature, str) and signature else None
        native = Native(call_id, name, holder.get(key), key in holder, holder, signed)
        self.natives.append(native)
        self.steps.append((CALL, native))

    def done(self) -> Found:
        self.end_text()
        return self


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
    elif isinstance(obj.get("message"), dict):
        _chat_message(obj["message"], found)  # Ollama /api/chat, Cohere v2
        _top_level_end(obj, found)
    elif isinstance(obj.get("response"), str):  # Ollama /api/generate
        found.reasoning(obj.get("thinking"))
        found.text(obj["response"])
        _top_level_end(obj, found)
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
    found.reasoning(message.get("reasoning_content"))  # DeepSeek
    found.reasoning(message.get("reasoning"))  # OpenRouter, vLLM
    found.reasoning(message.get("thinking"))  # Ollama
    found.reasoning(message.get("tool_plan"))  # Cohere: the plan before its calls
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
    """A thinking part's text: Cohere's is a string, Mistral's a list of text chunks."""
    found.reasoning(value)
    for chunk in _list(value):
        chunk = _dict(chunk)
        if chunk.get("type") == "text":
            found.reasoning(chunk.get("text"))


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
            for part in _list(item.get("summary")) + _list(item.get("content")):
                part = _dict(part)
                if part.get("type") in ("summary_text", "reasoning_text"):
                    found.reasoning(part.get("text"))
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
    return found.done()


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
            found.reasoning(block.get("thinking"))
        elif kind != "redacted_thinking":
            found.end_text()  # server tools and their results are not client calls
    found.finish_reason = obj.get("stop_reason")
    found.usage = obj.get("usage")
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
    for part in _list(content.get("parts")):
        part = _dict(part)
        # REST spells it functionCall; an SDK object dumped to a dict, function_call.
        call = part.get("functionCall", part.get("function_call"))
        if isinstance(call, dict):
            signature = part.get("thoughtSignature", part.get("thought_signature"))
            found.call(call.get("id"), call.get("name"), call, "args", signature)
        elif "text" in part:
            if part.get("thought"):
                found.reasoning(part["text"])
            else:
                found.text(part["text"])
        # executableCode / codeExecutionResult: code Gemini ran itself, not calls.
    found.finish_reason = candidate.get("finishReason")
    found.usage = obj.get("usageMetadata")
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
            found.reasoning(_dict(reasoning.get("reasoningText")).get("text"))
        else:
            found.end_text()  # a server tool's use or result (Nova's code interpreter), an image, ...
    found.finish_reason = obj.get("stopReason")
    found.usage = obj.get("usage")
    return found.done()


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
