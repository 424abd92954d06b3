"""Anthropic Messages streams.

Wire format: SSE with ``event:`` names, and the same name as ``type`` in
each payload: ``message_start{message{usage}}``, then per content block
``content_block_start{index, content_block}`` (``text``, ``thinking``,
``tool_use{id, name, input: {}}``), ``content_block_delta{index, delta}``
(``text_delta``, ``thinking_delta``, ``input_json_delta.partial_json``,
``signature_delta``, ``citations_delta``), ``content_block_stop{index}``;
then ``message_delta{delta{stop_reason}, usage{output_tokens}}`` and
``message_stop``.  ``ping`` keeps the connection alive; ``error`` carries
``{error{type, message}}``.  There is no ``[DONE]``.  ``message_start``'s
message names the ``id`` and the ``model`` (the stream's start).

Each ``thinking`` block is one reasoning block: its ``thinking_delta`` text,
and the ``signature_delta`` that comes at its end (the SDK's
``SignatureDelta``) on its :class:`~streamcalls.ReasoningCompleted`.  A
``redacted_thinking`` block carries only ``data``, given at its start: a
block without text whose end carries it as ``redacted``.  With interleaved
thinking, blocks come between ``tool_use`` blocks, and so do their events.

A tool call completes when its ``partial_json`` closes, or at its block's
``content_block_stop`` (a no-argument tool sends only ``""``); text after
its closed JSON is reported on it (a ParseError), never a call.  Server-side
tools (``server_tool_use``, web search results) are run by Anthropic, not by
the caller, and are not reported as calls.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..._adapter import Adapter
from ..._call import OPEN, Call
from ..._events import Usage

__all__ = ("AnthropicAdapter",)


# View Structs: only the fields used.  They are decoded from JSON and dropped
# after use, so they can never be part of a reference cycle: gc=False keeps
# the garbage collector from tracking the ~7 of them each chunk allocates
# (decoding an OpenAI chunk: 0.65 -> 0.56 us).
class _Block(msgspec.Struct, gc=False):
    type: str = ""
    id: str | None = None
    name: str | None = None
    input: dict[str, Any] | None = None
    text: str | None = None
    thinking: str | None = None
    signature: str | None = None  # "" at a thinking block's start; a complete response's whole one
    data: str | None = None  # redacted_thinking


class _Delta(msgspec.Struct, gc=False):
    type: str = ""
    text: str | None = None
    partial_json: str | None = None
    thinking: str | None = None
    signature: str | None = None
    stop_reason: str | None = None


class _Usage(msgspec.Struct, gc=False):
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    cache_read_input_tokens: int | None = None


class _Message(msgspec.Struct, gc=False):
    id: str | None = None
    model: str | None = None
    usage: _Usage | None = None


class _Error(msgspec.Struct, gc=False):
    type: str | None = None
    message: str | None = None


class _Event(msgspec.Struct, gc=False):
    type: str = ""
    index: int = 0
    content_block: _Block | None = None
    delta: _Delta | None = None
    message: _Message | None = None
    usage: _Usage | None = None
    error: _Error | None = None


STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
}

# Every event type of the Messages stream, for telling its records from another provider's.
EVENT_TYPES = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
        "error",
    }
)

_TEXT = 0
_THINKING = 1
_IGNORED = 2


class AnthropicAdapter(Adapter):
    name = "anthropic"
    title = "Anthropic Messages"
    framing = "sse"
    view = _Event
    what = "Anthropic event"
    native_records = "anthropic"  # its common events have a native reader (streamcalls/_native)

    __slots__ = ("_blocks", "_call", "_call_index", "_calls", "_stop_reason", "_usage")

    def __init__(self, emit: Any) -> None:
        super().__init__(emit)
        # The open tool_use blocks' calls, by content block index: the last one started here
        # (blocks come one after another), any other in _calls (mangled input).
        self._call: Call | None = None
        self._call_index = -1
        self._calls: dict[int, Call] | None = None
        # The other open blocks' kinds (_TEXT/_THINKING/_IGNORED), by index; None while there
        # are none (a parser holding a call holds no dict for the text before it).
        self._blocks: dict[int, int] | None = None
        self._usage: _Usage | None = None  # the counts so far (made at the first)
        self._stop_reason: str | None = None

    def claims(self, view: _Event, name: str | None) -> bool:
        return (view.type or name) in EVENT_TYPES

    def head(self, view: _Event, raw: Any) -> tuple[object, object]:
        message = view.message
        return (message.model, message.id) if message is not None else (None, None)

    @classmethod
    def recognizes(cls, name: str | None, obj: Any) -> bool:
        if not isinstance(obj, dict):
            return False
        kind = obj.get("type")
        if kind == "message_start" or name == "message_start":
            return True
        return kind == "error" and isinstance(obj.get("error"), dict) and "type" in obj["error"]

    def handle(self, event: _Event, name: str | None) -> None:
        kind = event.type
        if kind == "content_block_delta":
            delta = event.delta
            if delta is None:
                return
            if delta.type == "input_json_delta":  # (most deltas: read here, a method call less)
                index = event.index
                call = self._call if index == self._call_index else self._other_call(index)
                text = delta.partial_json
                if call is not None and text:
                    if call.status == OPEN:  # feed_arguments' common case, inlined
                        rest = self.emit.feed(call, text)
                        if rest >= 0:
                            self.after_arguments(call, text[rest:])
                    else:
                        self.feed_arguments(call, text)
            else:
                self._delta(event.index, delta)
        elif kind == "content_block_start":
            self._block_start(event)
        elif kind == "content_block_stop":
            self._block_stop(event.index)
        elif kind == "message_start":
            if event.message is not None and event.message.usage is not None:
                self._add_usage(event.message.usage)
        elif kind == "message_delta":
            if event.delta is not None and event.delta.stop_reason:
                self._stop_reason = event.delta.stop_reason
            if event.usage is not None:
                self._add_usage(event.usage)
        elif kind == "message_stop":
            self._finish()
        elif kind == "error":
            error = event.error or _Error()
            self.emit.provider_error(error.message or "unknown error", error.type)
        # ping and unknown event types are ignored.

    def _delta(self, index: int, delta: _Delta) -> None:
        """A delta other than a call's arguments."""
        kind = delta.type
        block = None if self._blocks is None else self._blocks.get(index)
        if kind == "text_delta":
            if delta.text and block != _IGNORED:
                self.emit.text(delta.text)  # (an open reasoning block ends: see Emitter.text)
        elif kind == "thinking_delta":
            if delta.thinking and block == _THINKING:
                self.emit.reasoning(delta.thinking)
                self._apart_from_calls()
        elif kind == "signature_delta":
            if delta.signature and block == _THINKING:
                self.emit.reasoning_note(signature=delta.signature)
                self._apart_from_calls()

    def _apart_from_calls(self) -> None:
        """A thinking block that opened over a call whose block never stopped ends at once: a
        call's events never come inside a reasoning block."""
        if self._call is not None or self._calls:
            self.emit.reasoning_end()

    # -- the open blocks, by index ------------------------------------------------

    def _other_call(self, index: int) -> Call | None:
        calls = self._calls
        return None if calls is None else calls.get(index)

    def _add_call(self, index: int, call: Call) -> None:
        if index != self._call_index:
            calls = self._calls
            if self._call is not None:  # another call block is still open: it keeps its call
                if calls is None:
                    calls = self._calls = {}
                calls[self._call_index] = self._call
            if calls is not None:
                calls.pop(index, None)  # (a call block started again at its index: replaced)
                self._calls = calls or None
        self._call = call
        self._call_index = index

    def _pop_call(self, index: int) -> Call | None:
        if index == self._call_index:
            call = self._call
            self._call = None
            self._call_index = -1
            return call
        calls = self._calls
        if calls is None:
            return None
        call = calls.pop(index, None)
        self._calls = calls or None
        return call

    def _block_start(self, event: _Event) -> None:
        block = event.content_block
        if block is None:
            return
        kind = block.type
        index = event.index
        self.emit.reasoning_end()  # a thinking block whose content_block_stop never came
        if kind == "tool_use":
            call = self.emit.open(block.id, block.name, "native")
            if call is not None:
                if block.input:
                    call.initial = block.input
                self._add_call(index, call)
        elif kind == "text":
            self._block(index, _TEXT)
            if block.text:
                self.emit.text(block.text)
        elif kind in ("thinking", "redacted_thinking"):
            self._block(index, _THINKING)
            self.emit.reasoning_start(kind=kind)
            if block.thinking:
                self.emit.reasoning(block.thinking)
            # A complete response's signature, or a server that sends it whole; redacted data.
            self.emit.reasoning_note(signature=block.signature, redacted=block.data)
            self._apart_from_calls()
        else:
            self._block(index, _IGNORED)

    def _block(self, index: int, kind: int) -> None:
        if self._blocks is None:
            self._blocks = {}
        self._blocks[index] = kind

    def _block_stop(self, index: int) -> None:
        # A thinking block ends here, or (mangled input) one still open ends before anything else.
        self.emit.reasoning_end()
        call = self._pop_call(index)
        blocks = self._blocks
        kind = None
        if blocks is not None:
            kind = blocks.pop(index, None)
            self._blocks = blocks or None  # (an empty dict still holds its table)
        if call is not None:
            self.emit.end(call)
        elif kind == _TEXT:
            self.emit.text_end()

    def _add_usage(self, usage: _Usage) -> None:
        # message_start holds the input counts; message_delta's output_tokens
        # are cumulative, so the latest value wins.
        mine = self._usage
        if mine is None:
            mine = self._usage = _Usage()
        for field in (
            "input_tokens",
            "output_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        ):
            value = getattr(usage, field)
            if value is not None:
                setattr(mine, field, value)

    def _finish(self) -> None:
        raw = self._usage
        usage = None
        if raw is not None and (raw.input_tokens is not None or raw.output_tokens is not None):
            # Anthropic's input_tokens leave out cached tokens; the normalized
            # count is the whole prompt, as OpenAI's prompt_tokens is.
            prompt = None
            if raw.input_tokens is not None:
                prompt = raw.input_tokens + (raw.cache_read_input_tokens or 0)
                prompt += raw.cache_creation_input_tokens or 0
            usage = Usage(
                input_tokens=prompt,
                output_tokens=raw.output_tokens,
                total_tokens=(prompt or 0) + (raw.output_tokens or 0),
                cache_read_tokens=raw.cache_read_input_tokens,
                cache_write_tokens=raw.cache_creation_input_tokens,
            )
        reason = self._stop_reason
        self.emit.finish(STOP_REASONS.get(reason, "stop") if reason else "stop", reason, usage)

    def close(self) -> None:
        self.emit.end_of_input("message_stop")
