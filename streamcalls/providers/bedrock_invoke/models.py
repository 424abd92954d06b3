"""The Bedrock models whose streamed chunks are text and a stop reason (``InvokeModelWithResponseStream``).

Each chunk's bytes hold one JSON object in the model's own shape, as the Bedrock user guide's
"Inference request parameters and response fields" pages give them:

- Meta Llama: ``{generation, prompt_token_count, generation_token_count, stop_reason}``,
  ``stop_reason`` ``null`` until the last chunk, then ``"stop"`` or ``"length"``;
- Mistral (Mistral 7B, Mixtral, Mistral Large's text completions):
  ``{outputs: [{text, stop_reason}]}``, ``stop_reason`` ``"stop"`` or ``"length"`` at the end;
- Amazon Titan Text: ``{outputText, index, totalOutputTextTokenCount, completionReason,
  inputTextTokenCount}``, ``completionReason`` ``"FINISH"``, ``"LENGTH"``,
  ``"STOP_CRITERIA_MET"`` or ``"CONTENT_FILTERED"`` at the end;
- Cohere Command: ``{text, is_finished: false}`` pieces (Command R adds ``event_type:
  "text-generation"``), whole calls in ``{event_type: "tool-calls-generation", tool_calls:
  [{name, parameters}]}``, and a last ``{is_finished: true, finish_reason}`` (``COMPLETE``,
  ``MAX_TOKENS``, ``ERROR``, ``ERROR_TOXIC``, ``ERROR_LIMIT``, ``USER_CANCEL``);
- Anthropic Claude's legacy Text Completions: ``{completion, stop_reason}``, ``stop_reason``
  ``"stop_sequence"`` or ``"max_tokens"`` at the end.

The last chunk of every model may carry ``amazon-bedrock-invocationMetrics``
``{inputTokenCount, outputTokenCount, invocationLatency, firstByteLatency}``: the usage, where
the model's own fields give none.  The chunk with a stop reason ends the stream; a stream that
ends before one is truncated.  No chunk names the model or an id: the start says only whose
stream it is.
"""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec

from ..._adapter import Adapter
from ..._emitter import Emitter
from ..._events import Usage

__all__ = ("FAMILIES", "TextModel", "model_family")


class _Metrics(msgspec.Struct, rename="camel"):
    input_token_count: int | None = None
    output_token_count: int | None = None


_METRICS = "amazon-bedrock-invocationMetrics"


class _Llama(msgspec.Struct):
    generation: str | None = None
    prompt_token_count: int | None = None
    generation_token_count: int | None = None
    stop_reason: str | None = None
    metrics: _Metrics | None = msgspec.field(default=None, name=_METRICS)


class _MistralOutput(msgspec.Struct):
    text: str | None = None
    stop_reason: str | None = None


class _Mistral(msgspec.Struct):
    outputs: list[_MistralOutput] | None = None
    metrics: _Metrics | None = msgspec.field(default=None, name=_METRICS)


class _Titan(msgspec.Struct, rename="camel"):
    output_text: str | None = None
    completion_reason: str | None = None
    input_text_token_count: int | None = None
    total_output_text_token_count: int | None = None
    metrics: _Metrics | None = msgspec.field(default=None, name=_METRICS)


class _CohereCall(msgspec.Struct):
    name: str | None = None
    parameters: Any = None


class _Cohere(msgspec.Struct):
    text: str | None = None
    event_type: str | None = None
    is_finished: bool = False
    finish_reason: str | None = None
    tool_calls: list[_CohereCall] | None = None
    metrics: _Metrics | None = msgspec.field(default=None, name=_METRICS)


class _Completion(msgspec.Struct):
    completion: str | None = None
    stop_reason: str | None = None
    metrics: _Metrics | None = msgspec.field(default=None, name=_METRICS)


# What one chunk says: its text, its stop reason (None until the last), the prompt's and the
# output's token counts where it gives them.
Read = tuple[str | None, str | None, int | None, int | None]


class TextModel(Adapter):
    """A model whose chunks are text (and, for Cohere, whole calls) and a last stop reason."""

    name = "bedrock-invoke"
    framing = "eventstream"
    family: ClassVar[str]  # the model family, in messages
    key: ClassVar[str]  # the field a chunk of this family is told by
    stops: ClassVar[dict[str, str]]  # the family's stop reasons, normalized

    __slots__ = ("_prompt",)

    def __init__(self, emit: Emitter) -> None:
        super().__init__(emit)
        self._prompt: int | None = None  # the prompt's token count, where a chunk before the last gave it

    def handle(self, view: Any, name: str | None) -> None:
        text, stop, prompt, output = self.read(view)
        emit = self.emit
        if text:
            emit.text(text)
        if prompt is not None:
            self._prompt = prompt
        if stop:
            prompt = self._prompt
            metrics = view.metrics
            if metrics is not None:
                prompt = metrics.input_token_count if prompt is None else prompt
                output = metrics.output_token_count if output is None else output
            usage = None
            if prompt is not None or output is not None:
                usage = Usage(
                    input_tokens=prompt, output_tokens=output, total_tokens=(prompt or 0) + (output or 0)
                )
            emit.finish(self.stops.get(stop, "stop"), stop, usage)

    def read(self, view: Any) -> Read:
        raise NotImplementedError

    def close(self) -> None:
        self.emit.end_of_input(f"{self.family}'s stop reason")


class LlamaModel(TextModel):
    view = _Llama
    what = "Meta Llama chunk"
    family = "Meta Llama"
    key = "generation"
    stops: ClassVar[dict[str, str]] = {"stop": "stop", "length": "length"}
    __slots__ = ()

    def read(self, view: _Llama) -> Read:
        return view.generation, view.stop_reason, view.prompt_token_count, view.generation_token_count


class MistralModel(TextModel):
    view = _Mistral
    what = "Mistral chunk"
    family = "Mistral"
    key = "outputs"
    stops: ClassVar[dict[str, str]] = {"stop": "stop", "length": "length", "model_length": "length"}
    __slots__ = ()

    def read(self, view: _Mistral) -> Read:
        first = view.outputs[0] if view.outputs else _MistralOutput()
        return first.text, first.stop_reason, None, None


class TitanModel(TextModel):
    view = _Titan
    what = "Amazon Titan chunk"
    family = "Amazon Titan"
    key = "outputText"
    stops: ClassVar[dict[str, str]] = {
        "FINISH": "stop",
        "STOP_CRITERIA_MET": "stop",
        "LENGTH": "length",
        "CONTENT_FILTERED": "content_filter",
    }
    __slots__ = ()

    def read(self, view: _Titan) -> Read:
        return (
            view.output_text,
            view.completion_reason,
            view.input_text_token_count,
            view.total_output_text_token_count,
        )


class CohereModel(TextModel):
    view = _Cohere
    what = "Cohere Command chunk"
    family = "Cohere Command"
    key = "is_finished"
    stops: ClassVar[dict[str, str]] = {
        "COMPLETE": "stop",
        "STOP_SEQUENCE": "stop",
        "MAX_TOKENS": "length",
        "ERROR": "error",
        "ERROR_TOXIC": "content_filter",
        "ERROR_LIMIT": "length",
        "USER_CANCEL": "error",
    }
    __slots__ = ()

    def read(self, view: _Cohere) -> Read:
        if view.tool_calls:
            emit = self.emit
            for entry in view.tool_calls:
                call = emit.open(None, entry.name, "native")
                if call is not None:
                    emit.whole(call, {} if entry.parameters is None else entry.parameters)
        text = view.text if view.event_type in (None, "text-generation") else None
        return text, (view.finish_reason or "COMPLETE") if view.is_finished else None, None, None


class CompletionModel(TextModel):
    view = _Completion
    what = "Claude Text Completions chunk"
    family = "Claude Text Completions"
    key = "completion"
    stops: ClassVar[dict[str, str]] = {"stop_sequence": "stop", "max_tokens": "length"}
    __slots__ = ()

    def read(self, view: _Completion) -> Read:
        return view.completion, view.stop_reason, None, None


FAMILIES: tuple[type[TextModel], ...] = (LlamaModel, MistralModel, TitanModel, CohereModel, CompletionModel)


def model_family(obj: Any) -> type[TextModel] | None:
    """The family a first chunk's decoded object is from, by the field only it has (None: none)."""
    if isinstance(obj, dict):
        for family in FAMILIES:
            if family.key in obj:
                return family
    return None
