"""Ollama's native ``/api/chat`` streams.

Wire format: NDJSON (``application/x-ndjson``), one object a line:
``{model, created_at, message{role, content, thinking?, tool_calls?}, done: false}``.
Each entry of ``tool_calls`` is a whole call,
``{id?, function{index, name, arguments: {...}}}`` -- the arguments are a
JSON object, never streamed in pieces -- and one line may hold several.
The last line has ``done: true``, ``done_reason`` (``"stop"`` even after
tool calls, ``"length"``, ``"load"``/``"unload"`` for a request that only
(un)loaded the model, absent when the server gave none) and the counts
``prompt_eval_count`` / ``eval_count`` beside durations.  An error after
the response started is a line ``{"error": "..."}`` (the HTTP status stays
200).  ``/api/generate`` lines, with ``response`` (and ``thinking``) at the
top level instead of a message, are read the same way.

Older servers send calls without an ``id``: one is generated.
``message.thinking`` is reasoning: a run of it is one reasoning block (kind
``"thinking"``), ended by the text, a call or the last line.  Every line
carries ``model`` (the first one's is the stream's start; there is no
response id): the first one's adds its family's text detectors (unless
``detect=`` or ``model=`` was given).
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..._adapter import Adapter
from ..._events import Usage
from ..openai_chat.reader import error_message

__all__ = ("OllamaAdapter",)


class _Function(msgspec.Struct):
    name: str | None = None
    # An object; some servers send it as a JSON string.
    arguments: Any = None


class _ToolCall(msgspec.Struct):
    id: str | None = None
    function: _Function | None = None


class _Message(msgspec.Struct):
    content: str | None = None
    thinking: str | None = None
    tool_calls: list[_ToolCall] | None = None


class _Line(msgspec.Struct):
    model: str | None = None
    message: _Message | None = None
    response: str | None = None  # /api/generate
    thinking: str | None = None  # /api/generate
    done: bool = False
    done_reason: str | None = None
    prompt_eval_count: int | None = None
    eval_count: int | None = None
    error: Any = None


DONE_REASONS = {
    "stop": "stop",
    "length": "length",
    "load": "stop",
    "unload": "stop",
}


class OllamaAdapter(Adapter):
    name = "ollama"
    title = "Ollama"
    framing = "ndjson"
    view = _Line
    what = "Ollama line"

    __slots__ = ()

    def head(self, view: _Line, raw: Any) -> tuple[object, object]:
        return view.model, None

    @classmethod
    def recognizes(cls, name: str | None, obj: Any) -> bool:
        return isinstance(obj, dict) and "done" in obj and ("message" in obj or "response" in obj)

    def handle(self, line: _Line, name: str | None) -> None:
        emit = self.emit
        if emit.on_model is not None and line.model:
            emit.model(line.model)  # before its text: the model's detectors read it
        if line.error is not None:
            emit.provider_error(*error_message(line.error))
        if line.thinking:
            emit.reasoning(line.thinking, "thinking")
        if line.response:
            emit.reasoning_end()
            emit.text(line.response)
        message = line.message
        if message is not None:
            if message.thinking:
                emit.reasoning(message.thinking, "thinking")
            if message.content:
                emit.text(message.content)  # (an open reasoning block ends: see Emitter.text)
            if message.tool_calls:
                emit.reasoning_end()
                for entry in message.tool_calls:
                    function = entry.function or _Function()
                    call = emit.open(entry.id, function.name, "native")
                    if call is not None:
                        arguments = function.arguments
                        emit.whole(call, {} if arguments is None else arguments)
        if line.done:
            reason = line.done_reason
            normalized = DONE_REASONS.get(reason, "stop") if reason else "stop"
            emit.finish(normalized, reason, self._usage(line))

    @staticmethod
    def _usage(line: _Line) -> Usage | None:
        prompt = line.prompt_eval_count
        output = line.eval_count
        if prompt is None and output is None:
            return None
        return Usage(input_tokens=prompt, output_tokens=output, total_tokens=(prompt or 0) + (output or 0))

    def close(self) -> None:
        self.emit.end_of_input('a "done": true line')
