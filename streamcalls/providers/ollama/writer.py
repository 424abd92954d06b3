"""The ``"ollama"`` target: Ollama's ``/api/chat`` stream, written from events.

NDJSON (``application/x-ndjson``), one chat response object a line, each with
``model`` (the stream's, or ``""``), ``created_at`` (the time the writer began,
RFC 3339 in UTC) and ``done``.  What each event writes:

- a text delta: a line ``{"message": {"role": "assistant", "content"}, "done":
  false}``; a reasoning delta: the same with ``"content": ""`` and ``thinking``
  (a run of them is one reasoning block; signatures, redacted and encrypted
  reasoning are not written: Ollama has no place for them);
- a call, at its completion (Ollama sends calls whole): a line whose message
  has ``tool_calls: [{"id", "function": {"index", "name", "arguments"}}]``,
  the arguments an object; argument fragments write nothing;
- a provider error: a line ``{"error": "..."}``, after a first line with an
  empty message if it would be the first (a body that begins with an error
  is an error body, whose next lines are not read); it ends Ollama's stream
  (its client raises on it): nothing after the first one is written but the
  finish's counts;
- the finish: the ``done: true`` line, with ``done_reason`` (Ollama's own word
  when the stream was Ollama's, else ``"length"`` for a cut-off and ``"stop"``
  for the rest) and the counts (``prompt_eval_count``, ``eval_count``) beside
  the durations.  A stream that ended in error with no counts has no
  ``done`` line: Ollama ends a stream that way, and the reader says
  ``"error"`` for it (a line with an empty message carries the model, if
  nothing else did).

A failed call is not written (Ollama has no place for a call without an
arguments object).
"""

from __future__ import annotations

import time
from types import MappingProxyType
from typing import Any

from ..._events import (
    ProviderError,
    StreamFinished,
    ToolCall,
    ToolCallFailed,
    Usage,
)
from ...writing import Block, Call, Stream, Target, register
from ...writing._carry import input_and_output
from ...writing._form import NOTHING, DeltaForm
from ...writing._sse import json as _json

__all__ = ("OllamaTarget", "done_fields", "done_reason", "rfc3339_now")

_DONE_WORDS = frozenset({"stop", "length", "load", "unload"})


def json(value: Any) -> bytes:
    """A value as JSON, as Go's encoder writes it for Ollama: U+2028 and U+2029 escaped.  (Legal raw in
    JSON, but line readers that split like ``str.splitlines`` -- httpx's ``iter_lines``, which
    Ollama's Python client reads with -- would cut a line there.)"""
    out = _json(value)
    if b"\xe2\x80" in out:
        out = out.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")
    return out


def rfc3339_now() -> str:
    """The time now, as Ollama writes ``created_at`` (RFC 3339, UTC, to the microsecond)."""
    now = time.time()
    seconds = int(now)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{int((now - seconds) * 1e6):06d}Z"


def done_reason(reason: str | None, provider: str | None, provider_reason: str | None) -> str:
    """The ``done_reason``: Ollama's own word on an Ollama stream, else ``"length"`` or ``"stop"``."""
    if provider == "ollama" and provider_reason in _DONE_WORDS:
        return provider_reason
    return "length" if reason == "length" else "stop"


def done_fields(usage: Usage | None) -> dict[str, int]:
    """The durations (none measured: 0) and the counts a ``done`` object carries."""
    fields = {"total_duration": 0, "load_duration": 0}
    given, made = (None, None) if usage is None else input_and_output(usage)
    if given is not None:
        fields["prompt_eval_count"] = given
    fields["prompt_eval_duration"] = 0
    if made is not None:
        fields["eval_count"] = made
    fields["eval_duration"] = 0
    return fields


@register
class OllamaTarget(Target):
    """Ollama's ``/api/chat`` chat response lines (NDJSON)."""

    name = "ollama"
    media_type = "application/x-ndjson"
    headers = MappingProxyType({"content-type": "application/x-ndjson"})
    cannot_carry = frozenset(
        {
            "argument_deltas",  # calls are written whole, at their completion ...
            "argument_text",  # ... their arguments an object, re-encoded
            "failed_calls",
            "finish.tool_calls",  # done_reason "stop": the calls say tool_calls
            "reasoning_blocks",  # thinking is one field: adjacent blocks read back as one
            "finish.content_filter",  # done_reason "stop"
            "usage.total_tokens",  # only the two counts: the reader adds them up
            "usage.reasoning_tokens",
            "usage.cache_read_tokens",
            "usage.cache_write_tokens",
            "cut_usage",  # an error with no provider error: no done line, so no counts
            "error_codes",  # {"error": "..."} holds the message only
            "after_error",  # an error line ends Ollama's stream
            "response_id",
        }
    )
    response_cannot_carry = frozenset({"part_order"})  # one content, one thinking, the calls

    __slots__ = ("_ended", "_head", "_text", "_thinking", "_wrote")

    def __init__(self, stream: Stream) -> None:
        super().__init__(stream)
        self._head = b""  # {"model":...,"created_at":...,
        self._text = b""  # the head of a content line, up to its text
        self._thinking = b""  # the head of a thinking line, up to its text
        self._ended = False  # an error line went out: the stream ended there
        self._wrote = False  # a line with the model went out

    def start(self) -> bytes:
        self._head = json({"model": self.stream.model or "", "created_at": rfc3339_now()})[:-1] + b","
        self._text = self._head + b'"message":{"role":"assistant","content":'
        self._thinking = self._head + b'"message":{"role":"assistant","content":"","thinking":'
        return b""

    def _line(self, record: dict[str, Any]) -> bytes:
        self._wrote = True
        return self._head + json(record)[1:] + b"\n"

    def _first_line(self) -> bytes:
        """A line with an empty message, if none went out: the model, and the start of a stream."""
        if self._wrote:
            return b""
        return self._line({"message": {"role": "assistant", "content": ""}, "done": False})

    def text_start(self, block: Block) -> bytes:
        # (its first text follows at once, through text(): the form holds from the second on)
        if not self._ended:
            block.form = DeltaForm(self._text, b'},"done":false}\n')
        return b""

    def text(self, block: Block, text: str) -> bytes:
        if self._ended:
            return b""
        self._wrote = True
        return self._text + json(text) + b'},"done":false}\n'

    def reasoning(self, block: Block, text: str) -> bytes:
        if self._ended:
            return b""
        self._wrote = True
        if block.form is None:  # (a block may have no text: the form holds once one was written)
            block.form = DeltaForm(self._thinking, b'},"done":false}\n')
        return self._thinking + json(text) + b'},"done":false}\n'

    def call_start(self, call: Call) -> bytes:
        call.form = NOTHING
        return b""

    def call_delta(self, call: Call, fragment: str) -> bytes:
        return b""  # Ollama sends a call whole: it is written at its completion

    def call_end(self, call: Call, completed: ToolCall) -> bytes:
        if self._ended:
            return b""
        function = {
            "index": call.index,
            "name": completed.name or call.name,
            "arguments": completed.arguments,
        }
        message = {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": call.id, "function": function}],
        }
        return self._line({"message": message, "done": False})

    def call_failed(self, call: Call, failed: ToolCallFailed) -> bytes:
        return b""

    def error(self, error: ProviderError) -> bytes:
        if self._ended:
            return b""
        self._ended = True
        return self._first_line() + json({"error": error.message}) + b"\n"

    def finish(self, finished: StreamFinished) -> bytes:
        ended = self._ended
        if finished.reason == "error" or ended:
            if not ended or finished.usage is None:
                # Cut off, or ended by its error line: no done line, as Ollama's stream (the reader
                # says "error" for a stream without one; a done line after no error would say "stop").
                return self._first_line() if self.stream.model else b""
        # (After an error line, "stop" reads as "error": the done line only carries the counts.)
        reason = (
            "stop" if ended else done_reason(finished.reason, self.stream.provider, finished.provider_reason)
        )
        message = {"role": "assistant", "content": ""}
        record = {"message": message, "done": True, "done_reason": reason, **done_fields(finished.usage)}
        return self._line(record)
