"""The ``"bedrock"`` target: a Bedrock ``ConverseStream`` response, as AWS event-stream messages.

Each event is one binary message (``application/vnd.amazon.eventstream``:
its prelude, headers and payload, each CRC-32 checked, as
:mod:`streamcalls.framing._eventstream` reads them) with the headers
``:event-type`` (the event's name in the ``ConverseStreamOutput`` union of
botocore's service model), ``:content-type: application/json`` and
``:message-type: event``, and the event's JSON as its payload.  What each
event writes:

- the start: ``messageStart{role: "assistant"}`` (the stream names no model
  or id);
- text: ``contentBlockDelta{contentBlockIndex, delta{text}}`` per delta, then
  ``contentBlockStop`` (a text block has no start event);
- reasoning, by the exact-turns rule (signed reasoning goes only to its own
  provider): ``delta{reasoningContent{text}}`` per delta; from a Bedrock
  stream (or one that names no provider) its ``signature`` and
  ``redactedContent`` (base64 in the JSON, as AWS sends a blob: a value that
  is not base64 is no blob's, and is not written) as the block's last
  deltas; from another provider, only the text of blocks that have text;
- a call: ``contentBlockStart{start{toolUse{toolUseId, name}}}`` (its id, or a
  generated ``tooluse_...``), ``delta{toolUse{input}}`` per argument fragment,
  ``contentBlockStop``.  The input is an object's JSON, so fragments are
  written once they open one; argument text that opens anything else (a JSON
  string holding the object) is held, and the decoded arguments are written
  in one delta when the call completes -- as they are for a call that
  completed with no fragment.  A failed call's block stops where it failed
  (after ``{`` if it wrote nothing: cut short, not empty);
- a provider error: an exception message (``:message-type: exception``,
  ``:exception-type``) with ``{"message"}``: the error's code when it is one of
  the stream's exceptions, else the one for its status; any other code goes
  in an error message (``:message-type: error``, ``:error-code``,
  ``:error-message``, no payload), which carries it as it is.  Either ends a
  Bedrock stream, and the target's: nothing after the first is written;
- the finish: ``messageStop{stopReason}`` (the provider's own word when it is
  one of Bedrock's, else ``end_turn``, ``tool_use``, ``max_tokens``,
  ``content_filtered``, or ``malformed_model_output`` for a stream that ended
  in error), then ``metadata{usage, metrics{latencyMs: 0}}`` when the stream
  sent usage (the input count without the cache reads and writes, which are
  apart).

Text, reasoning and calls are content blocks numbered from 0 in the order
they start; calls that overlap one another or text keep their own blocks
open, each delta naming its block's index.

What it cannot carry (:attr:`BedrockTarget.cannot_carry`): the model and the
response id (the stream names neither), a reasoning block's id and kind,
encrypted reasoning, Gemini's signatures, the argument text where it is not
an object's, the reasoning token count, an error without a code (it is
written as an exception, which has one), anything after an error, and so the
usage of a stream that ended in one.
"""

from __future__ import annotations

import base64
import binascii
import struct
import zlib
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

__all__ = (
    "STOP_REASONS",
    "BedrockTarget",
    "exception_type",
    "frame",
    "is_base64",
    "stop_reason",
    "wire_usage",
)

STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "guardrail_intervened": "content_filter",
    "content_filtered": "content_filter",
    "malformed_model_output": "error",
    "malformed_tool_use": "error",
}
"""Bedrock's stop reasons (the service model's ``StopReason``), and the finish reason each one is."""

_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "content_filter": "content_filtered",
    "error": "malformed_model_output",
}

# The exceptions of ConverseStreamOutput (botocore's service model), by the HTTP status each has there.
_EXCEPTIONS = {
    400: "validationException",
    424: "modelStreamErrorException",
    429: "throttlingException",
    500: "internalServerException",
    503: "serviceUnavailableException",
}
_KNOWN_EXCEPTIONS = frozenset(_EXCEPTIONS.values())
# What is not one of them, by the status a provider documents: an overloaded server is unavailable.
_BY_STATUS = {**_EXCEPTIONS, 529: "serviceUnavailableException"}


def stop_reason(reason: str, provider_reason: str | None) -> str:
    """Bedrock's ``stopReason`` for a finish: the provider's word if it is Bedrock's, else the reason's."""
    if provider_reason in STOP_REASONS:
        return provider_reason
    return _REASONS.get(reason, "end_turn")


def exception_type(error: ProviderError) -> str | None:
    """The exception a provider error is written as; None for a code that is not one (an error message)."""
    if error.code in _KNOWN_EXCEPTIONS:
        return error.code
    if error.code:
        return None
    return _BY_STATUS.get(error.status or 0, "modelStreamErrorException")


def wire_usage(usage: Usage | None) -> dict[str, int]:
    """The counts in Bedrock's ``TokenUsage`` names: ``inputTokens`` leave out the cache reads and
    writes (the reader adds them back); the three the API always sends are 0 if not sent."""
    usage = usage or Usage()
    read, wrote = usage.cache_read_tokens, usage.cache_write_tokens
    given, made = (count or 0 for count in input_and_output(usage))  # (a count the total tells)
    out = {
        "inputTokens": max(0, given - (read or 0) - (wrote or 0)),
        "outputTokens": made,
        "totalTokens": usage.total_tokens if usage.total_tokens is not None else given + made,
    }
    if read is not None:
        out["cacheReadInputTokens"] = read
    if wrote is not None:
        out["cacheWriteInputTokens"] = wrote
    return out


# -- the event-stream framing ---------------------------------------------------------------------------

_prelude = struct.Struct(">II")
_u32 = struct.Struct(">I")
_crc32 = zlib.crc32


_HEADER_MAX = 0xFFFF  # a string header's length is a u16


def is_base64(text: str) -> bool:
    """Is ``text`` base64 (how a JSON body holds a blob, such as redacted reasoning)?"""
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _header(name: bytes, value: bytes) -> bytes:
    """A string header (value type 7)."""
    return bytes((len(name),)) + name + b"\x07" + struct.pack(">H", len(value)) + value


def frame(headers: bytes, payload: bytes) -> bytes:
    """One event-stream message: prelude (total and headers length, their CRC), headers, payload, CRC."""
    prelude = _prelude.pack(16 + len(headers) + len(payload), len(headers))
    head = prelude + _u32.pack(_crc32(prelude)) + headers
    return head + payload + _u32.pack(_crc32(payload, _crc32(head)))


_JSON = _header(b":content-type", b"application/json")


def _event_headers(name: str) -> bytes:
    return _header(b":event-type", name.encode()) + _JSON + _header(b":message-type", b"event")


_START = _event_headers("contentBlockStart")
_DELTA = _event_headers("contentBlockDelta")
_STOP = _event_headers("contentBlockStop")


def _event(name: str, payload: dict[str, Any]) -> bytes:
    return frame(_event_headers(name), json(payload))


def _stop(index: int) -> bytes:
    return frame(_STOP, b'{"contentBlockIndex":%d}' % index)


def _delta_head(index: int, kind: bytes) -> bytes:
    """A delta payload's bytes before its value (a block's memo): ``kind`` is its path's start."""
    return b'{"contentBlockIndex":%d,"delta":{%s:' % (index, kind)


_TEXT = b'"text"'
_REASONING = b'"reasoningContent":{"text"'
_INPUT = b'"toolUse":{"input"'


@register
class BedrockTarget(Target):
    """Bedrock Converse's stream (``ConverseStream``), in AWS event-stream messages."""

    name = "bedrock"
    media_type = "application/vnd.amazon.eventstream"
    headers = MappingProxyType({"content-type": "application/vnd.amazon.eventstream"})
    call_id_prefix = "tooluse_"
    cannot_carry = frozenset(
        {
            "model",
            "response_id",
            "argument_text",
            "reasoning_names",
            "encrypted_reasoning",
            "text_signatures",
            "call_signatures",
            "usage.reasoning_tokens",
            "error_codes",
            "after_error",
            "error_usage",
        }
    )
    response_cannot_carry = frozenset({"finish_words", "redacted_apart", "no_usage"})

    __slots__ = ("_blocks", "_calls", "_ended", "_heads", "_held", "_own", "_reasoning")

    def __init__(self, stream: Stream) -> None:
        super().__init__(stream)
        self._blocks = 0  # content blocks begun
        self._calls: dict[int, int] = {}  # call index -> its content block's index
        self._heads: dict[int, bytes] = {}  # call index -> its delta payloads' head, until it opens an object
        self._held = ObjectGate()  # calls whose text has not opened an object yet
        self._reasoning: int | None = None  # the open reasoning block's content index, once written
        self._own = False  # the stream is Bedrock's: its signatures and redacted content go back
        self._ended = False  # an error ended the stream: nothing more is written

    def _next(self) -> int:
        index = self._blocks
        self._blocks = index + 1
        return index

    def start(self) -> bytes:
        self._own = self.stream.provider in (None, self.name)
        return _event("messageStart", {"role": "assistant"})

    # -- text ------------------------------------------------------------------------------------------

    def text_start(self, block: Block) -> bytes:
        if not self._ended:
            index = self._next()
            block.id = str(index)
            block.memo = _delta_head(index, _TEXT)
            block.form = DeltaForm(block.memo, b"}}", frame=_DELTA)
        return b""

    def text(self, block: Block, text: str) -> bytes:
        memo = block.memo  # b"" after an error
        return frame(_DELTA, memo + json(text) + b"}}") if memo else b""

    def text_end(self, block: Block, signature: str | None) -> bytes:
        return _stop(int(block.id)) if block.memo else b""

    # -- reasoning: a block is written once it has something to write ------------------------------------

    def reasoning_start(self, block: Block, started: ReasoningStarted) -> bytes:
        self._reasoning = None
        return b""

    def _reasoning_index(self, block: Block) -> int:
        index = self._reasoning
        if index is None:
            index = self._reasoning = self._next()
            block.memo = _delta_head(index, _REASONING)
            block.form = DeltaForm(block.memo, b"}}}", frame=_DELTA)
        return index

    def reasoning(self, block: Block, text: str) -> bytes:
        if self._ended:
            return b""
        self._reasoning_index(block)
        return frame(_DELTA, block.memo + json(text) + b"}}}")

    def reasoning_end(self, block: Block, completed: ReasoningCompleted) -> bytes:
        if self._ended:
            return b""
        out = b""
        if self._own:
            redacted = completed.redacted
            if redacted is not None and not is_base64(redacted):
                redacted = None  # not a blob's base64: not Bedrock's redacted content
            for key, value in (("signature", completed.signature), ("redactedContent", redacted)):
                if value is not None:
                    index = self._reasoning_index(block)
                    delta = {"contentBlockIndex": index, "delta": {"reasoningContent": {key: value}}}
                    out += frame(_DELTA, json(delta))
        written = self._reasoning
        self._reasoning = None
        return out if written is None else out + _stop(written)

    # -- calls: ``call.memo`` is the delta payloads' head once the argument text opened an object ----------

    def call_start(self, call: Call) -> bytes:
        if self._ended:
            return b""
        index = self._calls[call.index] = self._next()
        self._heads[call.index] = _delta_head(index, _INPUT)
        use = {"toolUseId": call.id, "name": call.name}
        return frame(_START, json({"contentBlockIndex": index, "start": {"toolUse": use}}))

    def call_delta(self, call: Call, fragment: str) -> bytes:
        memo = call.memo
        if memo:
            return frame(_DELTA, memo + json(fragment) + b"}}}")
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
        call.form = DeltaForm(memo, b"}}}", frame=_DELTA)
        return frame(_DELTA, memo + json(text) + b"}}}")

    def call_end(self, call: Call, completed: ToolCall) -> bytes:
        number = call.index
        head = self._heads.pop(number, None)
        if head is None:  # started after an error
            return b""
        self._held.forget(number)
        out = b""
        if not call.memo and completed.arguments:
            out = frame(_DELTA, head + json(completed.arguments_json) + b"}}}")
        return out + _stop(self._calls.pop(number))

    def call_failed(self, call: Call, failed: ToolCallFailed) -> bytes:
        """Its block stops where it failed, and the reader ends it on the fragments it got: failed where
        they are cut short -- ``{`` for one whose text opened no object, not a call without arguments --
        and completed where they are a whole object (no wire marks a call failed)."""
        number = call.index
        head = self._heads.pop(number, None)
        if head is None:  # started after an error
            return b""
        self._held.forget(number)
        last = b"" if call.memo else frame(_DELTA, head + b'"{"}}}')
        return last + _stop(self._calls.pop(number))

    # -- errors and the end ----------------------------------------------------------------------------

    def error(self, error: ProviderError) -> bytes:
        if self._ended:
            return b""
        self._ended = True
        name = exception_type(error)
        if name is None:
            code, message = error.code.encode(), error.message.encode()  # type: ignore[union-attr]
            if max(len(code), len(message)) <= _HEADER_MAX:
                headers = (
                    _header(b":error-code", code)
                    + _header(b":error-message", message)
                    + _header(b":message-type", b"error")
                )
                return frame(headers, b"")
            name = "modelStreamErrorException"  # too long for a header: the message in a payload
        headers = _header(b":exception-type", name.encode()) + _JSON + _header(b":message-type", b"exception")
        return frame(headers, json({"message": error.message}))

    def finish(self, finished: StreamFinished) -> bytes:
        if self._ended:
            return b""  # the exception ended the stream
        reason = stop_reason(finished.reason, finished.provider_reason)
        out = _event("messageStop", {"stopReason": reason})
        if finished.usage is not None:
            out += _event("metadata", {"usage": wire_usage(finished.usage), "metrics": {"latencyMs": 0}})
        return out
