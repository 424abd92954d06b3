"""A complete (non-streamed) response built from a recorded stream, for ``"stream": false``.

The recording is parsed with the text detectors off, so the text is what the
model wrote (calls written in it stay in it, as a provider sends them), and
its pieces are put back together in the provider's response shape: an
OpenAI ``chat.completion``, a Responses ``response``, an Ollama
``done: true`` object, a Cohere v2 chat response (here), an Anthropic
``message`` (also for Claude behind Bedrock's InvokeModel), a Gemini
``GenerateContentResponse`` or a Bedrock Converse output
(:mod:`._complete_blocks`: content kept in the stream's order).  A
recording that holds a provider error gives that error instead, with a 500
status, as a request that failed would.

Ollama's, Anthropic's and Bedrock's bodies are what
:func:`~streamcalls.write_response` writes for the turn, under the replay's
ids and the recorded stop reason.  The others are built here because the
replay keeps more of the recording than a turn holds, or writes it otherwise:
a call's arguments re-serialized (Chat, Cohere) and a cut-off call's as far
as they came (Chat), the recorded items' ids and places (Responses), a
Gemini call without its generated id, and the recorded usage as it was.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from .._api import parse
from .._events import ProviderError, StreamStarted, ToolCall
from .._writer import write_response
from ._complete_blocks import (
    GENERATED,
    Answer,
    anthropic_message,
    bedrock_output,
    claude_invoke_message,
    gemini_response,
    total_tokens,
)
from ._recorded import responses_items
from ._recordings import Recording

__all__ = ("complete_response",)

Body = dict[str, Any]


def complete_response(recording: Recording, model: str) -> tuple[int, Body] | ProviderError:
    """The status and JSON body of the complete response, or the provider error the recording holds."""
    numbers = itertools.count()  # ids for calls recorded without one: the same in every response
    events = parse(
        recording.body,
        recording.provider,  # type: ignore[arg-type]  # a recording's folder is a provider's name
        detect=(),
        id_factory=lambda: f"{GENERATED}{next(numbers)}",
    )
    error = next((e for e in events if type(e) is ProviderError), None)
    if error is not None:
        return error
    if recording.provider == "bedrock-invoke":
        started = next((e for e in events if type(e) is StreamStarted), None)
        if started is None or started.provider != "anthropic":
            return ProviderError(_NOT_CLAUDE, "ValidationException")
    return 200, _SHAPES[recording.provider](recording, model, Answer(events))


def _chat_completion(recording: Recording, model: str, answer: Answer) -> Body:
    calls: list[Body] = []
    for kind, value in answer.steps:
        if kind in ("call", "failed"):  # a failed one was cut off: its arguments as far as they came
            arguments = value.arguments_json if kind == "call" else value.raw
            function = {"name": value.name, "arguments": arguments}
            calls.append({"id": value.id, "type": "function", "function": function})
    message: Body = {"role": "assistant", "content": answer.text or None, "refusal": None}
    if answer.reasoning:
        message["reasoning_content"] = answer.reasoning
    if calls:
        message["tool_calls"] = calls
    usage = answer.usage
    finish = answer.finish
    return {
        "id": f"chatcmpl-replay-{recording.name}-{recording.turn}",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": finish.provider_reason or finish.reason,
            }
        ],
        "usage": {
            "prompt_tokens": usage.input_tokens or 0,
            "completion_tokens": usage.output_tokens or 0,
            "total_tokens": total_tokens(usage),
        },
    }


def _responses(recording: Recording, model: str, answer: Answer) -> Body:
    """The ``response``: the parsed text and calls, under the ids the stream gave their items, and the
    stream's reasoning items as it gave them (their ``id`` and ``encrypted_content``, for the next request),
    each where its ``output_index`` puts it."""
    name = f"{recording.name}_{recording.turn}"
    recorded = responses_items(recording.body)
    place = {id(item): position for position, item in enumerate(recorded)}
    messages = iter([item for item in recorded if item.get("type") == "message"])
    calls = {item.get("call_id"): item for item in recorded if item.get("type") == "function_call"}
    reasoning = [item for item in recorded if item.get("type") == "reasoning"]
    placed: list[tuple[float, Body]] = [(place[id(item)], item) for item in reasoning]
    position = -0.5
    for number, (kind, value) in enumerate(answer.steps):
        if kind == "text":
            same = next(messages, None)
            part = {"type": "output_text", "annotations": [], "text": value}
            message = {"type": "message", "role": "assistant", "status": "completed", "content": [part]}
            item = {"id": same["id"] if same else f"msg_replay_{name}_{number}", **message}
        elif kind == "reasoning":
            if reasoning:
                continue  # the recorded items stand for it
            summary = [{"type": "summary_text", "text": value}]
            same, item = None, {"id": f"rs_replay_{name}_{number}", "type": "reasoning", "summary": summary}
        elif kind == "call":
            call: ToolCall = value
            same = calls.get(call.id)
            fields = {"type": "function_call", "status": "completed", "call_id": call.id, "name": call.name}
            item_id = same["id"] if same else f"fc_replay_{name}_{number}"
            item = {"id": item_id, **fields, "arguments": call.arguments_json}
        else:
            continue
        position = place[id(same)] if same is not None else position + 1e-3
        placed.append((position, item))
    output = [item for _, item in sorted(placed, key=lambda pair: pair[0])]
    incomplete = answer.finish.reason == "length"
    usage = answer.usage
    return {
        "id": f"resp_replay_{name}",
        "object": "response",
        "created_at": 0,
        "status": "incomplete" if incomplete else "completed",
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
        "model": model,
        "output": output,
        "usage": {
            "input_tokens": usage.input_tokens or 0,
            "output_tokens": usage.output_tokens or 0,
            "total_tokens": total_tokens(usage),
        },
    }


def _ollama(recording: Recording, model: str, answer: Answer) -> Body:
    """Ollama's ``done: true`` chat response for the turn (``write_response``), with the model asked
    for, the recorded ``done_reason`` and counts (0 where the stream gave none)."""
    body = write_response(answer.turn, "ollama")
    usage = answer.usage
    body["model"] = model
    body["created_at"] = "1970-01-01T00:00:00Z"
    body["done_reason"] = answer.finish.provider_reason or "stop"
    body["prompt_eval_count"] = usage.input_tokens or 0
    body["eval_count"] = usage.output_tokens or 0
    return body


def _cohere(recording: Recording, model: str, answer: Answer) -> Body:
    message: Body = {"role": "assistant"}
    if answer.reasoning:  # the adapter reads a tool plan and thinking alike as reasoning
        message["tool_plan"] = answer.reasoning
    if answer.text:
        message["content"] = [{"type": "text", "text": answer.text}]
    if answer.calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments_json},
            }
            for call in answer.calls
        ]
    usage = answer.usage
    tokens = {"input_tokens": usage.input_tokens or 0, "output_tokens": usage.output_tokens or 0}
    return {
        "id": f"replay-{recording.name}-{recording.turn}",
        "finish_reason": answer.finish.provider_reason or "COMPLETE",
        "message": message,
        "usage": {"billed_units": tokens, "tokens": tokens},
    }


_SHAPES: dict[str, Callable[[Recording, str, Answer], Body]] = {
    "openai": _chat_completion,
    "openai-responses": _responses,
    "anthropic": anthropic_message,
    "ollama": _ollama,
    "gemini": gemini_response,
    "bedrock": bedrock_output,
    "cohere": _cohere,
    "bedrock-invoke": claude_invoke_message,
}

_NOT_CLAUDE = (
    "the replay server writes a complete InvokeModel response for Claude's recordings only; "
    "ask for this one's stream (invoke-with-response-stream)"
)
