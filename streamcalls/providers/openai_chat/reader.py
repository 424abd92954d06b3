"""OpenAI Chat Completions streams, and every server that speaks them.

Wire format: SSE ``data: {chat.completion.chunk}`` events ending with
``data: [DONE]``.  ``choices[0].delta`` carries ``content``, reasoning
(DeepSeek ``reasoning_content``, OpenRouter/vLLM ``reasoning``) and
``tool_calls[]`` fragments: ``index``, and ``id`` + ``function.name`` on a
call's first fragment, then ``function.arguments`` string pieces.  The
chunk with ``finish_reason`` is followed by an optional usage-only chunk
(``choices: []``, or ``null`` from vLLM).  Errors come as a payload with an
``error`` object.

``content`` may also be a list of typed parts (Mistral's reasoning models,
typed in its SDK as ``str | list[ContentChunk]``): ``{"type": "text",
"text"}`` is text, ``{"type": "thinking", "thinking": [{"type": "text",
"text"}]}`` is reasoning, other part types (references, images, documents)
carry neither and are skipped.

Call identity, robust to what compatible servers really send: a fragment
belongs to the call with its ``id``; else to the call with its ``index``;
else (no index: Gemini's and Mistral's compatible output) to the open call.
A new id, a new name after the call's JSON closed, or a second top-level
JSON object (servers that send every call with ``index: 0``) starts a new
call; anything else after a call's closed arguments (``{"a": 1}}``) starts
none and is reported as a ParseError naming that call.  Starting a call
never ends another: parallel calls' fragments may interleave (each naming
its index), so a call completes when its JSON closes, or at the finish.
Empty names repeated in continuation fragments are ignored.  Only choice 0 is read.
Gemini's compatible endpoint puts a call's Gemini 3 signature in
``extra_content.google.thought_signature``: it becomes the call's
:attr:`~streamcalls.ToolCall.thought_signature`.

Every chunk carries ``model``: the first one's adds its family's text
detectors (unless ``detect=`` or ``model=`` was given).  The first chunk's
``model`` and ``id`` are the stream's start.

Azure OpenAI opens with a chunk of ``choices: []`` and
``prompt_filter_results`` whose ``object``, ``id`` and ``model`` are empty
strings: it carries nothing, and the stream starts at the next chunk, which
names them.  Its chunks carry ``content_filter_results`` (ignored; a cut
reads ``finish_reason: "content_filter"``), and with the asynchronous filter
an annotation chunk (no ``delta``, ``content_filter_offsets``) may follow
the finish: nothing to read.

Reasoning comes in one of three fields, and each run of one is a reasoning
block of that ``kind``, ended by the answer's text, a call or the end:
``reasoning_content`` (DeepSeek, Kimi, vLLM, llama.cpp), ``reasoning``
(OpenRouter, Groq, newer vLLM; the same text sent in both fields is read
once) and OpenRouter's ``reasoning_details``: a list of entries
``{type: "reasoning.text" | "reasoning.summary" | "reasoning.encrypted",
text | summary | data, signature?, id?, format, index}`` whose pieces with
one ``index`` make one block, its ``signature`` and encrypted ``data`` on the
block's end.  OpenRouter sends the same text in ``reasoning`` beside
``reasoning_details``: with details, ``reasoning`` is not read again.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..._adapter import JSON_BLANKS, Adapter, Head, head_of
from ..._call import COMPLETED, OPEN, Call
from ..._events import Usage
from .views import _Chunk, _Detail, _Part, _ToolCall, _Usage

__all__ = ("OpenAIChatAdapter",)


_head = msgspec.json.Decoder(Head)  # the id, read once from the first chunk: the view below leaves it out


FINISH_REASONS = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
    "content_filter": "content_filter",
    "error": "error",
    "abort": "error",
}


def _usage(raw: _Usage) -> Usage:
    prompt = raw.prompt_tokens_details
    completion = raw.completion_tokens_details
    return Usage(
        input_tokens=raw.prompt_tokens,
        output_tokens=raw.completion_tokens,
        total_tokens=raw.total_tokens,
        reasoning_tokens=completion.reasoning_tokens if completion else None,
        cache_read_tokens=prompt.cached_tokens if prompt else None,
        cache_write_tokens=prompt.cache_write_tokens if prompt else None,
    )


def error_message(error: Any) -> tuple[str, str | None]:
    """The message and code of an ``error`` payload, whatever its shape."""
    if isinstance(error, dict):
        message = error.get("message") or error.get("error") or msgspec.json.encode(error).decode()
        code = error.get("code") or error.get("type")
        return str(message), (None if code is None else str(code))
    return str(error), None


class OpenAIChatAdapter(Adapter):
    name = "openai"
    title = "OpenAI Chat"
    framing = "sse"
    view = _Chunk
    what = "OpenAI chunk"
    native_records = "openai"  # its common chunks have a native reader (streamcalls/_native)

    __slots__ = ("_by_id", "_by_index", "_current", "_detail", "_finish_reason", "_usage")

    def __init__(self, emit: Any) -> None:
        super().__init__(emit)
        # The calls by id and by index: made at the first call (most streams have none).
        self._by_id: dict[str, Call] | None = None
        self._by_index: dict[int, Call] | None = None
        self._current: Call | None = None
        self._detail: int | None = None  # the index of the reasoning_details entry being read
        self._finish_reason: str | None = None
        self._usage: Usage | None = None

    def claims(self, view: _Chunk, name: str | None) -> bool:
        return view.choices is not None or view.error is not None or view.usage is not None

    def begin(self, view: _Chunk, raw: Any) -> None:
        if not view.model and not view.choices and view.error is None and view.usage is None:
            return  # Azure's prompt-filter chunk names no model or id: the stream starts at the next
        super().begin(view, raw)

    def head(self, view: _Chunk, raw: Any) -> tuple[object, object]:
        return head_of(raw, _head, "model", "id")

    @classmethod
    def recognizes(cls, name: str | None, obj: Any) -> bool:
        if not isinstance(obj, dict):
            return False
        kind = obj.get("object")
        # No "object" (some compatible servers), or Azure's "" on its prompt-filter and
        # content-filter annotation chunks (empty id and model too).
        return kind == "chat.completion.chunk" or ("choices" in obj and not kind and "candidates" not in obj)

    # -- input -----------------------------------------------------------------

    def handle(self, chunk: _Chunk, name: str | None) -> None:
        emit = self.emit
        if emit.on_model is not None and chunk.model:
            emit.model(chunk.model)  # before its text: the model's detectors read it
        if chunk.error is not None:
            message, code = error_message(chunk.error)
            emit.provider_error(message, code)
        choices = chunk.choices
        if choices:
            for choice in choices:
                if choice.index:
                    continue
                delta = choice.delta
                if delta is not None:
                    if delta.reasoning_details:
                        self._details(delta.reasoning_details)
                    else:
                        thinking = delta.reasoning_content
                        if thinking:
                            self._reasoning(thinking, "reasoning_content")
                        if delta.reasoning and delta.reasoning != thinking:
                            self._reasoning(delta.reasoning, "reasoning")
                    content = delta.content
                    if content:
                        if isinstance(content, str):
                            emit.text(content)  # (an open reasoning block ends: see Emitter.text)
                        else:
                            self._parts(content)
                    if delta.refusal:
                        emit.text(delta.refusal)
                    tool_calls = delta.tool_calls
                    if tool_calls:
                        for fragment in tool_calls:
                            # The common fragment, read here: the next piece of the arguments of
                            # the open call at its index.  Anything else: _fragment.
                            function = fragment.function
                            index = fragment.index
                            if (
                                function is not None
                                and not function.name
                                and not fragment.id
                                and index is not None
                            ):
                                by_index = self._by_index
                                call = None if by_index is None else by_index.get(index)
                                arguments = function.arguments
                                if (
                                    call is not None
                                    and call.status == OPEN
                                    and type(arguments) is str
                                    and fragment.extra_content is None
                                ):
                                    rest = emit.feed(call, arguments)
                                    if rest >= 0:
                                        self._after_value(call, arguments[rest:], index)
                                    continue
                            self._fragment(fragment)
                    if delta.function_call is not None:
                        self._end_reasoning()
                        self._fragment(_ToolCall(None, None, delta.function_call))
                if choice.finish_reason:
                    self._finish_reason = choice.finish_reason
                    self._end_reasoning()
                    emit.end_open()
        usage = chunk.usage
        if usage is None and chunk.x_groq is not None:
            usage = chunk.x_groq.usage
        if usage is not None:
            self._usage = _usage(usage)

    def _parts(self, parts: list[_Part]) -> None:
        emit = self.emit
        for part in parts:
            kind = part.type
            if kind == "text" or not kind:
                if part.text:
                    emit.text(part.text)
            elif kind == "thinking":
                thinking = part.thinking
                if isinstance(thinking, str):
                    self._reasoning(thinking, "thinking")
                elif thinking:
                    for piece in thinking:
                        if piece.text and piece.type in ("text", ""):
                            self._reasoning(piece.text, "thinking")
            # image_url, reference, document_url, ...: no text to read

    # -- reasoning -----------------------------------------------------------------

    def _details(self, details: list[_Detail]) -> None:
        """OpenRouter's ``reasoning_details`` pieces: one block per entry ``index``."""
        emit = self.emit
        for detail in details:
            kind = detail.type or None
            if not emit.reasoning_open or detail.index != self._detail or kind != emit.reasoning_kind:
                self._end_reasoning()
                emit.reasoning_start(detail.id, kind, detail.format)
                self._detail = detail.index
            text = detail.summary if kind == "reasoning.summary" else detail.text
            if text:
                emit.reasoning(text, kind)
            if detail.signature or detail.data:
                emit.reasoning_note(signature=detail.signature, encrypted=detail.data)
            self._apart_from_calls()

    def _reasoning(self, text: str, kind: str) -> None:
        self.emit.reasoning(text, kind)
        self._apart_from_calls()

    def _apart_from_calls(self) -> None:
        """Reasoning that came while a call is open (between its fragments) is a block of its own,
        ended at once: a call's events never come inside a reasoning block."""
        current = self._current
        if current is not None and current.status == OPEN:
            self._end_reasoning()

    def _end_reasoning(self) -> None:
        self._detail = None
        self.emit.reasoning_end()

    # -- calls -------------------------------------------------------------------

    def _fragment(self, fragment: _ToolCall) -> None:
        function = fragment.function
        if function is None:
            name = arguments = None
        else:
            name = function.name
            arguments = function.arguments
        call_id = fragment.id
        index = fragment.index
        if call_id:
            call = None if self._by_id is None else self._by_id.get(call_id)
        elif index is not None:
            call = None if self._by_index is None else self._by_index.get(index)
        else:
            call = self._current
        if call is None:
            call = self._new_call(call_id, name, index)
        elif call.status == OPEN:
            if name:
                self.emit.set_name(call, name)
        else:
            if call.status != COMPLETED:
                return  # the rest of a failed call
            if not (name and name != call.name) and not _starts_object(arguments):
                if isinstance(arguments, str):  # blank, or text after the call's arguments
                    self.after_arguments(call, arguments)
                return
            # A new name, or a second JSON object: the next call at this index.
            call = self._new_call(None, name or call.name, index)
        extra = fragment.extra_content
        if extra is not None and extra.google is not None and call is not None:
            self.emit.sign(call, extra.google.thought_signature)
        if call is None or not arguments:
            return
        if not isinstance(arguments, str):
            self.emit.whole(call, arguments)
            return
        rest = self.emit.feed(call, arguments)
        if rest >= 0:
            self._after_value(call, arguments[rest:], index)

    def _after_value(self, call: Call, arguments: str, index: int | None) -> None:
        """What followed a call's closed value in its fragment: a glued next call
        (``{"a": 1}{"a": 2}``), or text reported on the call."""
        while _starts_object(arguments):
            glued = self._new_call(None, call.name, index)
            if glued is None:
                return
            call = glued
            rest = self.emit.feed(call, arguments)
            if rest < 0:
                return
            arguments = arguments[rest:]
        self.after_arguments(call, arguments)

    def _new_call(self, call_id: str | None, name: str | None, index: int | None) -> Call | None:
        emit = self.emit
        if self.emit.reasoning_open:  # the reasoning before the calls ends where they begin
            self._end_reasoning()
        # The call before stays open: parallel calls' fragments may interleave (each by its
        # index or id), so a call ends when its JSON closes, or at the finish -- never because
        # another one began.
        call = emit.open(call_id, name, "native")
        if call is None:
            return None
        if call_id:
            if self._by_id is None:
                self._by_id = {}
            self._by_id[call_id] = call
        if index is not None:
            if self._by_index is None:
                self._by_index = {}
            self._by_index[index] = call
        self._current = call
        return call

    # -- end ---------------------------------------------------------------------

    def on_done(self) -> None:
        self._end()

    def _end(self) -> None:
        reason = self._finish_reason
        normalized = FINISH_REASONS.get(reason, "stop") if reason else "stop"
        self.emit.finish(normalized, reason, self._usage)

    def close(self) -> None:
        if self._finish_reason is not None and not self.emit.errored:
            self._end()  # no [DONE], but the stream did finish
        else:
            self.emit.end_of_input("data: [DONE]")


def _starts_object(arguments: str | dict[str, Any] | None) -> bool:
    """Can these arguments start a further call?  Only a JSON object can."""
    if isinstance(arguments, str):
        return arguments.lstrip(JSON_BLANKS).startswith("{")
    return arguments is not None
