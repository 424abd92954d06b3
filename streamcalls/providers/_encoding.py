"""What the providers' request encodings share: the message type, the tool shape, what a turn's writer gets.

Each provider's ``encoding`` module (``providers/<name>/encoding.py``) writes
its request shapes as plain ``dict``/``list`` values (``msgspec.json.encode``
and any HTTP client take them as they are), from the provider's documented
request format: ``encode_tools`` (tool definitions), ``encode_calls`` (the
assistant's calls, after its text), ``encode_results`` (the tools' results)
and ``encode_assistant`` (a whole :class:`~streamcalls.Turn`'s assistant
message, from a :class:`Written`).  The codec's typed public functions
(:mod:`streamcalls.codec`) find them through the provider registry.

A failed tool (``ToolResult.is_error``) is flagged where the provider has a
flag and elsewhere its content is prefixed with :data:`ERROR_PREFIX`
(:func:`flagged`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from .._events import ToolCall
from .._results import ToolResult
from .._turn import Part, ReasoningPart, TextPart

__all__ = (
    "ERROR_PREFIX",
    "AssistantEncoder",
    "CallsEncoder",
    "Message",
    "ResultsEncoder",
    "ToolShape",
    "ToolsEncoder",
    "Written",
    "calls",
    "described",
    "flagged",
    "reasoning",
    "texts",
)

Message = dict[str, Any]
"""One message (or Responses input item) of a conversation, as plain data."""

ERROR_PREFIX = "Error: "


class ToolShape(Protocol):
    """A tool as the encodings read it (:class:`streamcalls.Tool` is one): its name, description, schema."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def schema(self) -> dict[str, Any]: ...


class Written(NamedTuple):
    """What a provider's writer gets: the parts to write and how."""

    parts: list[Part]
    same: bool  # the turn is the target's own: signatures and ids go back as they came
    provider: str  # the codec name asked for ("deepseek", "mistral", ...)
    ids: Callable[[str], str]  # a call id as the target takes it
    raw: Mapping[str, str]  # each call's argument text, by id

    def arguments(self, call: ToolCall) -> str:
        """The arguments as the model wrote them, for a provider that takes a string."""
        raw = self.raw.get(call.id)
        return raw if raw is not None and raw.strip() else call.arguments_json

    def signature(self, part: TextPart) -> str | None:
        return part.signature if self.same else None


ToolsEncoder = Callable[[Sequence[ToolShape]], list[Message]]
CallsEncoder = Callable[[list[ToolCall], "str | None"], "Message | list[Message]"]
ResultsEncoder = Callable[[list[ToolResult]], list[Message]]
AssistantEncoder = Callable[[Written], list[Message]]


def described(spec: Message, tool: ToolShape) -> Message:
    if tool.description:  # Bedrock rejects an empty description; nobody needs one
        spec["description"] = tool.description
    return spec


def flagged(result: ToolResult) -> str:
    return ERROR_PREFIX + result.content if result.is_error else result.content


def texts(written: Written) -> str:
    return "".join(part.text for part in written.parts if type(part) is TextPart)


def calls(written: Written) -> list[ToolCall]:
    return [part for part in written.parts if type(part) is ToolCall]


def reasoning(written: Written) -> list[ReasoningPart]:
    return [part for part in written.parts if type(part) is ReasoningPart]
