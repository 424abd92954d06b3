"""A complete (non-streamed) response built from a recorded stream, for ``"stream": false``.

The recording is parsed with the text detectors off, so the text is what the
model wrote (calls written in it stay in it, as a provider sends them), and
its pieces are put back together in the provider's response shape: an OpenAI
``chat.completion``, or an Anthropic ``message`` whose content blocks keep the
stream's order.  A recording that holds a provider error gives that error
instead, with a 500 status, as a request that failed would.
"""

from __future__ import annotations

import itertools
from typing import Any

from ._api import parse
from ._events import (
    ProviderError,
    ReasoningDelta,
    StreamFinished,
    TextDelta,
    ToolCallCompleted,
    ToolCallFailed,
    Usage,
)
from ._names import ProviderName
from ._recordings import Recording

__all__ = ("complete_response",)

Body = dict[str, Any]


def complete_response(recording: Recording, model: str) -> tuple[int, Body] | ProviderError:
    """The status and JSON body of the complete response, or the provider error the recording holds."""
    provider: ProviderName = "anthropic" if recording.provider == "anthropic" else "openai"
    numbers = itertools.count()  # ids for calls recorded without one: the same in every response
    events = parse(recording.body, provider, detect=(), id_factory=lambda: f"call_replay_{next(numbers)}")
    error = next((e for e in events if type(e) is ProviderError), None)
    if error is not None:
        return error
    finish = next((e for e in events if type(e) is StreamFinished), StreamFinished("stop"))
    if recording.provider == "anthropic":
        return 200, _anthropic_message(recording, model, events, finish)
    return 200, _chat_completion(recording, model, events, finish)


def _chat_completion(recording: Recording, model: str, events: list[Any], finish: StreamFinished) -> Body:
    text = "".join(e.text for e in events if type(e) is TextDelta)
    reasoning = "".join(e.text for e in events if type(e) is ReasoningDelta)
    calls: list[Body] = []
    for event in events:
        if type(event) is ToolCallCompleted:
            call = event.call
            function = {"name": call.name, "arguments": call.arguments_json}
            calls.append({"id": call.id, "type": "function", "function": function})
        elif type(event) is ToolCallFailed:  # cut off: its arguments as far as they came
            function = {"name": event.name, "arguments": event.raw}
            calls.append({"id": event.id, "type": "function", "function": function})
    message: Body = {"role": "assistant", "content": text or None, "refusal": None}
    if reasoning:
        message["reasoning_content"] = reasoning
    if calls:
        message["tool_calls"] = calls
    usage = finish.usage or Usage()
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
            "total_tokens": usage.total_tokens or (usage.input_tokens or 0) + (usage.output_tokens or 0),
        },
    }


def _anthropic_message(recording: Recording, model: str, events: list[Any], finish: StreamFinished) -> Body:
    blocks: list[Body] = []
    for event in events:
        kind = type(event)
        if kind is TextDelta or kind is ReasoningDelta:
            block_type, field = ("text", "text") if kind is TextDelta else ("thinking", "thinking")
            if blocks and blocks[-1]["type"] == block_type:
                blocks[-1][field] += event.text
            else:
                blocks.append({"type": block_type, field: event.text})
                if block_type == "thinking":
                    blocks[-1]["signature"] = ""  # not in the events; a replay has no real one
        elif kind is ToolCallCompleted:
            call = event.call
            blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments})
        # A call cut off at max_tokens has no input object to show: the stop reason tells.
    usage = finish.usage or Usage()
    return {
        "id": f"msg_replay_{recording.name}_{recording.turn}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": finish.provider_reason or finish.reason,
        "stop_sequence": None,
        "usage": {"input_tokens": usage.input_tokens or 0, "output_tokens": usage.output_tokens or 0},
    }
