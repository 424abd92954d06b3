"""The view Structs an OpenAI Chat chunk is decoded into: only the fields the reader
(:mod:`.reader`) uses, every other one ignored."""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = ("_Chunk", "_Detail", "_Part", "_ToolCall", "_Usage")


# View Structs: only the fields used.  They are decoded from JSON and dropped
# after use, so they can never be part of a reference cycle: gc=False keeps
# the garbage collector from tracking the ~7 of them each chunk allocates
# (decoding an OpenAI chunk: 0.65 -> 0.56 us).
class _Function(msgspec.Struct, gc=False):
    name: str | None = None
    # A string of JSON; Mistral's SDK also allows a whole object.
    arguments: str | dict[str, Any] | None = None


class _Google(msgspec.Struct, gc=False):
    thought_signature: str | None = None


class _ExtraContent(msgspec.Struct, gc=False):
    google: _Google | None = None


class _ToolCall(msgspec.Struct, gc=False):
    index: int | None = None
    id: str | None = None
    function: _Function | None = None
    extra_content: _ExtraContent | None = None  # Gemini's OpenAI-compatible endpoint: the thoughtSignature


class _Detail(msgspec.Struct, gc=False):
    type: str = ""
    text: str | None = None
    summary: str | None = None
    data: str | None = None
    signature: str | None = None
    id: str | None = None
    format: str | None = None
    index: int | None = None


class _ThinkingPart(msgspec.Struct, gc=False):
    type: str = ""
    text: str | None = None


class _Part(msgspec.Struct, gc=False):
    type: str = ""
    text: str | None = None
    thinking: str | list[_ThinkingPart] | None = None


class _Delta(msgspec.Struct, gc=False):
    content: str | list[_Part] | None = None
    tool_calls: list[_ToolCall] | None = None
    reasoning_content: str | None = None
    reasoning: str | None = None
    reasoning_details: list[_Detail] | None = None
    refusal: str | None = None
    function_call: _Function | None = None  # the deprecated single call


class _Choice(msgspec.Struct, gc=False):
    index: int = 0
    delta: _Delta | None = None
    finish_reason: str | None = None


class _PromptDetails(msgspec.Struct, gc=False):
    cached_tokens: int | None = None
    cache_write_tokens: int | None = None


class _CompletionDetails(msgspec.Struct, gc=False):
    reasoning_tokens: int | None = None


class _Usage(msgspec.Struct, gc=False):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    prompt_tokens_details: _PromptDetails | None = None
    completion_tokens_details: _CompletionDetails | None = None


class _Groq(msgspec.Struct, gc=False):
    usage: _Usage | None = None


class _Chunk(msgspec.Struct, gc=False):
    model: str | None = None
    choices: list[_Choice] | None = None
    usage: _Usage | None = None
    x_groq: _Groq | None = None
    error: Any = None
