"""The ``"gemini"`` target: Gemini's ``streamGenerateContent?alt=sse`` stream, written from events.

Server-sent events, one ``data:`` line per ``GenerateContentResponse`` chunk,
no event names and no ``[DONE]`` (the stream ends with its last chunk).  Every
chunk holds one part in ``candidates[0].content.parts`` and names the stream:
``modelVersion`` (the model, where one is known) and ``responseId`` (the
stream's, or a generated one).  What each event writes:

- a text delta: a ``{"text"}`` part; a reasoning delta: a ``{"text",
  "thought": true}`` part (a run of them is one reasoning block);
- a call, at its completion (Gemini sends calls whole): a
  ``{"functionCall": {"id", "name", "args"}}`` part, with the call's
  ``thoughtSignature`` beside it when it has one (only Gemini signs calls);
  argument fragments write nothing;
- Gemini's own signatures, only on a stream that was Gemini's
  (:class:`~streamcalls.StreamStarted`'s provider): a signed reasoning block
  ends with a ``{"thought": true, "thoughtSignature"}`` part, a
  :class:`~streamcalls.TextSignature` is a ``{"text": "", "thoughtSignature"}``
  part; another provider's signatures, redacted and encrypted reasoning are
  not written;
- a provider error: an ``{"error": {"code", "message", "status"}}`` chunk
  (``google.rpc.Status``: the HTTP status, the message, the error's code),
  which ends Gemini's stream (its SDK raises on it): nothing after the first
  one is written but the finish's counts;
- the finish: a chunk whose candidate has the ``finishReason`` (Gemini's own
  word when the stream was Gemini's, else the reason's: ``STOP``,
  ``MAX_TOKENS``, ``SAFETY``, ``OTHER`` for an error) and the
  ``usageMetadata``; a prompt Gemini blocked is a ``promptFeedback``
  ``blockReason`` instead.  After an error chunk the finish is written only
  to carry the counts (or Gemini's own word), with a word that reads as an
  error; with neither, the stream ends with its error chunk, as Gemini's does.

A failed call is not written (Gemini has no place for a call without an
arguments object); one Gemini failed itself, with ``MALFORMED_FUNCTION_CALL``
or ``UNEXPECTED_TOOL_CALL``, comes back with its finish word and message.
"""

from __future__ import annotations

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
from ..._statuses import documented_status
from ...writing import Block, Call, Stream, Target, register
from ...writing._form import NOTHING, DeltaForm
from ...writing._sse import json

__all__ = ("GeminiTarget", "finish_word", "usage_metadata")

# The finish words Gemini sends, and the reason each reads as (the reader's table, by its words).
_WORDS = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "LANGUAGE": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
    "IMAGE_PROHIBITED_CONTENT": "content_filter",
    "IMAGE_RECITATION": "content_filter",
    "MALFORMED_FUNCTION_CALL": "error",
    "UNEXPECTED_TOOL_CALL": "error",
    "TOO_MANY_TOOL_CALLS": "error",
    "OTHER": "error",
}
# A reason in Gemini's words, where the stream's provider gave none of Gemini's.
_REASONS = {"stop": "STOP", "tool_calls": "STOP", "length": "MAX_TOKENS", "content_filter": "SAFETY"}
# The finishes whose failure or error the reader makes from the finish word and its message.
_BAD_CALL = ("MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL")
_TOO_MANY = "TOO_MANY_TOOL_CALLS"
_FAILED_BY_GEMINI = "Gemini finished with "

_PARTS = b'data: {"candidates":[{"content":{"parts":['
_TEXT = _PARTS + b'{"text":'

# google.rpc.Code names by HTTP status, for an error that came with a status and no code.
_STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "UNIMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def finish_word(reason: str | None, provider: str | None, provider_reason: str | None) -> str:
    """The ``finishReason`` for a finish: Gemini's own word on a Gemini stream, else the reason's."""
    if provider == "gemini" and provider_reason in _WORDS:
        return provider_reason
    return _REASONS.get(reason or "stop", "OTHER")


def usage_metadata(usage: Usage) -> dict[str, int]:
    """The counts as ``usageMetadata``: Gemini counts the thoughts apart from the candidates."""
    metadata: dict[str, int] = {}
    output, thoughts = usage.output_tokens, usage.reasoning_tokens
    if output is not None and thoughts is not None and thoughts <= output:
        output -= thoughts
    else:
        thoughts = None  # (more thoughts than output: not a count Gemini could send)
    for key, value in (
        ("promptTokenCount", usage.input_tokens),
        ("candidatesTokenCount", output),
        ("totalTokenCount", usage.total_tokens),
        ("thoughtsTokenCount", thoughts),
        ("cachedContentTokenCount", usage.cache_read_tokens),
    ):
        if value is not None:
            metadata[key] = value
    return metadata


def error_status(error: ProviderError) -> dict[str, Any]:
    """A provider error as ``google.rpc.Status``: ``code`` (HTTP), ``message``, ``status`` (the code)."""
    status = error.status if error.status is not None else documented_status(error.code)
    name = error.code if error.code is not None else _STATUS_NAMES.get(status or 500, "UNKNOWN")
    return {"code": status or 500, "message": error.message, "status": name}


@register
class GeminiTarget(Target):
    """Gemini's ``GenerateContentResponse`` chunks over server-sent events."""

    name = "gemini"
    response_id_prefix = ""  # Gemini's ids are bare: 24 hex digits when none was named
    cannot_carry = frozenset(
        {
            "argument_deltas",  # calls are written whole, at their completion ...
            "argument_text",  # ... their arguments re-encoded from the decoded object
            "failed_calls",
            "finish.tool_calls",  # STOP: the calls say tool_calls
            "reasoning_blocks",  # a run of thought parts is one block, up to a signed one
            "usage.reasoning_tokens",  # thoughts are part of the output: more of them (counted apart, as
            # by Gemini's OpenAI-compatible endpoint) cannot be written
            "usage.cache_write_tokens",
            "error_codes",  # an error with no code gets Google's name for its status
            "after_error",  # an error chunk ends Gemini's stream
        }
    )

    __slots__ = ("_bad_call", "_ended", "_head", "_own", "_tail", "_too_many", "_wrote")

    def __init__(self, stream: Stream) -> None:
        super().__init__(stream)
        self._head = b""  # the chunk's names: ,"modelVersion":...,"responseId":...
        self._tail = b""  # what closes a one-part chunk
        self._own = False  # the stream is Gemini's: its signatures go back
        self._wrote = False  # a chunk went out
        self._ended = False  # an error chunk went out: the stream ended there
        self._bad_call: str | None = None  # the error of a call Gemini failed itself, for its finish
        self._too_many: ProviderError | None = None  # Gemini's TOO_MANY_TOOL_CALLS, for its finish

    def start(self) -> bytes:
        stream = self.stream
        self._own = stream.provider == "gemini"
        names: dict[str, str] = {}
        if stream.model is not None:
            names["modelVersion"] = stream.model
        if stream.response_id is not None:
            names["responseId"] = stream.response_id
        self._head = json(names)[1:-1]
        if self._head:
            self._head = b"," + self._head
        self._tail = b'],"role":"model"},"index":0}]' + self._head + b"}\n\n"
        return b""

    def _chunk(self, record: dict[str, Any]) -> bytes:
        self._wrote = True
        names = self._head
        return b"data: " + json(record)[:-1] + names + b"}\n\n"

    def _part(self, part: dict[str, Any]) -> bytes:
        self._wrote = True
        return _PARTS + json(part) + self._tail

    # -- text and reasoning ----------------------------------------------------------------------------

    def text_start(self, block: Block) -> bytes:
        # (its first text follows at once, through text(): the form holds from the second on)
        if not self._ended:
            block.form = DeltaForm(_TEXT, b"}" + self._tail)
        return b""

    def text(self, block: Block, text: str) -> bytes:
        if self._ended:
            return b""
        self._wrote = True
        return _TEXT + json(text) + b"}" + self._tail

    def text_end(self, block: Block, signature: str | None) -> bytes:
        return b"" if signature is None else self.text_signature(signature)

    def text_signature(self, signature: str) -> bytes:
        if not self._own or self._ended:
            return b""
        return self._part({"text": "", "thoughtSignature": signature})

    def reasoning_start(self, block: Block, started: ReasoningStarted) -> bytes:
        return b""

    def reasoning(self, block: Block, text: str) -> bytes:
        if self._ended:
            return b""
        self._wrote = True
        if block.form is None:  # (a block may have no text: the form holds once one was written)
            block.form = DeltaForm(_TEXT, b',"thought":true}' + self._tail)
        return _TEXT + json(text) + b',"thought":true}' + self._tail

    def reasoning_end(self, block: Block, completed: ReasoningCompleted) -> bytes:
        if completed.signature is None or not self._own or self._ended:
            return b""
        return self._part({"thought": True, "thoughtSignature": completed.signature})

    # -- calls -----------------------------------------------------------------------------------------

    def call_start(self, call: Call) -> bytes:
        call.form = NOTHING
        return b""

    def call_delta(self, call: Call, fragment: str) -> bytes:
        return b""  # Gemini sends a call whole: it is written at its completion

    def call_end(self, call: Call, completed: ToolCall) -> bytes:
        if self._ended:
            return b""
        part: dict[str, Any] = {
            "functionCall": {"id": call.id, "name": completed.name or call.name, "args": completed.arguments}
        }
        if completed.thought_signature is not None:  # Gemini's, whichever wire brought it
            part["thoughtSignature"] = completed.thought_signature
        return self._part(part)

    def call_failed(self, call: Call, failed: ToolCallFailed) -> bytes:
        if self._own and failed.error.startswith(_FAILED_BY_GEMINI):
            self._bad_call = failed.error  # Gemini's own: its finish says it again
        return b""

    # -- errors and the end ----------------------------------------------------------------------------

    def error(self, error: ProviderError) -> bytes:
        if self._ended:
            return b""
        if self._own and error.code == _TOO_MANY and self._too_many is None:
            self._too_many = error  # Gemini's finish word says it (the reader makes the error from it)
            return b""
        return self._error(error)

    def _error(self, error: ProviderError) -> bytes:
        out = b""
        if not self._wrote and self.stream.provider is not None:
            # An error as the first chunk reads as an error body, with no stream begun before it.
            out = self._chunk({"candidates": [{"content": {"parts": [], "role": "model"}, "index": 0}]})
        self._ended = True
        return out + self._chunk({"error": error_status(error)})

    def finish(self, finished: StreamFinished) -> bytes:
        held = self._too_many
        word = finish_word(finished.reason, self.stream.provider, finished.provider_reason)
        if held is not None and word != _TOO_MANY:
            self._too_many = None
            return self._error(held) + self.finish(finished)  # the finish does not say it: as it came
        if self._ended:  # the error chunk ended it: a finish only for the counts, or Gemini's own word
            own_word = finished.provider_reason if self._own else None
            if own_word is None and finished.usage is None:
                return b""
            if _WORDS.get(word) != "error":
                word = "OTHER"
        record: dict[str, Any]
        if not self._ended and finished.reason == "content_filter" and _WORDS.get(word) != "content_filter":
            record = {"promptFeedback": {"blockReason": word}}  # a blocked prompt: no candidate
        else:
            candidate: dict[str, Any] = {"finishReason": word, "index": 0}
            message = self._finish_message(word, finished)
            if message is not None:
                candidate["finishMessage"] = message
            record = {"candidates": [candidate]}
        if finished.usage is not None:
            record["usageMetadata"] = usage_metadata(finished.usage)
        return self._chunk(record)

    def _finish_message(self, word: str, finished: StreamFinished) -> str | None:
        """The ``finishMessage`` the reader made the failed call or the error from, if it had one."""
        if word == _TOO_MANY and self._too_many is not None:
            return self._too_many.message
        failed = self._bad_call
        if word in _BAD_CALL and failed is not None:
            prefix = f"{_FAILED_BY_GEMINI}{word}: "
            return failed[len(prefix) :] if failed.startswith(prefix) else None
        return None
