"""What a recorded turn said, and the complete responses that keep its content in order.

:class:`Answer` gathers a turn's events: its steps (text, reasoning and
calls in the stream's order, adjacent pieces of text or reasoning joined),
the calls, the finish, the usage, and the turn they make.  Anthropic's
content blocks, Gemini's parts and Bedrock's content blocks keep those steps
in order; the chat shapes that hold one text and a list of calls are in
:mod:`._complete`.  Anthropic's and Bedrock's bodies are what
:func:`~streamcalls.write_response` writes for the turn (thinking with its
signature, redacted thinking as it was sent -- what the next request must
send back --, a call's input its arguments), with the recorded stop reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._events import (
    ReasoningDelta,
    StreamFinished,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolCallFailed,
    Usage,
)
from .._turn import accumulate
from ..providers.anthropic.response import anthropic_message as anthropic_response
from ..providers.bedrock.response import converse_output as converse_response

if TYPE_CHECKING:
    from ._recordings import Recording

__all__ = (
    "GENERATED",
    "Answer",
    "anthropic_message",
    "bedrock_output",
    "claude_invoke_message",
    "gemini_response",
    "total_tokens",
)

Body = dict[str, Any]

GENERATED = "call_replay_"
"""The start of the ids the parser makes up for calls recorded without one."""


class Answer:
    """A turn's steps, calls, finish and usage (see the module doc)."""

    __slots__ = ("calls", "finish", "reasoning", "steps", "text", "turn", "usage")

    def __init__(self, events: list[Any]) -> None:
        self.steps: list[
            tuple[str, Any]
        ] = []  # ("text" | "reasoning", str), ("call", ToolCall), ("failed", ...)
        for event in events:
            kind = type(event)
            if kind is TextDelta or kind is ReasoningDelta:
                step = "text" if kind is TextDelta else "reasoning"
                if self.steps and self.steps[-1][0] == step:
                    self.steps[-1] = (step, self.steps[-1][1] + event.text)
                else:
                    self.steps.append((step, event.text))
            elif kind is ToolCallCompleted:
                self.steps.append(("call", event.call))
            elif kind is ToolCallFailed:
                self.steps.append(("failed", event))
        self.text = "".join(value for step, value in self.steps if step == "text")
        self.reasoning = "".join(value for step, value in self.steps if step == "reasoning")
        self.calls: list[ToolCall] = [value for step, value in self.steps if step == "call"]
        self.finish = next((e for e in events if type(e) is StreamFinished), StreamFinished("stop"))
        self.usage = self.finish.usage or Usage()
        self.turn = accumulate(events)


def total_tokens(usage: Usage) -> int:
    """The usage's total, or the sum of its parts when the provider sent none."""
    return usage.total_tokens or (usage.input_tokens or 0) + (usage.output_tokens or 0)


def anthropic_message(recording: Recording, model: str, answer: Answer) -> Body:
    return _claude_message(recording, model, answer)


def claude_invoke_message(recording: Recording, model: str, answer: Answer) -> Body:
    """Claude's complete ``message`` behind InvokeModel: Anthropic's, from the events in the ``chunk`` frames."""
    return _claude_message(recording, model, answer)


def _claude_message(recording: Recording, model: str, answer: Answer) -> Body:
    """Anthropic's ``message`` for the turn (``write_response``), under the replay's id and the model
    asked for, with the recorded stop reason (a turn holds only what it means)."""
    body = anthropic_response(answer.turn)
    body["id"] = f"msg_replay_{recording.name}_{recording.turn}"
    body["model"] = model
    body["stop_reason"] = answer.finish.provider_reason or body["stop_reason"]
    return body


def gemini_response(recording: Recording, model: str, answer: Answer) -> Body:
    parts: list[Body] = []
    for kind, value in answer.steps:
        if kind == "text":
            parts.append({"text": value})
        elif kind == "reasoning":
            parts.append({"text": value, "thought": True})
        elif kind == "call":
            call: ToolCall = value
            function: Body = {"name": call.name, "args": call.arguments}
            if not call.id.startswith(GENERATED):  # the Gemini API mostly sends none
                function = {"id": call.id, **function}
            part: Body = {"functionCall": function}
            if call.thought_signature is not None:
                part["thoughtSignature"] = call.thought_signature
            parts.append(part)
    usage = answer.usage
    return {
        "candidates": [
            {
                "content": {"parts": parts, "role": "model"},
                "finishReason": answer.finish.provider_reason or "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {
            "promptTokenCount": usage.input_tokens or 0,
            "candidatesTokenCount": usage.output_tokens or 0,
            "totalTokenCount": total_tokens(usage),
        },
        "modelVersion": model,
        "responseId": f"replay-{recording.name}-{recording.turn}",
    }


def bedrock_output(recording: Recording, model: str, answer: Answer) -> Body:
    """Bedrock's Converse response for the turn (``write_response``), with the recorded stop reason."""
    body = converse_response(answer.turn)
    finish = answer.finish
    # A recording cut off before its end said nothing: the usual word, as before.
    body["stopReason"] = finish.provider_reason or (
        "end_turn" if finish.reason == "error" else body["stopReason"]
    )
    return body
