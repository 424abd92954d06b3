"""Gemini's request side: tool definitions, the assistant's calls and turn, the tools' results.

- tools: one ``Tool`` holding every ``functionDeclarations`` entry, each
  with its ``parametersJsonSchema``;
- a call: a ``model`` content of ``functionCall`` parts, each with the
  ``thoughtSignature`` Gemini 3 signed it with (it refuses the request
  without);
- a result: one ``user`` content of ``functionResponse`` parts, a failed
  tool's as ``response: {"error": ...}`` (instead of ``{"output": ...}``);
- the assistant's turn (:func:`encode_assistant`): ``thought`` parts and every
  ``thoughtSignature`` on the part it came on (a call's, a text part's, a
  thought part's).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..._events import ToolCall
from ..._results import ToolResult
from ..._turn import ReasoningPart, TextPart
from .._encoding import Message, ToolShape, Written
from .._encoding import described as _described

__all__ = ("encode_assistant", "encode_calls", "encode_results", "encode_tools")


def encode_tools(tools: Sequence[ToolShape]) -> list[Message]:
    # One Tool holding every declaration.  parametersJsonSchema takes a JSON
    # schema as it is; "parameters" wants Google's OpenAPI subset.
    declarations = [{**_described({"name": t.name}, t), "parametersJsonSchema": t.schema} for t in tools]
    return [{"functionDeclarations": declarations}]


def encode_calls(calls: list[ToolCall], text: str | None) -> Message:
    parts: list[Message] = [{"text": text}] if text else []
    for c in calls:
        part: Message = {"functionCall": {"id": c.id, "name": c.name, "args": c.arguments}}
        if c.thought_signature is not None:  # Gemini 3 refuses the request without it
            part["thoughtSignature"] = c.thought_signature
        parts.append(part)
    return {"role": "model", "parts": parts}


def encode_results(results: list[ToolResult]) -> list[Message]:
    parts = [
        {
            "functionResponse": {
                "id": r.call_id,
                "name": r.name,
                "response": {"error" if r.is_error else "output": r.content},
            }
        }
        for r in results
    ]
    return [{"role": "user", "parts": parts}]


def encode_assistant(written: Written) -> list[Message]:
    parts: list[Message] = []
    for part in written.parts:
        if type(part) is TextPart:
            signature = written.signature(part)
            if part.text or signature is not None:
                text: Message = {"text": part.text}
                if signature is not None:
                    text["thoughtSignature"] = signature
                parts.append(text)
        elif type(part) is ReasoningPart:
            thought: Message = {"text": part.text, "thought": True}
            if part.signature is not None:
                thought["thoughtSignature"] = part.signature
            parts.append(thought)
        elif type(part) is ToolCall:
            call: Message = {
                "functionCall": {"id": written.ids(part.id), "name": part.name, "args": part.arguments}
            }
            if part.thought_signature is not None:  # Gemini 3 refuses the request without it
                call["thoughtSignature"] = part.thought_signature
            parts.append(call)
    return [{"role": "model", "parts": parts}] if parts else []
