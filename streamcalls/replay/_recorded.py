"""What a recorded turn holds, as the provider's own client keeps it: the state a next request sends back.

The parser's events say what a turn means (text, reasoning, calls); a
provider that signs or encrypts its reasoning also wants the blocks
themselves back, unchanged and in order.  These readers rebuild them from
the recorded body, the way the provider's SDK accumulates a stream, for the
history rules that compare a request with what the model sent
(the rules in the provider packages, :mod:`._checks`) and for the complete responses (:mod:`._complete`):

- Anthropic: the ``content`` blocks -- ``thinking`` with its ``signature``,
  ``redacted_thinking`` with its ``data``, ``text``, ``tool_use`` -- by
  their ``index``, each delta appended to its block;
- OpenAI Responses: the ``output`` items, as each ``response.output_item.done``
  event gives them whole (a ``reasoning`` item with its ``id``, ``summary``
  and ``encrypted_content``, a ``function_call`` with its ``id``);
- Bedrock Converse: the ``content`` blocks, ``reasoningContent`` holding
  ``reasoningText{text, signature}`` or ``redactedContent``;
- Bedrock InvokeModel: the model's own events, one in each ``chunk``
  frame (base64 in its ``bytes``), and for Claude its Messages content
  blocks, as Anthropic's;
- OpenAI Chat and the servers that speak it: the ``model`` the chunks name
  (which server answered: DeepSeek, Kimi, Mistral's, OpenAI's) and whether
  the turn streamed ``reasoning_content``.

A recording that is not a clean stream (an error body, a cut-off stream)
gives what its readable records hold.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

import msgspec

from .._limits import DEFAULT_LIMITS
from ..framing._eventstream import EventStreamFramer
from ..framing._sse import SSEFramer

__all__ = (
    "anthropic_blocks",
    "bedrock_blocks",
    "chat_dialect",
    "chat_model",
    "chat_reasons",
    "invoke_claude_blocks",
    "invoke_objects",
    "responses_items",
    "sse_payloads",
)

Block = dict[str, Any]

_MISTRAL_FAMILY = ("mistral", "magistral", "codestral", "devstral", "ministral", "pixtral", "open-mi")
_OPENAI_FAMILY = ("gpt-", "chatgpt-", "o1", "o3", "o4", "codex-")


class _Records:
    """The sink collecting each record: its name (SSE event or frame type) and its payload."""

    def __init__(self) -> None:
        self.records: list[tuple[str | None, bytes]] = []

    def on_record(self, name: str | None, data: bytes) -> None:
        self.records.append((name, data))

    def on_done(self) -> None:
        pass

    def on_framing_error(self, message: str, raw: bytes | bytearray | str = b"") -> None:
        pass  # a recording's own framing errors are not what a rule compares


def sse_payloads(body: bytes) -> list[bytes]:
    """The data of each SSE event of a recorded body (its own framing errors are ignored)."""
    sink = _Records()
    framer = SSEFramer(sink, DEFAULT_LIMITS.max_line_bytes, DEFAULT_LIMITS.max_event_bytes)
    framer.feed(body)
    framer.close()
    return [data for _, data in sink.records]


def _objects(body: bytes) -> list[dict[str, Any]]:
    """The JSON objects of an SSE body's events (``[DONE]`` and what does not decode are skipped)."""
    found = []
    for data in sse_payloads(body):
        try:
            obj = msgspec.json.decode(data)
        except msgspec.DecodeError:
            continue
        if isinstance(obj, dict):
            found.append(obj)
    return found


def _frames(body: bytes) -> list[tuple[str | None, dict[str, Any]]]:
    """The event type and JSON payload of each message of an AWS event-stream body."""
    sink = _Records()
    framer = EventStreamFramer(sink, DEFAULT_LIMITS.max_event_bytes)
    framer.feed(body)
    framer.close()
    found = []
    for name, data in sink.records:
        try:
            obj = msgspec.json.decode(data)
        except msgspec.DecodeError:
            continue
        if isinstance(obj, dict):
            found.append((name, obj))
    return found


def anthropic_blocks(body: bytes) -> list[Block]:
    """An Anthropic stream's content blocks, in order, as the SDK's final message holds them.

    A ``tool_use`` block's ``input`` is its arguments' JSON decoded, or None
    if they do not decode (a call cut off).
    """
    return _claude_blocks(_objects(body))


def invoke_objects(body: bytes) -> list[dict[str, Any]]:
    """The model's own events of an InvokeModel stream: the JSON each ``chunk`` frame's ``bytes`` hold."""
    found = []
    for name, obj in _frames(body):
        data = obj.get("bytes")
        if name != "chunk" or not isinstance(data, str):
            continue
        try:
            event = msgspec.json.decode(base64.b64decode(data, validate=True))
        except (binascii.Error, msgspec.DecodeError):
            continue
        if isinstance(event, dict):
            found.append(event)
    return found


def invoke_claude_blocks(body: bytes) -> list[Block]:
    """The content blocks of Claude's Messages events in an InvokeModel stream (see :func:`anthropic_blocks`)."""
    return _claude_blocks(invoke_objects(body))


def _claude_blocks(events: list[dict[str, Any]]) -> list[Block]:
    blocks: dict[int, Block] = {}
    partial: dict[int, str] = {}
    for obj in events:
        kind, index = obj.get("type"), obj.get("index")
        if not isinstance(index, int):
            continue
        if kind == "content_block_start" and isinstance(obj.get("content_block"), dict):
            blocks[index] = dict(obj["content_block"])
            partial[index] = ""
            continue
        block, delta = blocks.get(index), obj.get("delta")
        if kind != "content_block_delta" or block is None or not isinstance(delta, dict):
            continue
        for field, key in (
            ("text", "text"),
            ("thinking", "thinking"),
            ("signature", "signature"),
        ):
            if delta.get("type") == f"{field}_delta" and isinstance(delta.get(key), str):
                block[key] = block.get(key, "") + delta[key]
        if delta.get("type") == "input_json_delta" and isinstance(delta.get("partial_json"), str):
            partial[index] += delta["partial_json"]
    for index, block in blocks.items():
        if block.get("type") == "tool_use" and partial[index]:
            try:
                block["input"] = msgspec.json.decode(partial[index])
            except msgspec.DecodeError:
                block["input"] = None
    return [blocks[index] for index in sorted(blocks)]


def responses_items(body: bytes) -> list[Block]:
    """A Responses stream's output items, in ``output_index`` order, as ``response.output_item.done`` gives them."""
    items: dict[int, Block] = {}
    for obj in _objects(body):
        index, item = obj.get("output_index"), obj.get("item")
        if (
            obj.get("type") == "response.output_item.done"
            and isinstance(index, int)
            and isinstance(item, dict)
        ):
            items[index] = item
    return [items[index] for index in sorted(items)]


def bedrock_blocks(body: bytes) -> list[Block]:
    """A Converse stream's content blocks, in order, as the Converse output holds them.

    ``{"text": ...}``, ``{"toolUse": {"toolUseId", "name", "input"}}`` (the
    input decoded, None if it does not decode) and ``{"reasoningContent":
    {"reasoningText": {"text", "signature"?}}}`` or ``{"reasoningContent":
    {"redactedContent": ...}}``.
    """
    blocks: dict[int, Block] = {}
    inputs: dict[int, str] = {}
    for name, obj in _frames(body):
        index = obj.get("contentBlockIndex")
        if not isinstance(index, int):
            continue
        if name == "contentBlockStart":
            use = (obj.get("start") or {}).get("toolUse")
            if isinstance(use, dict):
                blocks[index] = {"toolUse": {"toolUseId": use.get("toolUseId"), "name": use.get("name")}}
                inputs[index] = ""
        elif name == "contentBlockDelta" and isinstance(obj.get("delta"), dict):
            _bedrock_delta(blocks, inputs, index, obj["delta"])
    for index, piece in inputs.items():
        try:
            blocks[index]["toolUse"]["input"] = msgspec.json.decode(piece) if piece else {}
        except msgspec.DecodeError:
            blocks[index]["toolUse"]["input"] = None
    return [blocks[index] for index in sorted(blocks)]


def _bedrock_delta(blocks: dict[int, Block], inputs: dict[int, str], index: int, delta: Block) -> None:
    if isinstance(delta.get("text"), str):
        block = blocks.setdefault(index, {"text": ""})
        block["text"] = block.get("text", "") + delta["text"]
    elif isinstance(delta.get("toolUse"), dict) and index in inputs:
        inputs[index] += delta["toolUse"].get("input") or ""
    elif isinstance(delta.get("reasoningContent"), dict):
        reasoning = delta["reasoningContent"]
        block = blocks.setdefault(index, {"reasoningContent": {}})["reasoningContent"]
        if "redactedContent" in reasoning:
            block["redactedContent"] = reasoning["redactedContent"]
            return
        text = block.setdefault("reasoningText", {"text": ""})
        if isinstance(reasoning.get("text"), str):
            text["text"] += reasoning["text"]
        if isinstance(reasoning.get("signature"), str):
            text["signature"] = text.get("signature", "") + reasoning["signature"]


def chat_model(body: bytes) -> str | None:
    """The ``model`` an OpenAI Chat stream's first chunk names (None: none)."""
    for obj in _objects(body):
        model = obj.get("model")
        if isinstance(model, str):
            return model
    return None


def chat_reasons(body: bytes) -> bool:
    """Whether an OpenAI Chat stream's chunks carry ``reasoning_content`` (the model thought)."""
    for obj in _objects(body):
        for choice in obj.get("choices") or ():
            delta = choice.get("delta") if isinstance(choice, dict) else None
            if isinstance(delta, dict) and delta.get("reasoning_content"):
                return True
    return False


def chat_dialect(model: str | None) -> str:
    """Which server a Chat Completions recording is from, by the model its chunks name.

    ``"deepseek"``, ``"kimi"`` (Moonshot's), ``"mistral"``, ``"openai"`` (also
    for a recording that names no model: the route is OpenAI's), or
    ``"compatible"`` for any other server that speaks the format.
    """
    if model is None:
        return "openai"
    name = model.lower().rpartition("/")[2]
    if name.startswith("deepseek"):
        return "deepseek"
    if name.startswith(("kimi", "moonshot")):
        return "kimi"
    if name.startswith(_MISTRAL_FAMILY):
        return "mistral"
    if name.startswith(_OPENAI_FAMILY):
        return "openai"
    return "compatible"
