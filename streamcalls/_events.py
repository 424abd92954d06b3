"""The canonical events a :class:`~streamcalls.StreamParser` produces.

Every event is a frozen msgspec Struct tagged with a ``type`` field, so
``msgspec.json.encode(event)`` gives one JSON object per event and
``msgspec.json.decode(line, type=Event)`` reads it back.  Only the parser
builds events; treat them as values and do not subclass them.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

__all__ = (
    "Event",
    "ParseError",
    "ProviderError",
    "ReasoningDelta",
    "StreamFinished",
    "TextDelta",
    "ToolCall",
    "ToolCallCompleted",
    "ToolCallDelta",
    "ToolCallFailed",
    "ToolCallPatch",
    "ToolCallStarted",
    "Usage",
)

PathSegment = str | int
"""One step of a :class:`ToolCallPatch` path: an object member's name or an array index."""

_encode = msgspec.json.encode


class ToolCall(msgspec.Struct, frozen=True):
    """One complete tool call.

    ``arguments`` is always a JSON object decoded to a dict; a provider's
    empty arguments (``""``, no fragments at all) become ``{}``.  ``index``
    numbers the calls of one stream from 0 in stream order, and ``source``
    says where the call was found: ``"native"`` for the provider's own tool
    calls, or the name of the text detector that found it (``"fence"``,
    ``"json"``, ...).
    """

    id: str
    name: str
    arguments: dict[str, Any]
    index: int = 0
    source: str = "native"

    @property
    def arguments_json(self) -> str:
        """The arguments as a canonical compact JSON string."""
        return _encode(self.arguments).decode()


class Usage(msgspec.Struct, frozen=True, omit_defaults=True):
    """Token usage in one vocabulary for every provider (``None`` = not sent)."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    reasoning_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None


class TextDelta(msgspec.Struct, frozen=True, tag="text_delta", tag_field="type"):
    """A piece of the assistant's text, with recognized tool-call markup removed."""

    text: str


class ReasoningDelta(msgspec.Struct, frozen=True, tag="reasoning_delta", tag_field="type"):
    """A piece of reasoning/thinking content, for providers that stream it."""

    text: str


class ToolCallStarted(msgspec.Struct, frozen=True, tag="tool_call_started", tag_field="type"):
    """A call began: its id and name are known.  Always the first event of a call."""

    index: int
    id: str
    name: str


class ToolCallDelta(msgspec.Struct, frozen=True, tag="tool_call_delta", tag_field="type"):
    """A raw fragment of a call's arguments, exactly as the provider sent it."""

    index: int
    arguments_delta: str


class ToolCallPatch(msgspec.Struct, frozen=True, tag="tool_call_patch", tag_field="type"):
    """A change to a call's arguments as they stream (``partial_arguments=True``).

    Applied in order (:class:`~streamcalls.PartialArguments` does it), a
    call's patches give the value of the argument text received so far.
    ``op`` is ``"add"`` (RFC 6902: ``path == ()`` sets the root, a ``str``
    last segment sets an object member -- a later duplicate key replaces
    it -- and an ``int`` one appends an array element at that index, the
    array's current length) or ``"append"`` (``value``, a non-empty ``str``,
    is added to the end of the string at ``path``).  An added ``value`` is
    ``{}``, ``[]`` or ``""`` for a container or string that begins, the
    final value of a number, ``true``, ``false`` or ``null``, or -- for a
    call that arrives whole, or whose decoded arguments are not the value
    streamed (empty, or a JSON string holding the object) -- the whole value.
    """

    index: int
    op: Literal["add", "append"]
    path: tuple[PathSegment, ...]
    value: Any

    @property
    def pointer(self) -> str:
        """``path`` as an RFC 6901 JSON Pointer: ``("a/b", 0)`` is ``"/a~1b/0"``, ``()`` is ``""``."""
        return "".join(
            "/" + (segment.replace("~", "~0").replace("/", "~1") if type(segment) is str else str(segment))
            for segment in self.path
        )


class ToolCallCompleted(msgspec.Struct, frozen=True, tag="tool_call_completed", tag_field="type"):
    """A call is complete: its arguments closed and decoded to an object."""

    call: ToolCall


class ToolCallFailed(msgspec.Struct, frozen=True, tag="tool_call_failed", tag_field="type"):
    """A call that is malformed, truncated or over a limit.  The stream goes on.

    ``raw`` holds the argument text received for the call, so nothing is lost.
    """

    index: int
    id: str
    name: str
    raw: str
    error: str


class StreamFinished(msgspec.Struct, frozen=True, tag="stream_finished", tag_field="type"):
    """The stream ended.

    ``reason`` is one of ``"stop"``, ``"tool_calls"``, ``"length"``,
    ``"content_filter"`` and ``"error"``; ``provider_reason`` keeps the
    provider's own value.  ``usage`` is set when the provider sent token counts.
    """

    reason: str
    usage: Usage | None = None
    provider_reason: str | None = None


class ProviderError(msgspec.Struct, frozen=True, tag="provider_error", tag_field="type"):
    """An error the provider itself sent inside the stream."""

    message: str
    code: str | None = None


class ParseError(msgspec.Struct, frozen=True, tag="parse_error", tag_field="type"):
    """Bytes that could not be framed or decoded.  Parsing resumes after them."""

    message: str
    raw: str = ""


Event = (
    TextDelta
    | ReasoningDelta
    | ToolCallStarted
    | ToolCallDelta
    | ToolCallPatch
    | ToolCallCompleted
    | ToolCallFailed
    | StreamFinished
    | ProviderError
    | ParseError
)
"""The union of every event type."""
