"""The ``"cohere"`` target: Cohere's v2 chat stream (``POST /v2/chat``, ``stream: true``), written from events.

Server-sent events, each named by its ``event:`` line and its payload's
``type`` (cohere-python's ``V2ChatStreamResponse`` members).  What each event
writes:

- the start: ``message-start`` (``id``: the stream's response id, or a
  generated UUID; an empty assistant message);
- a text block: ``content-start`` (``type: "text"``), a ``content-delta`` per
  delta, ``content-end``; the content blocks are numbered from 0 (``index``);
- a reasoning block: Cohere's tool plan (a block of kind ``"tool_plan"``) is a
  ``tool-plan-delta`` per delta, with no start nor end; any other reasoning
  is a ``thinking`` content block (``content-start`` with ``type:
  "thinking"``, its deltas, ``content-end``), what Cohere's reasoning models
  send; signatures, redacted and encrypted reasoning are not written (Cohere
  has no place for them);
- a call: ``tool-call-start`` (``index``: the call's, ``id``, ``name``,
  ``arguments: ""``), a ``tool-call-delta`` per argument fragment, written in
  the ``send`` of its :class:`~streamcalls.ToolCallDelta`, and
  ``tool-call-end``; a call that completed with no fragment gets its
  arguments' JSON in one delta (none for ``{}``: Cohere's own way);
- a failed call gets no ``tool-call-end``: Cohere has no way to say a call
  failed, so the reader ends it at ``message-end``, where the text it had
  fails it (incomplete or not an object) or completes it (a whole object, or
  none: ``{}``);
- a provider error: Cohere says an error only in ``message-end``
  (``delta.error``), which ends its stream, so the first error waits for the
  finish, with the finish reason ``ERROR`` (or ``TIMEOUT``, Cohere's own), and
  nothing after it is written;
- the finish: ``message-end`` with ``finish_reason`` (Cohere's own word when
  the stream was Cohere's; else ``COMPLETE``, ``TOOL_CALL``, ``MAX_TOKENS``)
  and ``usage`` (``tokens``, ``cached_tokens``).  A stream that ended in error
  with no provider error has no ``message-end``: it was cut off (so it has no
  usage either).

No ``[DONE]``: Cohere does not document one (its SDK stops on one anyway).
"""

from __future__ import annotations

import uuid
from typing import Any

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
from ...writing._carry import input_and_output
from ...writing._form import DeltaForm
from ...writing._sse import json, sse

__all__ = ("CohereTarget", "cohere_usage", "finish_word")

_WORDS = frozenset({"COMPLETE", "STOP_SEQUENCE", "MAX_TOKENS", "TOOL_CALL", "ERROR", "TIMEOUT"})
_ERROR_WORDS = frozenset({"ERROR", "TIMEOUT"})
_REASONS = {"stop": "COMPLETE", "tool_calls": "TOOL_CALL", "length": "MAX_TOKENS", "error": "ERROR"}
_TOOL_PLAN = "tool_plan"  # the reasoning kind Cohere's reader gives a tool plan

_PLAN = b'event: tool-plan-delta\ndata: {"type":"tool-plan-delta","delta":{"message":{"tool_plan":'
_CLOSE_CONTENT = b"}}}}\n\n"  # after a content delta's text
_CLOSE_PLAN = b"}}}\n\n"  # after a tool plan's text
_CLOSE_ARGUMENTS = b"}}}}}\n\n"  # after an argument fragment


def finish_word(reason: str | None, provider: str | None, provider_reason: str | None) -> str:
    """The ``finish_reason``: Cohere's own word on a Cohere stream, else the reason's."""
    if provider == "cohere" and provider_reason in _WORDS:
        return provider_reason
    return _REASONS.get(reason or "stop", "COMPLETE")


def cohere_usage(usage: Usage) -> dict[str, Any] | None:
    """The counts as Cohere's ``usage``: the model's ``tokens`` and the ``cached_tokens``."""
    tokens = {
        key: value
        for key, value in zip(("input_tokens", "output_tokens"), input_and_output(usage), strict=True)
        if value is not None
    }
    out: dict[str, Any] = {"tokens": tokens} if tokens else {}
    if usage.cache_read_tokens is not None:
        out["cached_tokens"] = usage.cache_read_tokens
    return out or None


def _event(kind: str, record: dict[str, Any]) -> bytes:
    return sse({"type": kind, **record}, kind)


@register
class CohereTarget(Target):
    """Cohere's v2 chat stream events over server-sent events."""

    name = "cohere"
    cannot_carry = frozenset(
        {
            "reasoning_blocks",  # tool-plan deltas have no start nor end: adjacent plans read as one
            "finish.content_filter",  # COMPLETE
            "usage.total_tokens",  # input and output tokens: the reader adds them up
            "usage.reasoning_tokens",
            "usage.cache_write_tokens",
            "cut_usage",  # an error with no provider error: cut off, with no message-end
            "error_codes",  # the finish_reason (ERROR) is the code
            "after_error",  # message-end carries the error: the stream ends there
            "model",
        }
    )
    response_cannot_carry = frozenset({"part_order"})  # tool_plan, then the content, then the calls

    __slots__ = ("_contents", "_error")

    def __init__(self, stream: Stream) -> None:
        super().__init__(stream)
        self._contents = 0  # content blocks so far (text and thinking): the next one's index
        self._error: ProviderError | None = None  # the first provider error: message-end says it

    def start(self) -> bytes:
        stream = self.stream
        if stream.response_id is None:
            stream.response_id = str(uuid.uuid4())
        message = {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}
        return _event("message-start", {"id": stream.response_id, "delta": {"message": message}})

    # Every step after a provider error writes nothing (see error()): the order keeps blocks and
    # calls from spanning an error, so each of them is written whole or not at all.

    # -- content blocks ----------------------------------------------------------------------------------

    def _content_start(self, block: Block, kind: str) -> bytes:
        if self._error is not None:
            return b""
        index = self._contents
        self._contents += 1
        head = json({"type": "content-delta", "index": index})[:-1]
        block.memo = (
            b"event: content-delta\ndata: "
            + head
            + b',"delta":{"message":{"content":{"'
            + kind.encode()
            + b'":'
        )
        block.form = DeltaForm(block.memo, _CLOSE_CONTENT)
        block.id = str(index)
        content = {"type": kind, kind: ""}
        return _event("content-start", {"index": index, "delta": {"message": {"content": content}}})

    def _content_end(self, block: Block) -> bytes:
        if self._error is not None:
            return b""
        return _event("content-end", {"index": int(block.id)})

    def text_start(self, block: Block) -> bytes:
        return self._content_start(block, "text")

    def text(self, block: Block, text: str) -> bytes:
        if self._error is not None:
            return b""
        return block.memo + json(text) + _CLOSE_CONTENT

    def text_end(self, block: Block, signature: str | None) -> bytes:
        return self._content_end(block)

    def reasoning_start(self, block: Block, started: ReasoningStarted) -> bytes:
        if started.kind == _TOOL_PLAN:
            block.memo = _PLAN  # no start: a tool plan is its deltas
            if self._error is None:
                block.form = DeltaForm(_PLAN, _CLOSE_PLAN)
            return b""
        return self._content_start(block, "thinking")

    def reasoning(self, block: Block, text: str) -> bytes:
        if self._error is not None:
            return b""
        memo = block.memo
        return memo + json(text) + (_CLOSE_PLAN if memo is _PLAN else _CLOSE_CONTENT)

    def reasoning_end(self, block: Block, completed: ReasoningCompleted) -> bytes:
        return b"" if block.memo is _PLAN else self._content_end(block)

    # -- calls -------------------------------------------------------------------------------------------

    def call_start(self, call: Call) -> bytes:
        if self._error is not None:
            return b""
        head = json({"type": "tool-call-delta", "index": call.index})[:-1]
        call.memo = (
            b"event: tool-call-delta\ndata: "
            + head
            + b',"delta":{"message":{"tool_calls":{"function":{"arguments":'
        )
        call.form = DeltaForm(call.memo, _CLOSE_ARGUMENTS)
        tool_call = {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": ""}}
        return _event(
            "tool-call-start", {"index": call.index, "delta": {"message": {"tool_calls": tool_call}}}
        )

    def call_delta(self, call: Call, fragment: str) -> bytes:
        if self._error is not None:
            return b""
        return call.memo + json(fragment) + _CLOSE_ARGUMENTS

    def call_end(self, call: Call, completed: ToolCall) -> bytes:
        if self._error is not None:
            return b""
        end = _event("tool-call-end", {"index": call.index})
        if call.streamed or not completed.arguments:
            return end
        return self.call_delta(call, completed.arguments_json) + end

    def call_failed(self, call: Call, failed: ToolCallFailed) -> bytes:
        return b""  # no tool-call-end: the reader ends the call at message-end (see the module doc)

    # -- errors and the end ------------------------------------------------------------------------------

    def error(self, error: ProviderError) -> bytes:
        """Cohere says an error in ``message-end`` only, which ends its stream: the first error is
        written there, and what comes after it is not written."""
        if self._error is None:
            self._error = error
        return b""

    def finish(self, finished: StreamFinished) -> bytes:
        error = self._error
        if finished.reason == "error" and error is None:
            return b""  # cut off (or unreadable): a stream with no message-end, which reads as "error"
        delta: dict[str, Any] = {}
        if error is not None:
            delta["error"] = error.message
            own = self.stream.provider == "cohere" and error.code in _ERROR_WORDS
            word = error.code if own and error.code is not None else "ERROR"
        else:
            word = finish_word(finished.reason, self.stream.provider, finished.provider_reason)
        delta["finish_reason"] = word
        if finished.usage is not None:
            usage = cohere_usage(finished.usage)
            if usage is not None:
                delta["usage"] = usage
        return _event("message-end", {"delta": delta})
