"""Cohere v2 chat streams (``POST /v2/chat`` with ``stream: true``).

Wire format: SSE; each ``data:`` payload is a JSON object with a ``type``
(the server may also name it in ``event:``; the payload's ``type`` wins):

- ``message-start{id, delta.message{role, content: [], tool_plan: "", tool_calls: []}}``
- ``tool-plan-delta{delta.message.tool_plan}``: the model's plan before it
  calls tools, reported as reasoning: one block of kind ``"tool_plan"``,
  ended by the first call (or text, or the end).
- ``tool-call-start{index, delta.message.tool_calls{id, type, function{name, arguments: ""}}}``
  -- ``tool_calls`` is one object here, not a list --, then
  ``tool-call-delta{index, delta.message.tool_calls.function.arguments}``
  pieces and ``tool-call-end{index}``.  A tool without arguments sends
  start and end only; its arguments are ``{}``.  Text after a call's closed
  arguments is reported on that call (a ParseError), never a call.
- ``content-start/content-delta/content-end{index, delta.message.content{text | thinking}}``:
  text, or a reasoning model's ``thinking`` (a reasoning block of kind
  ``"thinking"``, ended by its ``content-end``).
- ``citation-start/end`` and ``debug`` are ignored.
- ``message-end{delta{finish_reason, usage{billed_units, tokens, cached_tokens}, error?}}``
  ends the stream; ``finish_reason`` is COMPLETE, STOP_SEQUENCE,
  MAX_TOKENS, TOOL_CALL, ERROR or TIMEOUT.

The SDK stops on a ``data: [DONE]`` it never documents; here it ends the
stream too.  ERROR and TIMEOUT are in-stream errors: a ProviderError (with
``delta.error`` as its message when sent), which fails the calls still
open.  A payload without a ``type`` holding only a ``message`` string is
Cohere's error body written into the stream, and is reported the same way.
Usage counts are the model's ``tokens``, else the ``billed_units``.
``message-start``'s ``id`` is the stream's start (no model is named).
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..._adapter import Adapter
from ..._call import Call
from ..._emitter import Emitter
from ..._events import Usage

__all__ = ("CohereAdapter",)


class _Function(msgspec.Struct):
    name: str | None = None
    arguments: str | None = None


class _ToolCall(msgspec.Struct):
    id: str | None = None
    function: _Function | None = None


class _Content(msgspec.Struct):
    type: str | None = None
    text: str | None = None
    thinking: str | None = None


class _Message(msgspec.Struct):
    tool_plan: str | None = None
    # An object in tool-call and content events; message-start has lists.
    tool_calls: _ToolCall | list[Any] | None = None
    content: _Content | list[Any] | None = None


class _Tokens(msgspec.Struct):
    input_tokens: int | float | None = None
    output_tokens: int | float | None = None


class _Usage(msgspec.Struct):
    tokens: _Tokens | None = None
    billed_units: _Tokens | None = None
    cached_tokens: int | float | None = None


class _Delta(msgspec.Struct):
    message: _Message | None = None
    finish_reason: str | None = None
    usage: _Usage | None = None
    error: str | None = None


class _Event(msgspec.Struct):
    type: str = ""
    id: str | None = None  # message-start
    index: int = 0
    delta: _Delta | None = None
    message: Any = None  # only in an error body


FINISH_REASONS = {
    "COMPLETE": "stop",
    "STOP_SEQUENCE": "stop",
    "TOOL_CALL": "tool_calls",
    "MAX_TOKENS": "length",
    "ERROR": "error",
    "TIMEOUT": "error",
}

_ERROR_MESSAGES = {
    "ERROR": "the generation failed",
    "TIMEOUT": "the generation timed out",
}

# Every event type of the v2 chat stream, for recognizing one.
EVENT_TYPES = frozenset(
    {
        "message-start",
        "content-start",
        "content-delta",
        "content-end",
        "tool-plan-delta",
        "tool-call-start",
        "tool-call-delta",
        "tool-call-end",
        "citation-start",
        "citation-end",
        "message-end",
        "debug",
    }
)


def _count(value: int | float | None) -> int | None:
    return None if value is None else int(value)


def _usage(raw: _Usage | None) -> Usage | None:
    if raw is None:
        return None
    counts = raw.tokens or raw.billed_units
    prompt = _count(counts.input_tokens) if counts else None
    output = _count(counts.output_tokens) if counts else None
    cached = _count(raw.cached_tokens)
    if prompt is None and output is None and cached is None:
        return None
    total = None if prompt is None and output is None else (prompt or 0) + (output or 0)
    return Usage(input_tokens=prompt, output_tokens=output, total_tokens=total, cache_read_tokens=cached)


class CohereAdapter(Adapter):
    name = "cohere"
    title = "Cohere v2 chat"
    framing = "sse"
    view = _Event
    what = "Cohere event"

    __slots__ = ("_calls",)

    def __init__(self, emit: Emitter) -> None:
        super().__init__(emit)
        # tool-call index -> call (None: dropped past max_calls)
        self._calls: dict[int, Call | None] = {}

    @classmethod
    def recognizes(cls, name: str | None, obj: Any) -> bool:
        if not isinstance(obj, dict):
            return False
        kind = obj.get("type")
        return (isinstance(kind, str) and kind in EVENT_TYPES) or name in EVENT_TYPES  # a list is no type

    def claims(self, view: _Event, name: str | None) -> bool:
        kind = view.type or name
        return kind in EVENT_TYPES or (not kind and isinstance(view.message, str))

    def head(self, view: _Event, raw: Any) -> tuple[object, object]:
        return None, view.id

    def handle(self, event: _Event, name: str | None) -> None:
        kind = event.type or name or ""
        emit = self.emit
        delta = event.delta
        message = delta.message if delta is not None else None
        if kind == "tool-call-delta":
            tool_call = message.tool_calls if message is not None else None
            if isinstance(tool_call, _ToolCall) and tool_call.function is not None:
                arguments = tool_call.function.arguments
                if arguments:
                    self._arguments(event.index, arguments)
        elif kind in ("content-delta", "content-start"):
            content = message.content if message is not None else None
            if isinstance(content, _Content):
                if content.thinking:
                    emit.reasoning(content.thinking, "thinking")
                    self._apart_from_calls()
                if content.text:
                    emit.text(content.text)  # (an open reasoning block ends: see Emitter.text)
        elif kind == "tool-plan-delta":
            if message is not None and message.tool_plan:
                emit.reasoning(message.tool_plan, "tool_plan")
                self._apart_from_calls()
        elif kind == "tool-call-start":
            emit.reasoning_end()
            tool_call = message.tool_calls if message is not None else None
            if isinstance(tool_call, _ToolCall):
                self._start(event.index, tool_call)
        elif kind == "tool-call-end":
            emit.reasoning_end()
            call = self._calls.pop(event.index, None)
            if call is not None:
                emit.end(call)
        elif kind == "content-end":
            emit.reasoning_end()
            emit.text_end()
        elif kind == "message-end":
            self._finish(delta or _Delta())
        elif not kind and isinstance(event.message, str):
            emit.provider_error(event.message)
        # message-start, citations, debug and unknown types are ignored.

    def _arguments(self, index: int, arguments: str) -> None:
        if index not in self._calls:
            message = f"tool-call-delta for index {index}, which has no open call; ignored"
            self.emit.parse_error(message, arguments)
            return
        call = self._calls[index]
        if call is not None:
            self.feed_arguments(call, arguments)

    def _apart_from_calls(self) -> None:
        """A plan (or thinking) that came back after the calls began ends at once: a call's
        events never come inside a reasoning block."""
        if any(call is not None for call in self._calls.values()):
            self.emit.reasoning_end()

    def _start(self, index: int, tool_call: _ToolCall) -> None:
        emit = self.emit
        previous = self._calls.get(index)
        if previous is not None:
            emit.end(previous)  # a new call at an index whose end never came
        function = tool_call.function or _Function()
        call = emit.open(tool_call.id, function.name, "native")
        self._calls[index] = call
        if call is not None and function.arguments:
            self.feed_arguments(call, function.arguments)

    def _finish(self, delta: _Delta) -> None:
        emit = self.emit
        reason = delta.finish_reason
        if reason in _ERROR_MESSAGES:
            emit.provider_error(delta.error or _ERROR_MESSAGES[reason], reason)
        elif delta.error:
            emit.provider_error(delta.error, reason)
        normalized = FINISH_REASONS.get(reason, "stop") if reason else "stop"
        emit.finish(normalized, reason, _usage(delta.usage))

    def close(self) -> None:
        self.emit.end_of_input("message-end")
