"""Google Gemini ``streamGenerateContent`` (Gemini API and Vertex AI).

Wire format, in one of two framings -- the caller's URL decides, the first
byte tells (framing ``"json-array-or-sse"``, see :mod:`streamcalls.framing._firstbyte`):

- ``?alt=sse``: SSE ``data: {GenerateContentResponse}`` events, no ``[DONE]``;
- without it: one JSON array of those objects, streamed element by element
  (:mod:`streamcalls.framing._jsonarray`); its closing ``]`` ends the stream.

A chunk holds ``candidates[0].content.parts[]`` -- ``text`` (reasoning when
``thought: true``) or ``functionCall{id?, name, args?}`` -- and, in the last
chunk, ``candidates[0].finishReason`` (``STOP`` even after calls) with
``finishMessage``, plus ``usageMetadata``.  ``promptFeedback.blockReason``
means the prompt was refused; ``{"error": {code, message, status}}`` is an
error, also as an array element.  Only candidate 0 is read.  Requested with
``enum-encoding=int``, enums come as numbers (``"finishReason": 1``): finish
and block reasons are mapped back to their names.

Parts for the tools Google runs itself are not client calls and are
skipped, with the text around them read: ``executableCode`` /
``codeExecutionResult`` (code execution) and ``toolCall`` / ``toolResponse``
(built-in tools combined with function calling).  Only ``functionCall`` is
a call.

Gemini 3 puts an opaque ``thoughtSignature`` beside ``functionCall`` in the
part (of parallel calls, only the first has one).  It becomes the call's
:attr:`~streamcalls.ToolCall.thought_signature`, for the codec to send back:
the next request is refused without it.  A signature can also come on a
``thought`` part (it ends that run of thoughts: a reasoning block of kind
``"thought"``, signed) or on a text part, often an empty one at the end of
the turn (a :class:`~streamcalls.TextSignature` after that text).  The first
chunk's ``modelVersion`` and ``responseId`` are the stream's start.

The Gemini API sends each call whole, usually without an id (one is
generated); a call without arguments has no ``args`` at all, which reads as
``{}``.  Vertex AI with ``streamFunctionCallArguments`` streams them:
``functionCall{name, willContinue: true}`` opens a call, parts with
``functionCall{partialArgs: [{jsonPath, stringValue | numberValue |
boolValue | nullValue, willContinue?}], willContinue: true}`` add values,
and a part whose ``functionCall`` lacks ``willContinue`` (usually ``{}``)
closes it.  Those values are written out as the arguments' JSON text (see
:mod:`.partial_args`), one ``ToolCallDelta`` per part, and the call
completes in the very part that closes it.

The chunk with ``finishReason`` is the end marker.  ``MALFORMED_FUNCTION_CALL``
and ``UNEXPECTED_TOOL_CALL`` mean the model's call could not be used: it is
reported as a :class:`~streamcalls.ToolCallFailed` (the streamed call it cut
short, or a call of its own with an empty name and the ``finishMessage`` as
its error), so the failure arrives where a caller waits for calls.
``TOO_MANY_TOOL_CALLS`` stops the turn without a faulty call:
a :class:`~streamcalls.ProviderError`.  All three finish as ``"error"``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..._adapter import Adapter, as_mapping, head_of
from ..._call import OPEN, Call
from ..._emitter import Emitter
from ..._events import Usage
from .partial_args import ArgumentsWriter, PathError

__all__ = ("GeminiAdapter",)


class _PartialArg(msgspec.Struct, rename="camel"):
    json_path: str = "$"
    string_value: str | None = None
    number_value: int | float | None = None
    bool_value: bool | None = None
    # Present, with whatever value ("NULL_VALUE", 0 or null), means a JSON null.
    null_value: Any = msgspec.UNSET
    will_continue: bool = False


class _FunctionCall(msgspec.Struct, rename="camel"):
    name: str | None = None
    id: str | None = None
    args: Any = None
    partial_args: list[_PartialArg] | None = None
    will_continue: bool = False


class _Part(msgspec.Struct, rename="camel"):
    text: str | None = None
    thought: bool = False
    function_call: _FunctionCall | None = None
    thought_signature: str | None = None  # Gemini 3: on a functionCall part, sent back with the call


class _Content(msgspec.Struct):
    parts: list[_Part] | None = None


class _Candidate(msgspec.Struct, rename="camel"):
    content: _Content | None = None
    finish_reason: str | int | None = None  # a number with enum-encoding=int
    finish_message: str | None = None
    index: int = 0


class _UsageMetadata(msgspec.Struct, rename="camel"):
    prompt_token_count: int | None = None
    candidates_token_count: int | None = None
    total_token_count: int | None = None
    thoughts_token_count: int | None = None
    cached_content_token_count: int | None = None
    tool_use_prompt_token_count: int | None = None


class _PromptFeedback(msgspec.Struct, rename="camel"):
    block_reason: str | int | None = None
    block_reason_message: str | None = None


class _Head(msgspec.Struct, gc=False, rename={"model": "modelVersion", "id": "responseId"}):
    model: Any = None  # read once, from the first chunk: the view below leaves them out
    id: Any = None


_head = msgspec.json.Decoder(_Head)


class _Chunk(msgspec.Struct, rename="camel"):
    candidates: list[_Candidate] | None = None
    usage_metadata: _UsageMetadata | None = None
    prompt_feedback: _PromptFeedback | None = None
    error: Any = None


_encode = msgspec.json.encode

FINISH_REASONS = {
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
# The enums' numbers, for responses requested with ``enum-encoding=int``
# (``$alt=json;enum-encoding=int``): Candidate.FinishReason and
# PromptFeedback.BlockReason in the Gemini API's generative_service.proto
# (google.ai.generativelanguage.v1beta).  0 is "unspecified": not a finish.
FINISH_REASON_NAMES = {
    1: "STOP",
    2: "MAX_TOKENS",
    3: "SAFETY",
    4: "RECITATION",
    5: "OTHER",
    6: "LANGUAGE",
    7: "BLOCKLIST",
    8: "PROHIBITED_CONTENT",
    9: "SPII",
    10: "MALFORMED_FUNCTION_CALL",
    11: "IMAGE_SAFETY",
    12: "UNEXPECTED_TOOL_CALL",
    13: "TOO_MANY_TOOL_CALLS",
    14: "IMAGE_PROHIBITED_CONTENT",
    15: "IMAGE_OTHER",
    16: "NO_IMAGE",
    17: "IMAGE_RECITATION",
}
BLOCK_REASON_NAMES = {1: "SAFETY", 2: "OTHER", 3: "BLOCKLIST", 4: "PROHIBITED_CONTENT", 5: "IMAGE_SAFETY"}

# Finish reasons that say the model's own call is unusable.
_BAD_CALL = frozenset({"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"})


def _usage(raw: _UsageMetadata) -> Usage:
    # Gemini counts thoughts apart from candidates and tool-use prompts apart
    # from the prompt; the normalized counts include them, as OpenAI's do.
    prompt = raw.prompt_token_count
    if raw.tool_use_prompt_token_count:
        prompt = (prompt or 0) + raw.tool_use_prompt_token_count
    output = raw.candidates_token_count
    if raw.thoughts_token_count:
        output = (output or 0) + raw.thoughts_token_count
    return Usage(
        input_tokens=prompt,
        output_tokens=output,
        total_tokens=raw.total_token_count,
        reasoning_tokens=raw.thoughts_token_count,
        cache_read_tokens=raw.cached_content_token_count,
    )


def _error(error: Any) -> tuple[str, str | None]:
    if isinstance(error, dict):
        message = error.get("message") or _encode(error).decode()
        code = error.get("status") or error.get("code")
        return str(message), (None if code is None else str(code))
    return str(error), None


def _leaf(arg: _PartialArg) -> str | None:
    """A partialArg's value as JSON text, or None if it holds none (strings are apart)."""
    if arg.number_value is not None:
        return _encode(arg.number_value).decode()
    if arg.bool_value is not None:
        return "true" if arg.bool_value else "false"
    if arg.null_value is not msgspec.UNSET:
        return "null"
    return None


class _Streamed:
    """A Vertex call whose arguments arrive as partialArgs."""

    __slots__ = ("call", "failed", "provider_id", "writer")

    def __init__(self, call: Call, provider_id: str | None) -> None:
        self.call = call
        self.provider_id = provider_id  # the id the opening part carried, if any
        self.writer = ArgumentsWriter()
        self.failed = False


class GeminiAdapter(Adapter):
    name = "gemini"
    title = "Gemini"
    framing = "json-array-or-sse"
    view = _Chunk
    what = "Gemini chunk"

    __slots__ = ("_streamed", "_usage")

    def __init__(self, emit: Emitter) -> None:
        super().__init__(emit)
        self._streamed: _Streamed | None = None
        self._usage: Usage | None = None

    @classmethod
    def recognizes(cls, name: str | None, obj: Any) -> bool:
        if not isinstance(obj, dict):
            return False
        if "candidates" in obj or "usageMetadata" in obj or "promptFeedback" in obj:
            return True
        error = obj.get("error")
        return isinstance(error, dict) and isinstance(error.get("status"), str)  # google.rpc.Status

    # -- input -----------------------------------------------------------------

    def claims(self, view: _Chunk, name: str | None) -> bool:
        return (
            view.candidates is not None
            or view.usage_metadata is not None
            or view.prompt_feedback is not None
            or view.error is not None
        )

    def head(self, view: _Chunk, raw: Any) -> tuple[object, object]:
        return head_of(raw, _head, "modelVersion", "responseId")

    def plain(self, obj: Any) -> Any:
        dump = getattr(obj, "model_dump", None)
        if dump is not None:  # a google-genai object: its JSON names are the aliases
            return dump(mode="json", by_alias=True, exclude_none=True)
        return as_mapping(obj)

    def handle(self, chunk: _Chunk, name: str | None) -> None:
        emit = self.emit
        if chunk.error is not None:
            message, code = _error(chunk.error)
            self._streamed = None  # the provider error fails it, with every open call
            emit.provider_error(message, code)
        if chunk.usage_metadata is not None:
            self._usage = _usage(chunk.usage_metadata)
        for candidate in chunk.candidates or ():
            if candidate.index:
                continue
            content = candidate.content
            if content is not None and content.parts:
                for part in content.parts:
                    self._part(part)
            reason = candidate.finish_reason
            if reason:
                if isinstance(reason, int):
                    reason = FINISH_REASON_NAMES.get(reason, str(reason))
                self._finish(reason, candidate.finish_message)
                return
        feedback = chunk.prompt_feedback
        if feedback is not None and feedback.block_reason:
            blocked = feedback.block_reason
            if isinstance(blocked, int):
                blocked = BLOCK_REASON_NAMES.get(blocked, str(blocked))
            self._cut_streamed(f"prompt blocked: {blocked}")
            emit.finish("content_filter", blocked, self._usage)

    def _part(self, part: _Part) -> None:
        emit = self.emit
        call = part.function_call
        signature = part.thought_signature
        if call is not None:
            emit.reasoning_end()
            self._function_call(call, signature)
        elif part.thought:
            if part.text:
                emit.reasoning(part.text, "thought")
            if signature:
                emit.reasoning_note(signature=signature)
                emit.reasoning_end()  # a signed thought part ends the run
        else:
            if part.text:
                emit.text(part.text)  # (an open reasoning block ends: see Emitter.text)
            if signature:
                emit.reasoning_end()
                emit.text_signature(signature)

    # -- calls -------------------------------------------------------------------

    def _function_call(self, part: _FunctionCall, signature: str | None) -> None:
        emit = self.emit
        streamed = self._streamed
        if streamed is not None:
            name = streamed.call.name
            same_name = not part.name or not name or part.name == name
            same_id = not part.id or not streamed.provider_id or part.id == streamed.provider_id
            if same_name and same_id:
                emit.sign(streamed.call, signature)
                self._continue(streamed, part)
                return
            self._cut_streamed("a new call began before this call's closing functionCall (truncated)")
        if part.partial_args or part.will_continue:
            emit.text_end()
            opened = emit.open(part.id, part.name, "native")
            if opened is not None:
                emit.sign(opened, signature)
                self._continue(_Streamed(opened, part.id), part)
        elif part.name or part.args is not None:
            emit.text_end()
            opened = emit.open(part.id, part.name, "native")
            if opened is not None:
                emit.sign(opened, signature)
                if part.args is None:
                    emit.whole(opened, {}, "")  # no "args" key: a tool without parameters
                else:
                    emit.whole(opened, part.args)
        # An empty functionCall with no call open: the end of a call already closed.

    def _continue(self, streamed: _Streamed, part: _FunctionCall) -> None:
        """Apply a streamed call's part; close the call when the part says no more follows."""
        emit = self.emit
        call = streamed.call
        self._streamed = streamed if part.will_continue else None
        if streamed.failed:
            return
        if part.name:
            emit.set_name(call, part.name)
        pieces: list[str] = []
        writer = streamed.writer
        try:
            for arg in part.partial_args or ():
                string = arg.string_value
                value = None if string is not None else _leaf(arg)
                if string is not None or value is not None:
                    pieces.append(writer.write(arg.json_path, value, string))
            if not part.will_continue:
                pieces.append(writer.close())
        except PathError as exc:
            streamed.failed = True
            emit.feed(call, "".join(pieces))
            emit.fail(call, f"partialArgs cannot be assembled: {exc}")
            return
        if part.will_continue and not pieces:
            return
        emit.feed(call, "".join(pieces))
        if not part.will_continue and call.status == OPEN:
            emit.end(call)  # a safeguard: the closing text above has always closed it

    def _cut_streamed(self, why: str) -> None:
        streamed = self._streamed
        if streamed is not None:
            self.emit.reasoning_end()
            self._streamed = None
            if not streamed.failed:
                self.emit.fail(streamed.call, why)

    # -- end ---------------------------------------------------------------------

    def _finish(self, reason: str, message: str | None) -> None:
        emit = self.emit
        emit.reasoning_end()
        detail = f"{reason}: {message}" if message else reason
        if reason in _BAD_CALL:
            if self._streamed is not None:
                self._cut_streamed(f"Gemini finished with {detail}")
            else:
                call = emit.open(None, None, "native")
                if call is not None:
                    emit.fail(call, f"Gemini finished with {detail}")
        else:
            self._cut_streamed(
                f"stream finished ({reason}) before the call's closing functionCall (truncated)"
            )
            if reason == "TOO_MANY_TOOL_CALLS":
                emit.provider_error(message or "the model called too many tools in a row", reason)
        emit.finish(FINISH_REASONS.get(reason, "stop"), reason, self._usage)

    def on_done(self) -> None:
        """The JSON array's closing ``]`` came before any finishReason (after an error, say)."""
        if self.emit.finished:
            return
        self._cut_streamed("the stream ended before this call's closing functionCall (truncated)")
        self.emit.finish("stop")  # the usage seen so far is not the whole turn's

    def close(self) -> None:
        self.emit.end_of_input("a chunk with finishReason")  # fails a streamed call left open
