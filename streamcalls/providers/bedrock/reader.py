"""AWS Bedrock ``ConverseStream``.

Wire format: binary ``application/vnd.amazon.eventstream`` messages (see
:mod:`streamcalls.framing._eventstream`), each an event named by its
``:event-type`` header with a JSON payload:

- ``messageStart{role}``
- ``contentBlockStart{contentBlockIndex, start{toolUse{toolUseId, name}}}``
- ``contentBlockDelta{contentBlockIndex, delta}`` with ``delta{text}``,
  ``delta{toolUse{input: "<JSON fragment>"}}`` or
  ``delta{reasoningContent{text | signature | redactedContent}}``
- ``contentBlockStop{contentBlockIndex}``
- ``messageStop{stopReason}``
- ``metadata{usage{inputTokens, outputTokens, totalTokens,
  cacheReadInputTokens?, cacheWriteInputTokens?}, metrics{latencyMs}}``

Errors are exception messages (``throttlingException``,
``modelStreamErrorException``, ``internalServerException``,
``serviceUnavailableException``, ``validationException``, with a
``{"message"}`` payload) or header-only error messages; both become a
:class:`~streamcalls.ProviderError`.  Payloads may carry a random ``p``
padding field, which is ignored like every unknown field and event.

Each content block of ``reasoningContent`` deltas is one reasoning block
(``kind`` ``"reasoningText"``, or ``"redactedContent"`` when it opens with
that): its ``text`` deltas, then its ``signature`` and ``redactedContent``
(base64 in the JSON payload, bytes from boto3: written as base64; text that
is not base64 is reported, a ParseError, and ignored) on its end, at the
block's ``contentBlockStop``.  The stream names no model or id: its
start says only that it is Bedrock's.

boto3 hands the same events over already decoded, one key per event
(``{"contentBlockDelta": {...}}``): :meth:`BedrockAdapter.on_object` takes
those dicts, exceptions included, and treats them exactly as the bytes.

A call completes when its ``input`` fragments close their JSON, or at its
``contentBlockStop`` (a tool without parameters sends ``input: ""``, which
reads as ``{}``); text after its closed JSON is reported on it (a
ParseError), never a call.  ``metadata`` may come before or after
``messageStop``: calls end at ``messageStop``, and the stream's end is
reported once both have arrived, or at the end of input if ``metadata``
never comes.

A ``toolUse`` whose ``type`` is ``server_tool_use`` (Nova's
``nova_code_interpreter``: AWS runs it) is not a client call, and neither
is the ``toolResult`` block that follows it (``start{toolResult{toolUseId,
type, status}}``, then ``delta{toolResult: [{text | json}]}``): their
blocks are skipped, the text around them read.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Any

import msgspec

from ..._adapter import Adapter, as_mapping
from ..._call import Call
from ..._emitter import Emitter
from ..._events import Usage
from ...framing._eventstream import ERROR_RECORD

__all__ = ("EVENTS", "BedrockAdapter", "is_error")


class _ToolUseStart(msgspec.Struct, rename="camel"):
    tool_use_id: str | None = None
    name: str | None = None
    type: str | None = None  # "server_tool_use": run by AWS, not a client call


class _Start(msgspec.Struct, rename="camel"):
    tool_use: _ToolUseStart | None = None
    tool_result: Any = None  # a server tool's result: only its presence matters


class _BlockStart(msgspec.Struct, rename="camel"):
    content_block_index: int = 0
    start: _Start | None = None


class _ToolUseDelta(msgspec.Struct):
    input: str | dict[str, Any] | None = None


class _Reasoning(msgspec.Struct):
    text: str | None = None
    signature: str | None = None
    # base64 text in the JSON payload; the bytes themselves from boto3
    redacted_content: Any = msgspec.field(default=None, name="redactedContent")


class _Delta(msgspec.Struct, rename="camel"):
    text: str | None = None
    tool_use: _ToolUseDelta | None = None
    reasoning_content: _Reasoning | None = None


class _BlockDelta(msgspec.Struct, rename="camel"):
    content_block_index: int = 0
    delta: _Delta | None = None


class _BlockStop(msgspec.Struct, rename="camel"):
    content_block_index: int = 0


class _MessageStop(msgspec.Struct, rename="camel"):
    stop_reason: str | None = None


class _Usage(msgspec.Struct, rename="camel"):
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cache_read_input_tokens: int | None = None
    cache_write_input_tokens: int | None = None


class _Metadata(msgspec.Struct):
    usage: _Usage | None = None


class _Error(msgspec.Struct):
    message: str | None = None
    code: str | None = None  # only in ":error" records


class _Ignored(msgspec.Struct):
    pass


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

# A toolUse's ``type``: absent for the caller's own tools; anything else
# ("server_tool_use") is a tool the service runs itself.
_CLIENT_TOOL_USE = frozenset({None, "", "tool_use"})

EXCEPTIONS = frozenset(
    {
        "internalServerException",
        "modelStreamErrorException",
        "modelTimeoutException",
        "serviceUnavailableException",
        "throttlingException",
        "validationException",
    }
)
EVENTS = frozenset(
    {"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata"}
)


def is_error(name: str) -> bool:
    """Is an event-stream record of this name an error (a modelled exception, or ``:error``)?"""
    return name in EXCEPTIONS or name == ERROR_RECORD or name.lower().endswith("exception")


def _usage(raw: _Usage) -> Usage:
    # Bedrock's inputTokens leave out cache reads and writes (as Anthropic's
    # do); the normalized count is the whole prompt, as OpenAI's is.
    prompt = raw.input_tokens
    if raw.cache_read_input_tokens or raw.cache_write_input_tokens:
        prompt = (prompt or 0) + (raw.cache_read_input_tokens or 0) + (raw.cache_write_input_tokens or 0)
    return Usage(
        input_tokens=prompt,
        output_tokens=raw.output_tokens,
        total_tokens=raw.total_tokens,
        cache_read_tokens=raw.cache_read_input_tokens,
        cache_write_tokens=raw.cache_write_input_tokens,
    )


class BedrockAdapter(Adapter):
    name = "bedrock"
    title = "Bedrock ConverseStream"
    framing = "eventstream"

    __slots__ = (
        "_calls",
        "_handlers",
        "_metadata_seen",
        "_reasoning_block",
        "_server_blocks",
        "_stop_reason",
        "_text_blocks",
        "_usage",
    )

    def __init__(self, emit: Emitter) -> None:
        super().__init__(emit)
        self._calls: dict[int, Call] = {}  # content block index -> call
        self._text_blocks: set[int] = set()
        self._server_blocks: set[int] = set()  # a server tool's use or result
        self._reasoning_block: int | None = None  # the content block index of the open reasoning block
        self._stop_reason: str | None = None  # set by messageStop
        self._usage: Usage | None = None
        self._metadata_seen = False
        self._handlers: dict[str, tuple[type[Any], Callable[[Any], None]]] = {
            "contentBlockDelta": (_BlockDelta, self._block_delta),
            "contentBlockStart": (_BlockStart, self._block_start),
            "contentBlockStop": (_BlockStop, self._block_stop),
            "messageStart": (_Ignored, _nothing),
            "messageStop": (_MessageStop, self._message_stop),
            "metadata": (_Metadata, self._metadata),
        }

    @classmethod
    def recognizes(cls, name: str | None, obj: Any) -> bool:
        if name is not None:  # an event-stream record: its name is the event type
            return name in EVENTS or is_error(name)
        if not isinstance(obj, dict) or len(obj) != 1:
            return False
        key = next(iter(obj))
        return key in EVENTS or key in EXCEPTIONS

    # -- input -----------------------------------------------------------------

    def on_record(self, name: str | None, data: bytes) -> None:
        if name is None:
            return
        if not self.emit.started:
            if name not in EVENTS and not is_error(name) and self.foreign(name, data):
                return
            self._first(self.on_record, name, data)
            return
        handler = self._handlers.get(name)
        if handler is None and not is_error(name):
            return  # an event this adapter does not use
        if self._ended(name, data):
            return
        if handler is None and not data.strip():
            data = b"{}"  # an exception without a payload still reports its type
        view, method = handler or (_Error, self._error_of(name))
        event = self.decode_view(_decoders[view], data, f"Bedrock {name} event")
        if event is not None:
            method(event)

    def on_object(self, obj: Any) -> None:
        data = as_mapping(obj)
        if not isinstance(data, dict):
            self.emit.parse_error("a Bedrock event is a dict with one key, the event type", repr(obj)[:200])
            return
        if not self.emit.started:
            if not self.recognizes(None, data) and self.foreign(None, data):
                return
            self._first(self.on_object, data)
            return
        for name, body in data.items():
            handler = self._handlers.get(name)
            if handler is None and not is_error(name):
                continue
            if self._ended(name, repr(body)[:200]):
                continue
            view, method = handler or (_Error, self._error_of(name))
            event = self.convert_view(body, view, f"Bedrock {name} event")
            if event is not None:
                method(event)

    def _first(self, read: Callable[..., None], *record: Any) -> None:
        """The first record: the stream's start (Bedrock names no model or id), then the record."""
        self.emit.start(self.name)
        read(*record)
        self.emit.opened()

    def _ended(self, name: str, raw: bytes | str) -> bool:
        """After messageStop only metadata and errors are expected; after the end, nothing."""
        emit = self.emit
        if emit.finished or (self._stop_reason is not None and name != "metadata" and not is_error(name)):
            emit.after_end(raw)
            return True
        return False

    # -- events ------------------------------------------------------------------

    def _block_start(self, event: _BlockStart) -> None:
        start = event.start
        if start is None:
            return
        tool = start.tool_use
        if (tool is not None and tool.type not in _CLIENT_TOOL_USE) or start.tool_result is not None:
            self._server_blocks.add(event.content_block_index)
        elif tool is not None:
            self._end_reasoning()
            self.emit.text_end()
            call = self.emit.open(tool.tool_use_id, tool.name, "native")
            if call is not None:
                self._calls[event.content_block_index] = call

    def _block_delta(self, event: _BlockDelta) -> None:
        delta = event.delta
        if delta is None:
            return
        emit = self.emit
        index = event.content_block_index
        if delta.text:
            self._text_blocks.add(index)
            emit.text(delta.text)
        if delta.reasoning_content is not None:
            self._reasoning(index, delta.reasoning_content)
        tool = delta.tool_use
        if tool is not None and tool.input:
            call = self._calls.get(index)
            if call is not None:
                if isinstance(tool.input, str):
                    self.feed_arguments(call, tool.input)
                else:
                    emit.whole(call, tool.input)
            elif index not in self._server_blocks:
                emit.parse_error(f"tool input for content block {index}, which started no tool use; ignored")

    def _reasoning(self, index: int, reasoning: _Reasoning) -> None:
        emit = self.emit
        redacted = reasoning.redacted_content
        if isinstance(redacted, (bytes, bytearray)):  # from boto3: the blob itself
            redacted = base64.b64encode(redacted).decode("ascii")
        elif not isinstance(redacted, str):
            redacted = None
        elif not _is_base64(redacted):  # (no blob's JSON form: a writer could not send it back)
            emit.parse_error(
                f"redactedContent of content block {index} is not base64; ignored", redacted[:200]
            )
            redacted = None
        if index != self._reasoning_block or not emit.reasoning_open:
            emit.reasoning_start(kind="reasoningText" if redacted is None else "redactedContent")
            self._reasoning_block = index
        if reasoning.text:
            emit.reasoning(reasoning.text, emit.reasoning_kind)
        if reasoning.signature or redacted:
            emit.reasoning_note(signature=reasoning.signature, redacted=redacted)
        if self._calls:  # a call's events never come inside a reasoning block: it ends at once
            self._end_reasoning()

    def _end_reasoning(self) -> None:
        self._reasoning_block = None
        self.emit.reasoning_end()

    def _block_stop(self, event: _BlockStop) -> None:
        index = event.content_block_index
        if index == self._reasoning_block:
            self._end_reasoning()
            return
        if self.emit.reasoning_open:  # another block's end while a reasoning block is open
            self._end_reasoning()
        call = self._calls.pop(index, None)
        if call is not None:
            self.emit.end(call)
        elif index in self._server_blocks:
            self._server_blocks.discard(index)
        elif index in self._text_blocks:
            self._text_blocks.discard(index)
            self.emit.text_end()

    def _message_stop(self, event: _MessageStop) -> None:
        self._end_reasoning()
        self._stop_reason = event.stop_reason or ""
        self.emit.end_open()  # no call event may follow the end marker
        if self._metadata_seen:
            self._finish()

    def _metadata(self, event: _Metadata) -> None:
        self._metadata_seen = True
        if event.usage is not None:
            self._usage = _usage(event.usage)
        if self._stop_reason is not None:
            self._finish()

    def _error_of(self, name: str) -> Callable[[_Error], None]:
        def report(error: _Error) -> None:
            code = error.code if name == ERROR_RECORD else name
            self.emit.provider_error(error.message or code or "unknown error", code)

        return report

    # -- end ---------------------------------------------------------------------

    def _finish(self) -> None:
        reason = self._stop_reason or None
        normalized = STOP_REASONS.get(reason, "stop") if reason else "stop"
        self.emit.finish(normalized, reason, self._usage)

    def close(self) -> None:
        if self._stop_reason is not None:
            self._finish()  # metadata never came: finish without usage
        else:
            self.emit.end_of_input("messageStop")


def _nothing(event: Any) -> None:
    return None


_decoders: dict[type[Any], msgspec.json.Decoder[Any]] = {
    view: msgspec.json.Decoder(view)
    for view in (_BlockDelta, _BlockStart, _BlockStop, _Ignored, _MessageStop, _Metadata, _Error)
}


def _is_base64(text: str) -> bool:
    """Is ``text`` base64, as a JSON payload holds a blob?"""
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True
