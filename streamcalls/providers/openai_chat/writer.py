"""The ``"openai"`` target: events written as an OpenAI Chat Completions stream (and its aliases').

Server-sent events, one ``chat.completion.chunk`` per ``data:`` line, ended by
``data: [DONE]``, as OpenAI and the compatible servers send them (the openai
SDK's ``ChatCompletionChunk`` and its stream helper's accumulation are the
shape).  Every chunk names the response's ``id``, ``created``, ``model`` and
choice 0; what each event writes is its ``delta``:

- the start: ``{"role": "assistant", "content": ""}``;
- text: ``content``, a chunk per delta;
- reasoning: plain text in ``reasoning_content`` (DeepSeek's, vLLM's,
  llama.cpp's field), or -- for OpenAI-compatible servers' own streams -- in
  the field it came in: ``reasoning`` (OpenRouter, Groq), or OpenRouter's
  ``reasoning_details`` entries (``reasoning.text``, ``reasoning.summary``,
  ``reasoning.encrypted``: one ``index`` per block, its ``id`` and ``format`` on
  the first entry, its ``signature`` or encrypted ``data`` on the block's last);
- a call: a ``tool_calls`` fragment with its ``index`` (0, 1, 2, ... in the
  order the calls start), ``id``, ``type`` and ``function.name`` (arguments
  ``""``) when it starts, one with its ``index`` and ``function.arguments`` per
  argument fragment; at its end nothing, or its arguments whole if no
  fragment came (no wire of this format marks a call failed: a failed call's
  arguments are as far as they came);
- a provider error: ``{"error": {message, type, param, code}}``, OpenAI's own
  error object, in a chunk of its own where it comes (the stream goes on);
- the finish: a chunk with ``finish_reason`` (``stop``, ``tool_calls``,
  ``length``, ``content_filter``; ``error`` for a stream that ended in error,
  which some servers send; the provider's own word for its own streams), then,
  with usage, the usage chunk (``choices: []``; ``usage`` with the three counts
  ``CompletionUsage`` requires -- one not sent is what the other two tell, else
  0 -- and the details sent: ``prompt_tokens_details.cached_tokens`` and
  ``cache_write_tokens``, ``completion_tokens_details.reasoning_tokens``),
  then ``[DONE]``.
"""

from __future__ import annotations

import time
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
from ...writing._form import DeltaForm
from ...writing._sse import DONE, json, sse

__all__ = ("DETAIL_TEXT", "OpenAIChatTarget", "chat_usage", "finish_word", "usage_counts")

# The reasoning fields a chat delta carries plain text in, by the kind the parser names them.
_FIELDS = {"reasoning_content": "reasoning_content", "reasoning": "reasoning"}
DETAIL_TEXT = {"reasoning.text": "text", "reasoning.summary": "summary", "reasoning.encrypted": "text"}
"""OpenRouter's ``reasoning_details`` entry types, and the member that holds each one's text."""

_WORDS = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "length": "length",
    "content_filter": "content_filter",
    "error": "error",
}
_READ_AS = {  # what the reader makes of each word a chat stream may send (its FINISH_REASONS)
    **_WORDS,
    "function_call": "tool_calls",
    "abort": "error",
}


def finish_word(finished: StreamFinished, own: bool) -> str:
    """The ``finish_reason`` for a finish: the provider's own word for its own stream, where the
    reader takes it back to the same reason; else OpenAI's."""
    word = finished.provider_reason
    if own and word is not None and _READ_AS.get(word) == finished.reason:
        return word
    return _WORDS.get(finished.reason, "stop")


def usage_counts(usage: Usage) -> tuple[int, int, int]:
    """The input, output and total counts, as OpenAI's usage objects require all three: a count not
    sent is what the other two tell (the total is the input and output together), else 0."""
    given, made, total = usage.input_tokens, usage.output_tokens, usage.total_tokens
    if total is None:
        total = (given or 0) + (made or 0)
    elif given is None and made is not None:
        given = total - made
    elif made is None and given is not None:
        made = total - given
    return given or 0, made or 0, total


def chat_usage(usage: Usage) -> dict[str, Any]:
    """The counts in Chat Completions' ``usage`` names: the three ``CompletionUsage`` requires (see
    :func:`usage_counts`), and the details that were sent."""
    given, made, total = usage_counts(usage)
    out: dict[str, Any] = {"prompt_tokens": given, "completion_tokens": made, "total_tokens": total}
    cache = {
        key: value
        for key, value in (
            ("cached_tokens", usage.cache_read_tokens),
            ("cache_write_tokens", usage.cache_write_tokens),
        )
        if value is not None
    }
    if cache:
        out["prompt_tokens_details"] = cache
    if usage.reasoning_tokens is not None:
        out["completion_tokens_details"] = {"reasoning_tokens": usage.reasoning_tokens}
    return out


@register
class OpenAIChatTarget(Target):
    """OpenAI Chat Completions' stream."""

    name = "openai"
    response_id_prefix = "chatcmpl-"
    call_id_prefix = "call_"
    cannot_carry = frozenset(
        {
            "reasoning_blocks",
            "reasoning_names",
            "redacted_reasoning",
            "text_signatures",
            "call_signatures",
        }
    )
    response_cannot_carry = frozenset({"part_order"})

    __slots__ = ("_calls", "_detail", "_details", "_head", "_own", "_tail")

    def __init__(self, stream: Stream) -> None:
        super().__init__(stream)
        self._head = b""  # every chunk's start, up to its delta
        self._tail = b',"finish_reason":null}]}\n\n'
        self._own = False  # the stream is an OpenAI-compatible server's: its own fields go back
        self._details = 0  # reasoning_details entries' index: one per block
        self._detail = b""  # the open block's entry head: its type and index
        self._calls = 0  # the calls' index on the wire: one per call, in the order they start

    def _chunk(self, delta: bytes) -> bytes:
        return self._head + delta + self._tail

    def start(self) -> bytes:
        stream = self.stream
        self._own = stream.provider == self.name
        head = {
            "id": stream.response_id,
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": stream.model or "",
        }
        self._head = b"data: " + json(head)[:-1] + b',"choices":[{"index":0,"delta":'
        return self._chunk(b'{"role":"assistant","content":""}')

    # -- text --------------------------------------------------------------------------------

    def text_start(self, block: Block) -> bytes:
        block.form = DeltaForm(self._head + b'{"content":', b"}" + self._tail)
        return b""

    def text(self, block: Block, text: str) -> bytes:
        return self._head + b'{"content":' + json(text) + b"}" + self._tail

    # -- reasoning ---------------------------------------------------------------------------

    def reasoning_start(self, block: Block, started: ReasoningStarted) -> bytes:
        kind = started.kind
        if self._own and kind in DETAIL_TEXT:  # OpenRouter's entries: one index per block
            block.id = kind
            entry: dict[str, Any] = {"type": kind, "index": self._details}
            self._detail = json(entry)[:-1]
            if started.id is not None:
                entry["id"] = started.id
            if started.format is not None:
                entry["format"] = started.format
            block.memo = json(entry)[:-1]  # the first entry names the block's id and format
            self._details += 1
        else:
            field = _FIELDS.get(kind, "reasoning_content") if self._own and kind else "reasoning_content"
            block.memo = b'{"' + field.encode() + b'":'
            block.form = DeltaForm(self._head + block.memo, b"}" + self._tail)
        return b""

    def reasoning(self, block: Block, text: str) -> bytes:
        if not block.id:
            return self._head + block.memo + json(text) + b"}" + self._tail
        member = b',"summary":' if block.id == "reasoning.summary" else b',"text":'
        delta = b'{"reasoning_details":[' + block.memo + member + json(text) + b"}]}"
        if block.form is None:  # (the entries after the first are alike)
            block.form = DeltaForm(
                self._head + b'{"reasoning_details":[' + self._detail + member, b"}]}" + self._tail
            )
        block.memo = self._detail
        return self._chunk(delta)

    def reasoning_end(self, block: Block, completed: ReasoningCompleted) -> bytes:
        if not self._own or (completed.signature is None and completed.encrypted is None):
            return b""
        if block.id:
            entry = block.memo
        else:  # plain text, then what seals it: an entry of its own
            kind = "reasoning.encrypted" if completed.encrypted is not None else "reasoning.text"
            entry = json({"type": kind, "index": self._details})[:-1]
            self._details += 1
        if completed.signature is not None:
            entry += b',"signature":' + json(completed.signature)
        if completed.encrypted is not None:
            entry += b',"data":' + json(completed.encrypted)
        return self._chunk(b'{"reasoning_details":[' + entry + b"}]}")

    # -- calls -------------------------------------------------------------------------------

    def call_start(self, call: Call) -> bytes:
        index = self._calls
        self._calls += 1
        call.memo = b'{"tool_calls":[{"index":' + str(index).encode() + b',"function":{"arguments":'
        call.form = DeltaForm(self._head + call.memo, b"}}]}" + self._tail)
        first = {
            "index": index,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        return self._chunk(b'{"tool_calls":[' + json(first) + b"]}")

    def call_delta(self, call: Call, fragment: str) -> bytes:
        return self._head + call.memo + json(fragment) + b"}}]}" + self._tail

    def call_end(self, call: Call, completed: ToolCall) -> bytes:
        if call.streamed or not completed.arguments:
            return b""
        return self.call_delta(call, completed.arguments_json)  # a call that came whole

    def call_failed(self, call: Call, failed: ToolCallFailed) -> bytes:
        return b""

    # -- errors and the end --------------------------------------------------------------------

    def error(self, error: ProviderError) -> bytes:
        body = {"message": error.message, "type": error.code, "param": None, "code": error.code}
        return sse({"error": body})

    def finish(self, finished: StreamFinished) -> bytes:
        word = finish_word(finished, self._own)
        out = self._head + b"{}" + b',"finish_reason":' + json(word) + b"}]}\n\n"
        if finished.usage is not None:
            head = self._head[: self._head.rindex(b',"choices":')]
            out += head + b',"choices":[],"usage":' + json(chat_usage(finished.usage)) + b"}\n\n"
        return out + DONE
