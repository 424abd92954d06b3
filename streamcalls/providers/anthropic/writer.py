"""The ``"anthropic"`` target: an Anthropic Messages stream, as the API sends it.

Server-sent events, each named by an ``event:`` line and holding the same
name as its payload's ``type`` (the anthropic SDK's ``RawMessageStreamEvent``
types; no ``[DONE]``).  What each event writes:

- the start: ``message_start`` with the message (``id``: the response id or a
  generated ``msg_...``; ``model``: the model, ``""`` if none is named;
  ``content: []``; ``usage``: zeros, since the counts come with the finish);
- text: a ``text`` content block (``content_block_start``, a
  ``text_delta`` per delta, ``content_block_stop``);
- reasoning, by the exact-turns rule (signed reasoning goes only to its own
  provider): from an Anthropic stream (or one that names no provider, as
  :func:`~streamcalls.encode_turn` takes a turn), each block as it came -- a
  ``thinking`` block with a ``thinking_delta`` per delta and its signature in
  a ``signature_delta`` at its end, or a ``redacted_thinking`` block with its
  ``data`` (after the ``thinking`` block, for a block that had both: a block
  holds one or the other); from another provider, the text of each block that has text as a
  ``thinking`` block with no ``signature_delta`` (the SDK shows it with
  ``signature: ""``; Anthropic refuses such a block in a request, so a client
  that sends the turn back to Anthropic itself must drop it, as
  :func:`~streamcalls.encode_turn` does); another provider's signatures,
  redacted and encrypted reasoning are not written;
- a call: a ``tool_use`` block (its id, or a generated ``toolu_...``; ``input:
  {}``), an ``input_json_delta`` per argument fragment, ``content_block_stop``.
  ``input`` is an object, so fragments are written once they open one (``{``
  after any whitespace); argument text that opens anything else (a JSON string
  holding the object, as some servers stream it) is held, and the call's
  decoded arguments are written in one delta when it completes -- as they are
  for a call that completed with no fragment.  A failed call's block stops
  where it failed, and the reader ends it on the fragments it got (``{`` for
  one that wrote none: cut short, not empty).  Fragments go as the model wrote
  them: where a failed call's text stops being JSON (a text model's
  ``{"city": Paris}``), the anthropic SDK, which parses each prefix, raises;
- a provider error: ``event: error`` with ``{type: "error", error: {type,
  message}}`` -- the error's code when it is one of Anthropic's error types,
  else the type Anthropic documents for its status, else ``api_error``.  The
  API ends its stream there, and so does the target: nothing after the first
  error is written;
- the finish: ``message_delta`` (``stop_reason``: the provider's own word when
  it is one of Anthropic's, else ``end_turn``, ``tool_use``, ``max_tokens`` or
  ``refusal`` for the reason; the usage, cumulative as Anthropic's is: the
  input counts without the cached tokens, which are apart) and
  ``message_stop``.  A stream that ended in error with no stop reason of
  Anthropic's writes no end: Anthropic has no stop reason for an error, it
  ends its stream after the ``error`` event.

Text, reasoning and calls are content blocks numbered from 0 in the order
they start; calls that overlap one another or text keep their own blocks
open, each delta naming its block's index.

What it cannot carry (:attr:`AnthropicTarget.cannot_carry`): a reasoning
block's id and kind, redacted content on a block with text or a signature
(a block of its own, after it), encrypted reasoning, Gemini's signatures,
the argument text where it is not an object's, the reasoning and total
token counts, the absence of usage (the API always sends counts: 0), error
codes that are not Anthropic's, anything after an error, and the usage of a
stream that ended in error.
"""

from __future__ import annotations

from types import MappingProxyType
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
from ...writing._object_arguments import ObjectGate
from ...writing._sse import json

__all__ = ("STOP_REASONS", "AnthropicTarget", "error_type", "stop_reason", "wire_usage")

STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
}
"""Anthropic's stop reasons (the SDK's ``StopReason``), and the finish reason each one is."""

_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens", "content_filter": "refusal"}

# Anthropic's error types (its "Errors" page), and the one it documents for each status.
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
_KNOWN_TYPES = frozenset(_ERROR_TYPES.values())


def stop_reason(reason: str, provider_reason: str | None) -> str | None:
    """Anthropic's ``stop_reason`` for a finish: the provider's word if it is Anthropic's, else the
    reason's; None for ``"error"`` (Anthropic has none for it)."""
    if provider_reason in STOP_REASONS:
        return provider_reason
    return _REASONS.get(reason)


def error_type(error: ProviderError) -> str:
    """The ``error.type`` for a provider error: its code if Anthropic names it, else by its status."""
    if error.code in _KNOWN_TYPES:
        return error.code
    if error.status is not None:
        return _ERROR_TYPES.get(error.status, "api_error")
    return "api_error"


def wire_usage(usage: Usage | None) -> dict[str, int]:
    """The counts in Anthropic's names: ``input_tokens`` leave out the cached tokens (the reader adds
    them back); a count not sent is not written, except the two the API always sends (as 0)."""
    if usage is None:
        return {"input_tokens": 0, "output_tokens": 0}
    read, wrote = usage.cache_read_tokens, usage.cache_write_tokens
    given, made = input_and_output(usage)  # (no total on the wire: a count it tells is written)
    out = {"input_tokens": max(0, (given or 0) - (read or 0) - (wrote or 0))}
    if wrote is not None:
        out["cache_creation_input_tokens"] = wrote
    if read is not None:
        out["cache_read_input_tokens"] = read
    out["output_tokens"] = made or 0
    return out


def _event(name: bytes, payload: bytes) -> bytes:
    return b"event: " + name + b"\ndata: " + payload + b"\n\n"


def _block_start(index: int, block: dict[str, Any]) -> bytes:
    payload = {"type": "content_block_start", "index": index, "content_block": block}
    return _event(b"content_block_start", json(payload))


def _block_stop(index: int) -> bytes:
    return _event(b"content_block_stop", b'{"type":"content_block_stop","index":%d}' % index)


def _delta_head(index: int, kind: bytes, field: bytes) -> bytes:
    """The bytes of a delta record before its value (a block's memo)."""
    return (
        b'event: content_block_delta\ndata: {"type":"content_block_delta","index":%d,"delta":{"type":"%s","%s":'
        % (index, kind, field)
    )


_DELTA_TAIL = b"}}\n\n"


@register
class AnthropicTarget(Target):
    """Anthropic Messages' stream (``/v1/messages`` with ``stream: true``)."""

    name = "anthropic"
    headers = MappingProxyType({"content-type": "text/event-stream", "cache-control": "no-cache"})
    response_id_prefix = "msg_"
    call_id_prefix = "toolu_"
    cannot_carry = frozenset(
        {
            "argument_text",
            "reasoning_names",
            "redacted_apart",
            "encrypted_reasoning",
            "text_signatures",
            "call_signatures",
            "usage.total_tokens",
            "usage.reasoning_tokens",
            "no_usage",
            "error_codes",
            "after_error",
            "error_usage",
            "cut_usage",
        }
    )
    response_cannot_carry = frozenset({"finish_words"})

    __slots__ = ("_blocks", "_calls", "_ended", "_heads", "_held", "_own", "_thinking")

    def __init__(self, stream: Stream) -> None:
        super().__init__(stream)
        self._blocks = 0  # content blocks started
        self._calls: dict[int, int] = {}  # call index -> its content block's index
        self._heads: dict[int, bytes] = {}  # call index -> its delta records' head, until it opens an object
        self._held = ObjectGate()  # calls whose text has not opened an object yet
        self._thinking: int | None = None  # the open reasoning block's content index, once written
        self._own = False  # the stream is Anthropic's: its reasoning goes back as it came
        self._ended = False  # an error ended the stream: nothing more is written

    def _next(self) -> int:
        index = self._blocks
        self._blocks = index + 1
        return index

    def start(self) -> bytes:
        stream = self.stream
        self._own = stream.provider in (None, self.name)
        message: dict[str, Any] = {
            "id": stream.response_id,
            "type": "message",
            "role": "assistant",
            "model": stream.model or "",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": wire_usage(None),
        }
        return _event(b"message_start", json({"type": "message_start", "message": message}))

    # -- text ------------------------------------------------------------------------------------------

    def text_start(self, block: Block) -> bytes:
        if self._ended:
            return b""
        index = self._next()
        block.id = str(index)
        block.memo = _delta_head(index, b"text_delta", b"text")
        block.form = DeltaForm(block.memo, _DELTA_TAIL)
        return _block_start(index, {"type": "text", "text": ""})

    def text(self, block: Block, text: str) -> bytes:
        memo = block.memo  # b"" after an error
        return memo + json(text) + _DELTA_TAIL if memo else b""

    def text_end(self, block: Block, signature: str | None) -> bytes:
        return _block_stop(int(block.id)) if block.memo else b""

    # -- reasoning: a block is written once it has something to write ------------------------------------

    def reasoning_start(self, block: Block, started: ReasoningStarted) -> bytes:
        self._thinking = None
        return b""

    def _open_thinking(self, block: Block) -> bytes:
        index = self._thinking = self._next()
        block.memo = _delta_head(index, b"thinking_delta", b"thinking")
        block.form = DeltaForm(block.memo, _DELTA_TAIL)
        return _block_start(index, {"type": "thinking", "thinking": "", "signature": ""})

    def reasoning(self, block: Block, text: str) -> bytes:
        if self._thinking is None:
            if self._ended:
                return b""
            return self._open_thinking(block) + block.memo + json(text) + _DELTA_TAIL
        return block.memo + json(text) + _DELTA_TAIL

    def reasoning_end(self, block: Block, completed: ReasoningCompleted) -> bytes:
        """The thinking block stops, after its signature (Anthropic's stream's own); its redacted content
        (the same stream's) is a ``redacted_thinking`` block of its own -- after it, where the block had
        text or a signature too, since Anthropic's blocks hold one or the other."""
        if self._ended:
            return b""
        index = self._thinking
        self._thinking = None
        if not self._own:
            return b"" if index is None else _block_stop(index)
        out = b""
        signature, redacted = completed.signature, completed.redacted
        if index is None and signature is not None:  # a signature on no text
            out = self._open_thinking(block)
            index = self._thinking
            self._thinking = None
        if index is not None:
            if signature is not None:
                out += _delta_head(index, b"signature_delta", b"signature") + json(signature) + _DELTA_TAIL
            out += _block_stop(index)
        if redacted is not None:
            index = self._next()
            data = {"type": "redacted_thinking", "data": redacted}
            out += _block_start(index, data) + _block_stop(index)
        return out

    # -- calls: ``call.memo`` is the delta records' head once the argument text opened an object -------------

    def call_start(self, call: Call) -> bytes:
        if self._ended:
            return b""
        index = self._calls[call.index] = self._next()
        self._heads[call.index] = _delta_head(index, b"input_json_delta", b"partial_json")
        return _block_start(index, {"type": "tool_use", "id": call.id, "name": call.name, "input": {}})

    def call_delta(self, call: Call, fragment: str) -> bytes:
        memo = call.memo
        if memo:
            return memo + json(fragment) + _DELTA_TAIL
        return self._first_fragment(call, fragment)

    def _first_fragment(self, call: Call, fragment: str) -> bytes:
        """A fragment of a call whose text has not opened an object yet: written, with the whitespace
        before it, if it opens one; else held."""
        number = call.index
        if number not in self._heads:  # started after an error
            return b""
        text = self._held.first(number, fragment)
        if text is None:
            return b""
        memo = call.memo = self._heads[number]
        call.form = DeltaForm(memo, _DELTA_TAIL)
        return memo + json(text) + _DELTA_TAIL

    def call_end(self, call: Call, completed: ToolCall) -> bytes:
        number = call.index
        head = self._heads.pop(number, None)
        if head is None:  # started after an error
            return b""
        self._held.forget(number)
        out = b""
        if not call.memo and completed.arguments:
            out = head + json(completed.arguments_json) + _DELTA_TAIL
        return out + _block_stop(self._calls.pop(number))

    def call_failed(self, call: Call, failed: ToolCallFailed) -> bytes:
        """Its block stops where it failed, and the reader ends it on the fragments it got: failed where
        they are cut short -- ``{`` for one whose text opened no object, not a call without arguments --
        and completed where they are a whole object (no wire marks a call failed)."""
        number = call.index
        head = self._heads.pop(number, None)
        if head is None:  # started after an error
            return b""
        self._held.forget(number)
        last = b"" if call.memo else head + b'"{"' + _DELTA_TAIL
        return last + _block_stop(self._calls.pop(number))

    # -- errors and the end ----------------------------------------------------------------------------

    def error(self, error: ProviderError) -> bytes:
        if self._ended:
            return b""
        self._ended = True
        payload = {"type": "error", "error": {"type": error_type(error), "message": error.message}}
        return _event(b"error", json(payload))

    def finish(self, finished: StreamFinished) -> bytes:
        reason = stop_reason(finished.reason, finished.provider_reason)
        if reason is None or self._ended:  # an error: the stream ends where it broke
            return b""
        delta = {
            "type": "message_delta",
            "delta": {"stop_reason": reason, "stop_sequence": None},
            "usage": wire_usage(finished.usage),
        }
        return _event(b"message_delta", json(delta)) + _MESSAGE_STOP


_MESSAGE_STOP = _event(b"message_stop", b'{"type":"message_stop"}')
