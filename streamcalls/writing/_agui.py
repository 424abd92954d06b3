"""The ``"ag-ui"`` target: AG-UI events (protocol 1.0), as server-sent events.

One event per ``data:`` line, camelCase fields (the ``ag-ui-protocol``
package's models, generated from the protocol's JSON schema; the deprecated
``THINKING_*`` events left the protocol in 1.0, so reasoning is written as
``REASONING_*``).  What each event writes:

- the start: ``RUN_STARTED`` (``threadId``: the writer's ``thread_id`` or a
  generated one; ``runId``: the response id, or a generated ``run_...``);
- a text block: ``TEXT_MESSAGE_START`` (role ``assistant``), a
  ``TEXT_MESSAGE_CONTENT`` per delta, ``TEXT_MESSAGE_END``; each block is a
  message of its own (``msg_...``);
- a reasoning block: ``REASONING_START`` and ``REASONING_MESSAGE_START``, a
  ``REASONING_MESSAGE_CONTENT`` per delta, ``REASONING_MESSAGE_END``, a
  ``REASONING_ENCRYPTED_VALUE`` for an encrypted or redacted block, then
  ``REASONING_END``;
- a call: ``TOOL_CALL_START`` (``parentMessageId``: the text message before
  it, or one assistant message for the calls with no text before them), a
  ``TOOL_CALL_ARGS`` per fragment (a call that completed with no fragment gets
  its arguments' JSON in one), ``TOOL_CALL_END`` (a failed call's reason in its
  ``metadata.error``);
- a :class:`~streamcalls.ToolResult`: ``TOOL_CALL_RESULT`` (role ``tool``;
  ``metadata.isError`` when the tool failed);
- each next stream of a tool loop goes on in the same run (its text and calls
  are new messages);
- at ``close()``, after the results (nothing may follow a run's end):
  ``RUN_FINISHED`` (a usage entry per stream that sent one, the last stream's
  finish reason in ``metadata.finishReason``), or ``RUN_ERROR`` when a
  provider error came (its message; several are joined by a line break) or a
  stream ended in error.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from .._events import (
    ProviderError,
    ReasoningCompleted,
    ReasoningStarted,
    StreamFinished,
    StreamStarted,
    ToolCall,
    ToolCallFailed,
    Usage,
)
from .._results import ToolResult
from ._form import DeltaForm
from ._registry import register
from ._sse import json, sse
from ._target import Block, Call, Stream, Target

__all__ = ("AgUiTarget",)


def _usage(stream: Stream, usage: Usage) -> dict[str, Any]:
    """The counts as a ``TokenUsage`` entry (AG-UI's input total includes the cache counts, as ours does)."""
    entry: dict[str, Any] = {}
    for key, value in (
        ("provider", stream.provider),
        ("model", stream.model),
        ("inputTokens", usage.input_tokens),
        ("outputTokens", usage.output_tokens),
        ("totalTokens", usage.total_tokens),
        ("reasoningTokens", usage.reasoning_tokens),
        ("cachedInputTokens", usage.cache_read_tokens),
        ("cacheWriteInputTokens", usage.cache_write_tokens),
    ):
        if value is not None:
            entry[key] = value
    return entry


@register
class AgUiTarget(Target):
    """AG-UI events over server-sent events."""

    name = "ag-ui"
    headers = MappingProxyType({"content-type": "text/event-stream", "cache-control": "no-cache"})
    response_id_prefix = "run_"
    steps = True

    __slots__ = ("_cause", "_errors", "_parent", "_thread", "_usage")

    def __init__(self, stream: Stream) -> None:
        super().__init__(stream)
        self._thread = ""
        self._parent: str | None = None  # the assistant message the next call belongs to
        self._errors: list[ProviderError] = []
        self._cause: str | None = None  # why a stream that ended in error did, when no provider error says
        self._usage: list[dict[str, Any]] = []  # an entry per stream that sent its counts

    def _run(self) -> dict[str, Any]:
        return {"threadId": self._thread, "runId": self.stream.response_id}

    def start(self) -> bytes:
        self._thread = self.stream.thread_id or self.stream.new_id("thread_")
        return sse({"type": "RUN_STARTED", **self._run()})

    def step(self, started: StreamStarted) -> bytes:
        self._parent = None  # the next turn's calls belong to a message of their own
        return b""

    def text_start(self, block: Block) -> bytes:
        block.id = self._parent = self.stream.new_id("msg_")
        block.memo = b'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":' + json(block.id) + b',"delta":'
        block.form = DeltaForm(block.memo, b"}\n\n")
        return sse({"type": "TEXT_MESSAGE_START", "messageId": block.id, "role": "assistant"})

    def text(self, block: Block, text: str) -> bytes:
        return block.memo + json(text) + b"}\n\n"

    def text_end(self, block: Block, signature: str | None) -> bytes:
        return sse({"type": "TEXT_MESSAGE_END", "messageId": block.id})

    def reasoning_start(self, block: Block, started: ReasoningStarted) -> bytes:
        block.id = self.stream.new_id("msg_")
        block.memo = b'data: {"type":"REASONING_MESSAGE_CONTENT","messageId":' + json(block.id) + b',"delta":'
        block.form = DeltaForm(block.memo, b"}\n\n")
        return sse({"type": "REASONING_START", "messageId": block.id}) + sse(
            {"type": "REASONING_MESSAGE_START", "messageId": block.id, "role": "reasoning"}
        )

    def reasoning(self, block: Block, text: str) -> bytes:
        return block.memo + json(text) + b"}\n\n"

    def reasoning_end(self, block: Block, completed: ReasoningCompleted) -> bytes:
        out = sse({"type": "REASONING_MESSAGE_END", "messageId": block.id})
        sealed = completed.encrypted or completed.redacted
        if sealed:
            out += sse(
                {
                    "type": "REASONING_ENCRYPTED_VALUE",
                    "subtype": "message",
                    "entityId": block.id,
                    "encryptedValue": sealed,
                }
            )
        return out + sse({"type": "REASONING_END", "messageId": block.id})

    def call_start(self, call: Call) -> bytes:
        if self._parent is None:
            self._parent = self.stream.new_id("msg_")
        call.memo = b'data: {"type":"TOOL_CALL_ARGS","toolCallId":' + json(call.id) + b',"delta":'
        call.form = DeltaForm(call.memo, b"}\n\n")
        return sse(
            {
                "type": "TOOL_CALL_START",
                "toolCallId": call.id,
                "toolCallName": call.name,
                "parentMessageId": self._parent,
            }
        )

    def call_delta(self, call: Call, fragment: str) -> bytes:
        return call.memo + json(fragment) + b"}\n\n"

    def call_end(self, call: Call, completed: ToolCall) -> bytes:
        end = sse({"type": "TOOL_CALL_END", "toolCallId": call.id})
        if call.streamed:
            return end
        return self.call_delta(call, completed.arguments_json) + end

    def call_failed(self, call: Call, failed: ToolCallFailed) -> bytes:
        return sse({"type": "TOOL_CALL_END", "toolCallId": call.id, "metadata": {"error": failed.error}})

    def result(self, call: Call, result: ToolResult) -> bytes:
        record: dict[str, Any] = {
            "type": "TOOL_CALL_RESULT",
            "messageId": self.stream.new_id("msg_"),
            "toolCallId": call.id,
            "content": result.content,
            "role": "tool",
        }
        if result.is_error:
            record["metadata"] = {"isError": True}
        return sse(record)

    def error(self, error: ProviderError) -> bytes:
        self._errors.append(error)  # written at the end: nothing may follow a RUN_ERROR
        return b""

    def finish(self, finished: StreamFinished) -> bytes:
        if finished.usage is not None:
            self._usage.append(_usage(self.stream, finished.usage))
        if finished.reason == "error" and self._cause is None:
            cause = self.stream.parse_error
            self._cause = cause.message if cause is not None else "the stream ended in an error"
        return b""  # written at the end, after the results

    def end(self) -> bytes:
        finished = self.stream.finished
        assert finished is not None  # (the writer finishes the stream before its end)
        if self._errors or self._cause is not None:
            if self._errors:
                message = "\n".join(error.message for error in self._errors)
                code = next((error.code for error in self._errors if error.code), None)
            else:
                message, code = self._cause or "", None
            failed: dict[str, Any] = {"type": "RUN_ERROR", "message": message}
            if code is not None:
                failed["code"] = code
            if self._usage:
                failed["usage"] = self._usage
            return sse(failed)
        done: dict[str, Any] = {"type": "RUN_FINISHED", **self._run()}
        if self._usage:
            done["usage"] = self._usage
        done["metadata"] = {"finishReason": finished.reason}
        return sse(done)
