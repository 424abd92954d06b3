"""The ``"cohere"`` target: Cohere's v2 chat stream (``POST /v2/chat``, ``stream: true``), written from events.

Server-sent events, each named by its ``event:`` line and its payload's
``type`` (cohere-python's ``V2ChatStreamResponse`` members).  What each event
writes:

- the start: ``message-start`` (``id``: the stream's response id, or a
  generated UUID; an empty assistant message);
- a text block: ``content-start`` (``type: "text"``), a ``content-delta`` per
  delta, ``content-end``; the content blocks are numbered from 0 (``index``);
- a reasoning block: a ``thinking`` content block (``content-start`` with
  ``type: "thinking"``, its deltas, ``content-end``) for a block of kind
  ``"thinking"``, a ``tool-plan-delta`` per delta for the rest (Cohere's tool
  plan, and any other provider's plain reasoning); signatures, redacted and
  encrypted reasoning are not written (Cohere has no place for them);
- a call: ``tool-call-start`` (``index``: the call's, ``id``, ``name``,
  ``arguments: ""``), a ``tool-call-delta`` per argument fragment, written as
  it comes, and ``tool-call-end``; a call that completed with no fragment gets
  its arguments' JSON in one delta;
- a failed call gets no ``tool-call-end``: Cohere has no way to say a call
  failed, so it is left for the reader to end at ``message-end``, where its
  text fails it (incomplete or not an object), or the error there does; a
  call that failed before any fragment gets its raw text (a malformed call's
  markup) as one, unless that text is an object;
- provider errors: Cohere sends an error in ``message-end`` only, so each
  error's message waits for it (several are joined by a line break), with
  the finish reason ``ERROR`` (or ``TIMEOUT``, Cohere's own);
- the finish: ``message-end`` with ``finish_reason`` (Cohere's own word when
  the stream was Cohere's; else ``COMPLETE``, ``TOOL_CALL``, ``MAX_TOKENS``)
  and ``usage`` (``tokens``, ``cached_tokens``).  A stream that ended in error
  with no provider error has no ``message-end``: it was cut off.

No ``[DONE]``: Cohere does not document one (its SDK stops on one anyway).
"""

from __future__ import annotations

import uuid
from typing import Any

import msgspec

from ..._events import (
    ProviderError,
    ReasoningCompleted,
    ReasoningStarted,
    StreamFinished,
    ToolCall,
    ToolCallFailed,
    Usage,
)
from ...writing import Block, Call, Stream, Target, register
from ...writing._sse import json, sse

__all__ = ("CohereTarget", "cohere_usage", "finish_word")

_WORDS = frozenset({"COMPLETE", "STOP_SEQUENCE", "MAX_TOKENS", "TOOL_CALL", "ERROR", "TIMEOUT"})
_REASONS = {"stop": "COMPLETE", "tool_calls": "TOOL_CALL", "length": "MAX_TOKENS", "error": "ERROR"}


def finish_word(reason: str | None, provider: str | None, provider_reason: str | None) -> str:
    """The ``finish_reason``: Cohere's own word on a Cohere stream, else the reason's."""
    if provider == "cohere" and provider_reason in _WORDS:
        return provider_reason
    return _REASONS.get(reason or "stop", "COMPLETE")


def cohere_usage(usage: Usage) -> dict[str, Any] | None:
    """The counts as Cohere's ``usage``: the model's ``tokens`` and the ``cached_tokens``."""
    tokens = {
        key: value
        for key, value in (("input_tokens", usage.input_tokens), ("output_tokens", usage.output_tokens))
        if value is not None
    }
    out: dict[str, Any] = {"tokens": tokens} if tokens else {}
    if usage.cache_read_tokens is not None:
        out["cached_tokens"] = usage.cache_read_tokens
    return out or None


def _is_object(text: str) -> bool:
    """Whether ``text`` is a JSON object, as Cohere's reader would take it for a call's arguments."""
    try:
        return type(msgspec.json.decode(text)) is dict
    except msgspec.DecodeError:
        return False


def _event(kind: str, record: dict[str, Any]) -> bytes:
    return sse({"type": kind, **record}, kind)


@register
class CohereTarget(Target):
    """Cohere's v2 chat stream events over server-sent events."""

    name = "cohere"

    __slots__ = ("_contents", "_errors")

    def __init__(self, stream: Stream) -> None:
        super().__init__(stream)
        self._contents = 0  # content blocks so far (text and thinking): the next one's index
        self._errors: list[ProviderError] = []  # written in message-end

    def start(self) -> bytes:
        stream = self.stream
        if stream.response_id is None:
            stream.response_id = str(uuid.uuid4())
        message = {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}
        return _event("message-start", {"id": stream.response_id, "delta": {"message": message}})

    # -- content blocks ------------------------------------------------------------------------------

    def _content_start(self, block: Block, kind: str) -> bytes:
        index = self._contents
        self._contents += 1
        head = json({"type": "content-delta", "index": index})[:-1]
        block.memo = (
            b"event: content-delta\ndata: " + head + b',"delta":{"message":{"content":{"' + kind.encode()
        )
        block.memo += b'":'
        block.id = str(index)
        content = {"type": kind, kind: ""}
        return _event("content-start", {"index": index, "delta": {"message": {"content": content}}})

    def _content_end(self, block: Block) -> bytes:
        return _event("content-end", {"index": int(block.id)})

    def text_start(self, block: Block) -> bytes:
        return self._content_start(block, "text")

    def text(self, block: Block, text: str) -> bytes:
        return block.memo + json(text) + b"}}}}\n\n"

    def text_end(self, block: Block, signature: str | None) -> bytes:
        return self._content_end(block)

    def reasoning_start(self, block: Block, started: ReasoningStarted) -> bytes:
        if started.kind == "thinking":
            return self._content_start(block, "thinking")
        block.memo = _PLAN  # no start: a tool plan is its deltas
        return b""

    def reasoning(self, block: Block, text: str) -> bytes:
        if block.memo is _PLAN:
            return _PLAN + json(text) + b"}}}\n\n"
        return block.memo + json(text) + b"}}}}\n\n"

    def reasoning_end(self, block: Block, completed: ReasoningCompleted) -> bytes:
        return b"" if block.memo is _PLAN else self._content_end(block)

    # -- calls -----------------------------------------------------------------------------------------

    def call_start(self, call: Call) -> bytes:
        head = json({"type": "tool-call-delta", "index": call.index})[:-1]
        call.memo = b"event: tool-call-delta\ndata: " + head
        call.memo += b',"delta":{"message":{"tool_calls":{"function":{"arguments":'
        tool_call = {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": ""}}
        return _event(
            "tool-call-start", {"index": call.index, "delta": {"message": {"tool_calls": tool_call}}}
        )

    def call_delta(self, call: Call, fragment: str) -> bytes:
        return call.memo + json(fragment) + b"}}}}}\n\n"

    def call_end(self, call: Call, completed: ToolCall) -> bytes:
        end = _event("tool-call-end", {"index": call.index})
        if call.streamed or not completed.arguments:
            return end
        return self.call_delta(call, completed.arguments_json) + end

    def call_failed(self, call: Call, failed: ToolCallFailed) -> bytes:
        # No tool-call-end (see the module doc).  A call that failed before any fragment (one found
        # in the text, whose markup was malformed) gets its raw text, which fails it on reading too.
        raw = failed.raw
        if call.streamed or not raw or _is_object(raw):
            return b""
        return self.call_delta(call, raw)

    # -- errors and the end ----------------------------------------------------------------------------

    def error(self, error: ProviderError) -> bytes:
        self._errors.append(error)
        return b""

    def finish(self, finished: StreamFinished) -> bytes:
        errors = self._errors
        if finished.reason == "error" and not errors:
            return b""  # cut off (or unreadable): a stream with no message-end, which reads as "error"
        word = finish_word(finished.reason, self.stream.provider, finished.provider_reason)
        delta: dict[str, Any] = {}
        if errors:
            delta["error"] = "\n".join(error.message for error in errors)
        delta["finish_reason"] = word
        if finished.usage is not None:
            usage = cohere_usage(finished.usage)
            if usage is not None:
                delta["usage"] = usage
        return _event("message-end", {"delta": delta})


_PLAN = b'event: tool-plan-delta\ndata: {"type":"tool-plan-delta","delta":{"message":{"tool_plan":'
