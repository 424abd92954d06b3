"""Each provider's request shapes: tool definitions, the assistant's calls, the tools' results.

Every shape here is a plain ``dict``/``list`` (``msgspec.json.encode`` and any
HTTP client take it as it is), written from each provider's documented
request format:

============================  ==================================================  ==========================================
provider                      a call (``encode_call``)                             a result (``encode_result``)
============================  ==================================================  ==========================================
OpenAI Chat (and aliases)     ``assistant`` message, ``tool_calls[]`` with JSON     ``{"role": "tool", "tool_call_id"}``
                              string ``arguments``
OpenAI Responses              ``function_call`` items (``call_id``, JSON string)   ``function_call_output`` item
Anthropic                     ``assistant`` message, ``tool_use`` blocks           ``user`` message, ``tool_result`` blocks
Ollama                        ``assistant`` message, object ``arguments``          ``{"role": "tool", "tool_name"}``
Gemini                        ``model`` content, ``functionCall`` parts            ``user`` content, ``functionResponse`` parts
Bedrock Converse              ``assistant`` message, ``toolUse`` blocks            ``user`` message, ``toolResult`` blocks
Cohere v2                     ``assistant`` message, ``tool_calls[]``, tool_plan   ``{"role": "tool", "tool_call_id"}``
============================  ==================================================  ==========================================

A call's Gemini 3 signature (:attr:`ToolCall.thought_signature
<streamcalls.ToolCall.thought_signature>`) goes back where it came from:
``thoughtSignature`` beside the Gemini ``functionCall``, and
``extra_content.google.thought_signature`` on an OpenAI Chat call (Gemini's
compatible endpoint).

A failed tool (``ToolResult.is_error``) is flagged where the provider has a
flag -- Anthropic ``is_error: true``, Bedrock ``status: "error"``, Gemini's
``response: {"error": ...}`` (instead of ``{"output": ...}``) -- and
elsewhere its content is prefixed with ``"Error: "``.

The tables at the end map each canonical provider name to its builders;
:mod:`streamcalls.codec._encode` holds the typed public functions over them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._events import ToolCall
from .._results import ToolResult
from ._tool import Tool

__all__ = ("CALLS", "ERROR_PREFIX", "RESULTS", "TOOLS", "Message")

Message = dict[str, Any]
"""One message (or Responses input item) of a conversation, as plain data."""

ERROR_PREFIX = "Error: "

ToolsEncoder = Callable[[list[Tool]], list[Message]]
CallsEncoder = Callable[[list[ToolCall], "str | None"], "Message | list[Message]"]
ResultsEncoder = Callable[[list[ToolResult]], list[Message]]


def _described(spec: Message, tool: Tool) -> Message:
    if tool.description:  # Bedrock rejects an empty description; nobody needs one
        spec["description"] = tool.description
    return spec


def _flagged(result: ToolResult) -> str:
    return ERROR_PREFIX + result.content if result.is_error else result.content


# -- tool definitions ---------------------------------------------------------------------


def _tools_openai(tools: list[Tool]) -> list[Message]:
    return [
        {"type": "function", "function": {**_described({"name": t.name}, t), "parameters": t.schema}}
        for t in tools
    ]


def _tools_responses(tools: list[Tool]) -> list[Message]:
    # "strict": false -- left out, the Responses API rewrites the schema into
    # strict mode (every property required, no additional ones).
    return [
        {"type": "function", **_described({"name": t.name}, t), "parameters": t.schema, "strict": False}
        for t in tools
    ]


def _tools_anthropic(tools: list[Tool]) -> list[Message]:
    return [{**_described({"name": t.name}, t), "input_schema": t.schema} for t in tools]


def _tools_gemini(tools: list[Tool]) -> list[Message]:
    # One Tool holding every declaration.  parametersJsonSchema takes a JSON
    # schema as it is; "parameters" wants Google's OpenAPI subset.
    declarations = [{**_described({"name": t.name}, t), "parametersJsonSchema": t.schema} for t in tools]
    return [{"functionDeclarations": declarations}]


def _tools_bedrock(tools: list[Tool]) -> list[Message]:
    return [
        {"toolSpec": {**_described({"name": t.name}, t), "inputSchema": {"json": t.schema}}} for t in tools
    ]


# -- the assistant's calls ------------------------------------------------------------------


def _calls_openai(calls: list[ToolCall], text: str | None) -> Message:
    return {"role": "assistant", "content": text or None, "tool_calls": [_openai_call(c) for c in calls]}


def _openai_call(call: ToolCall) -> Message:
    entry: Message = {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments_json},
    }
    if call.thought_signature is not None:  # Gemini 3 through its OpenAI-compatible endpoint
        entry["extra_content"] = {"google": {"thought_signature": call.thought_signature}}
    return entry


def _calls_responses(calls: list[ToolCall], text: str | None) -> list[Message]:
    items: list[Message] = [{"type": "message", "role": "assistant", "content": text}] if text else []
    items += [
        {"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.arguments_json}
        for c in calls
    ]
    return items


def _calls_anthropic(calls: list[ToolCall], text: str | None) -> Message:
    blocks: list[Message] = [{"type": "text", "text": text}] if text else []
    blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in calls]
    return {"role": "assistant", "content": blocks}


def _calls_ollama(calls: list[ToolCall], text: str | None) -> Message:
    return {
        "role": "assistant",
        "content": text or "",
        "tool_calls": [{"id": c.id, "function": {"name": c.name, "arguments": c.arguments}} for c in calls],
    }


def _calls_gemini(calls: list[ToolCall], text: str | None) -> Message:
    parts: list[Message] = [{"text": text}] if text else []
    for c in calls:
        part: Message = {"functionCall": {"id": c.id, "name": c.name, "args": c.arguments}}
        if c.thought_signature is not None:  # Gemini 3 refuses the request without it
            part["thoughtSignature"] = c.thought_signature
        parts.append(part)
    return {"role": "model", "parts": parts}


def _calls_bedrock(calls: list[ToolCall], text: str | None) -> Message:
    blocks: list[Message] = [{"text": text}] if text else []
    blocks += [{"toolUse": {"toolUseId": c.id, "name": c.name, "input": c.arguments}} for c in calls]
    return {"role": "assistant", "content": blocks}


def _calls_cohere(calls: list[ToolCall], text: str | None) -> Message:
    message: Message = {
        "role": "assistant",
        "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_json}}
            for c in calls
        ],
    }
    if text:
        message["tool_plan"] = text  # Cohere's text before its calls
    return message


# -- the tools' results ----------------------------------------------------------------------


def _results_openai(results: list[ToolResult]) -> list[Message]:
    return [{"role": "tool", "tool_call_id": r.call_id, "content": _flagged(r)} for r in results]


def _results_responses(results: list[ToolResult]) -> list[Message]:
    return [{"type": "function_call_output", "call_id": r.call_id, "output": _flagged(r)} for r in results]


def _results_anthropic(results: list[ToolResult]) -> list[Message]:
    # All results of a turn go in one user message, as Anthropic asks for parallel calls.
    blocks: list[Message] = []
    for r in results:
        block: Message = {"type": "tool_result", "tool_use_id": r.call_id, "content": r.content}
        if r.is_error:
            block["is_error"] = True
        blocks.append(block)
    return [{"role": "user", "content": blocks}]


def _results_ollama(results: list[ToolResult]) -> list[Message]:
    return [
        {"role": "tool", "content": _flagged(r), "tool_name": r.name, "tool_call_id": r.call_id}
        for r in results
    ]


def _results_gemini(results: list[ToolResult]) -> list[Message]:
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


def _results_bedrock(results: list[ToolResult]) -> list[Message]:
    # One user message: Converse requires user and assistant turns to alternate.
    blocks = [
        {
            "toolResult": {
                "toolUseId": r.call_id,
                "content": [{"text": r.content}],
                "status": "error" if r.is_error else "success",
            }
        }
        for r in results
    ]
    return [{"role": "user", "content": blocks}]


def _results_cohere(results: list[ToolResult]) -> list[Message]:
    return [{"role": "tool", "tool_call_id": r.call_id, "content": _flagged(r)} for r in results]


TOOLS: dict[str, ToolsEncoder] = {
    "openai": _tools_openai,
    "openai-responses": _tools_responses,
    "anthropic": _tools_anthropic,
    "ollama": _tools_openai,
    "gemini": _tools_gemini,
    "bedrock": _tools_bedrock,
    "cohere": _tools_openai,
}

CALLS: dict[str, CallsEncoder] = {
    "openai": _calls_openai,
    "openai-responses": _calls_responses,
    "anthropic": _calls_anthropic,
    "ollama": _calls_ollama,
    "gemini": _calls_gemini,
    "bedrock": _calls_bedrock,
    "cohere": _calls_cohere,
}

RESULTS: dict[str, ResultsEncoder] = {
    "openai": _results_openai,
    "openai-responses": _results_responses,
    "anthropic": _results_anthropic,
    "ollama": _results_ollama,
    "gemini": _results_gemini,
    "bedrock": _results_bedrock,
    "cohere": _results_cohere,
}
