"""The ``"ai-sdk"`` target: the Vercel AI SDK's UI message stream, what ``useChat`` reads.

Server-sent events, one JSON chunk per ``data:`` line, ended by ``data: [DONE]``
(the ``ai`` package: ``ui-message-stream/ui-message-chunks.ts`` holds the chunk
schemas, ``ui/process-ui-message-stream.ts`` how a client builds the message
from them, ``ui-message-stream-headers.ts`` the response headers, protocol
``v1``).  What each event writes:

- the start: ``start`` (``messageId``: the response id, where one is named),
  ``start-step``; each next stream of a tool loop is a step of the same
  message: ``start-step`` again;
- a text block: ``text-start``, a ``text-delta`` per delta, ``text-end``; a
  reasoning block: ``reasoning-start``, ``reasoning-delta``, ``reasoning-end``
  (ids ``text-N``, ``reasoning-N``: the block's number); a signature, a redacted
  or encrypted block goes in the end's ``providerMetadata.streamcalls``;
- a call: ``tool-input-start``, a ``tool-input-delta`` per argument fragment,
  ``tool-input-available`` with the decoded arguments as ``input``; a failed
  call ``tool-input-error`` (its raw text as ``input``, the reason as
  ``errorText``);
- a :class:`~streamcalls.ToolResult`: ``tool-output-available`` with its content
  as ``output`` (a string), or ``tool-output-error`` when ``is_error``;
- a provider error: ``error``, at once (the stream goes on);
- the finish: ``finish-step`` (an ``error`` first when the stream ended in error
  with no provider error, with the last parse error's message), then at
  ``close()`` ``finish`` (the last step's ``finishReason``; the usage, summed
  over the steps, in ``messageMetadata``) and ``[DONE]``: tool results, and
  the next steps, may come between them.
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
from ._sse import DONE, json, sse
from ._target import Block, Call, Stream, Target

__all__ = ("AiSdkTarget",)

_FINISH_REASONS = {
    "stop": "stop",
    "tool_calls": "tool-calls",
    "length": "length",
    "content_filter": "content-filter",
    "error": "error",
}
_START_STEP = sse({"type": "start-step"})
_FINISH_STEP = sse({"type": "finish-step"})


def _total(usages: list[Usage]) -> Usage:
    """The steps' counts added up (a count no step sent stays None)."""
    if len(usages) == 1:
        return usages[0]
    fields = Usage.__struct_fields__
    sums = [[getattr(usage, name) for usage in usages if getattr(usage, name) is not None] for name in fields]
    return Usage(*(sum(found) if found else None for found in sums))


def _usage(usage: Usage) -> dict[str, Any]:
    """The counts in the AI SDK's ``LanguageModelUsage`` names, those the stream sent."""
    out: dict[str, Any] = {}
    for key, value in (
        ("inputTokens", usage.input_tokens),
        ("outputTokens", usage.output_tokens),
        ("totalTokens", usage.total_tokens),
    ):
        if value is not None:
            out[key] = value
    cache = {
        key: value
        for key, value in (
            ("cacheReadTokens", usage.cache_read_tokens),
            ("cacheWriteTokens", usage.cache_write_tokens),
        )
        if value is not None
    }
    if cache:
        out["inputTokenDetails"] = cache
    if usage.reasoning_tokens is not None:
        out["outputTokenDetails"] = {"reasoningTokens": usage.reasoning_tokens}
    return out


@register
class AiSdkTarget(Target):
    """The Vercel AI SDK's UI message stream (protocol v1)."""

    name = "ai-sdk"
    headers = MappingProxyType(
        {
            "content-type": "text/event-stream",
            "cache-control": "no-cache",
            "x-vercel-ai-ui-message-stream": "v1",
            "x-accel-buffering": "no",
        }
    )

    steps = True

    __slots__ = ("_error_written", "_usages")

    def __init__(self, stream: Stream) -> None:
        super().__init__(stream)
        self._error_written = False  # an error chunk went out, in this step
        self._usages: list[Usage] = []  # each step's

    def step(self, started: StreamStarted) -> bytes:
        self._error_written = False
        return _START_STEP

    def start(self) -> bytes:
        head: dict[str, Any] = {"type": "start"}
        if self.stream.response_id is not None:
            head["messageId"] = self.stream.response_id
        return sse(head) + _START_STEP

    def text_start(self, block: Block) -> bytes:
        block.id = f"text-{block.number}"
        block.memo = b'data: {"type":"text-delta","id":' + json(block.id) + b',"delta":'
        block.form = DeltaForm(block.memo, b"}\n\n")
        return sse({"type": "text-start", "id": block.id})

    def text(self, block: Block, text: str) -> bytes:
        return block.memo + json(text) + b"}\n\n"

    def text_end(self, block: Block, signature: str | None) -> bytes:
        end: dict[str, Any] = {"type": "text-end", "id": block.id}
        if signature is not None:
            end["providerMetadata"] = {"streamcalls": {"signature": signature}}
        return sse(end)

    def reasoning_start(self, block: Block, started: ReasoningStarted) -> bytes:
        block.id = f"reasoning-{block.number}"
        block.memo = b'data: {"type":"reasoning-delta","id":' + json(block.id) + b',"delta":'
        block.form = DeltaForm(block.memo, b"}\n\n")
        return sse({"type": "reasoning-start", "id": block.id})

    def reasoning(self, block: Block, text: str) -> bytes:
        return block.memo + json(text) + b"}\n\n"

    def reasoning_end(self, block: Block, completed: ReasoningCompleted) -> bytes:
        end: dict[str, Any] = {"type": "reasoning-end", "id": block.id}
        kept = {
            key: value
            for key, value in (
                ("signature", completed.signature),
                ("redacted", completed.redacted),
                ("encrypted", completed.encrypted),
            )
            if value is not None
        }
        if kept:
            end["providerMetadata"] = {"streamcalls": kept}
        return sse(end)

    def call_start(self, call: Call) -> bytes:
        call.memo = b'data: {"type":"tool-input-delta","toolCallId":' + json(call.id) + b',"inputTextDelta":'
        call.form = DeltaForm(call.memo, b"}\n\n")
        return sse({"type": "tool-input-start", "toolCallId": call.id, "toolName": call.name})

    def call_delta(self, call: Call, fragment: str) -> bytes:
        return call.memo + json(fragment) + b"}\n\n"

    def call_end(self, call: Call, completed: ToolCall) -> bytes:
        return sse(
            {
                "type": "tool-input-available",
                "toolCallId": call.id,
                "toolName": call.name,
                "input": completed.arguments,
            }
        )

    def call_failed(self, call: Call, failed: ToolCallFailed) -> bytes:
        return sse(
            {
                "type": "tool-input-error",
                "toolCallId": call.id,
                "toolName": call.name,
                "input": failed.raw,
                "errorText": failed.error,
            }
        )

    def result(self, call: Call, result: ToolResult) -> bytes:
        if result.is_error:
            return sse({"type": "tool-output-error", "toolCallId": call.id, "errorText": result.content})
        return sse({"type": "tool-output-available", "toolCallId": call.id, "output": result.content})

    def error(self, error: ProviderError) -> bytes:
        self._error_written = True
        return sse({"type": "error", "errorText": error.message})

    def finish(self, finished: StreamFinished) -> bytes:
        if finished.usage is not None:
            self._usages.append(finished.usage)
        if finished.reason == "error" and not self._error_written:
            cause = self.stream.parse_error
            message = cause.message if cause is not None else "the stream ended in an error"
            return sse({"type": "error", "errorText": message}) + _FINISH_STEP
        return _FINISH_STEP

    def end(self) -> bytes:
        finished = self.stream.finished
        assert finished is not None  # (the writer finishes the stream before its end)
        finish: dict[str, Any] = {
            "type": "finish",
            "finishReason": _FINISH_REASONS.get(finished.reason, "other"),
        }
        if self._usages:
            finish["messageMetadata"] = {"usage": _usage(_total(self._usages))}
        return sse(finish) + DONE
