"""The canonical events a :class:`~streamcalls.StreamParser` produces.

Every event is a frozen msgspec Struct tagged with a ``type`` field, so
``msgspec.json.encode(event)`` gives one JSON object per event and
``msgspec.json.decode(line, type=Event)`` reads it back.  Only the parser
builds events; treat them as values and do not subclass them.

The events that come once per chunk (text, reasoning and argument deltas)
hold only a string and an int, so they can never be part of a reference
cycle: they are declared ``gc=False``, which spares each of them the
collector's header and bookkeeping (about a tenth of a chunk's cost on the
native path; docs/benchmarks.md).
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

__all__ = (
    "Event",
    "ParseError",
    "ProviderError",
    "ReasoningCompleted",
    "ReasoningDelta",
    "ReasoningStarted",
    "StreamFinished",
    "StreamStarted",
    "TextDelta",
    "TextSignature",
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
    """The provider's id for the call, or a generated one (``call_`` + 24 hex digits, or ``id_factory()``)."""
    name: str
    """The tool's name, as the model wrote it."""
    arguments: dict[str, Any]
    """The arguments, decoded once when they closed; ``{}`` for none."""
    index: int = 0
    """The call's number in its stream: 0, 1, 2, ... in the order calls started."""
    source: str = "native"
    """``"native"``, or the text detector that found the call (``"fence"``, ``"json"``, ``"hermes"``, ...)."""
    thought_signature: str | None = None
    """Gemini 3's opaque ``thoughtSignature`` on the call's part (``extra_content.google.thought_signature``
    through Gemini's OpenAI-compatible endpoint), else ``None``.  Gemini rejects the next request if a call
    comes back without it; the codec (:func:`~streamcalls.encode_call`, :meth:`ToolRun.messages
    <streamcalls.ToolRun.messages>`) sends it back as the provider expects."""

    @property
    def arguments_json(self) -> str:
        """The arguments as a canonical compact JSON string."""
        return _encode(self.arguments).decode()


class Usage(msgspec.Struct, frozen=True, omit_defaults=True):
    """Token usage in one vocabulary for every provider (``None`` = not sent).

    Carried by :class:`StreamFinished` when the provider sent counts.
    """

    input_tokens: int | None = None
    """Tokens of the prompt (OpenAI ``prompt_tokens``, Anthropic ``input_tokens``, Gemini ``promptTokenCount``, ...)."""
    output_tokens: int | None = None
    """Tokens the model generated."""
    total_tokens: int | None = None
    """Input and output together: the provider's total, or their sum."""
    reasoning_tokens: int | None = None
    """Of the output, the tokens spent thinking, where the provider counts them apart."""
    cache_read_tokens: int | None = None
    """Of the input, the tokens read from the provider's prompt cache."""
    cache_write_tokens: int | None = None
    """Of the input, the tokens written to the provider's prompt cache."""


class TextDelta(msgspec.Struct, frozen=True, tag="text_delta", tag_field="type", gc=False):
    """A piece of the assistant's text, with recognized tool-call markup removed.

    Comes as the text arrives, from every provider's text channel (OpenAI
    ``content``, Anthropic ``text_delta``, Gemini text parts, ...), split
    wherever the chunks fall.  The text detectors hold back only what could
    still be the start of a call's markup, until the next chunk tells.
    """

    text: str
    """The text."""


class ReasoningDelta(msgspec.Struct, frozen=True, tag="reasoning_delta", tag_field="type", gc=False):
    """A piece of reasoning/thinking content, for providers that stream it.

    Anthropic ``thinking``, ``reasoning_content`` / ``reasoning`` /
    ``reasoning_details`` of OpenAI-compatible servers, Responses reasoning
    summaries, Gemini ``thought`` parts, Ollama ``thinking``, Bedrock
    ``reasoningContent``, Cohere's ``tool_plan``.  Never mixed into
    :class:`TextDelta`, and never searched for calls.

    From a provider's stream it comes inside a block: after a
    :class:`ReasoningStarted` and before its :class:`ReasoningCompleted`.
    A text detector (Harmony's ``analysis`` channel) emits it bare: a run of
    bare reasoning deltas is one block, ended by the next other event.
    """

    text: str
    """The reasoning text."""


class ReasoningStarted(
    msgspec.Struct, frozen=True, omit_defaults=True, tag="reasoning_started", tag_field="type"
):
    """A block of reasoning begins: one Anthropic ``thinking`` or ``redacted_thinking`` block, one
    summary part of a Responses ``reasoning`` item, one Bedrock ``reasoningContent`` block, a run
    of Gemini ``thought`` parts, a run of ``reasoning_content`` deltas, ...

    Comes before the block's :class:`ReasoningDelta` events (a block may have none: a redacted
    one, or a Responses item without a summary), and is followed by exactly one
    :class:`ReasoningCompleted`, with nothing else in between but a :class:`ParseError` (reported
    where the bad bytes are); blocks never nest or overlap.  What it carries is what a writer
    needs before the block's text: which item it belongs to, and what the provider called it.
    """

    id: str | None = None
    """The provider's id for the reasoning: a Responses ``reasoning`` item's ``id`` (``"rs_..."``,
    the same on each block of one item), an OpenRouter ``reasoning_details`` entry's ``id``."""
    kind: str | None = None
    """What the provider called it, the field or part type it came in: ``"thinking"``,
    ``"redacted_thinking"``, ``"summary_text"``, ``"reasoning_text"``, ``"reasoning_content"``,
    ``"reasoning"``, ``"reasoning.text"``, ``"reasoning.summary"``, ``"reasoning.encrypted"``,
    ``"reasoningText"``, ``"redactedContent"``, ``"thought"``, ``"tool_plan"``, ..."""
    format: str | None = None
    """The format a server names for it (OpenRouter's ``reasoning_details`` ``format``, such as
    ``"anthropic-claude-v1"``)."""


class ReasoningCompleted(
    msgspec.Struct, frozen=True, omit_defaults=True, tag="reasoning_completed", tag_field="type"
):
    """The reasoning block opened by the last :class:`ReasoningStarted` ended.

    It carries what the provider sends at a block's end, which the provider requires back,
    unchanged, in the next request's history (see :func:`~streamcalls.encode_turn`): Anthropic's
    ``signature`` (its ``signature_delta``), Bedrock's ``signature`` and ``redactedContent``, a
    Responses item's ``encrypted_content`` (on the item's last block), Gemini's
    ``thoughtSignature``, an OpenRouter ``reasoning_details`` signature or encrypted ``data``.
    """

    signature: str | None = None
    """The signature that verifies the block's text (Anthropic, Bedrock, Gemini, OpenRouter)."""
    redacted: str | None = None
    """Reasoning the provider sent encrypted in place of text: Anthropic's ``redacted_thinking``
    ``data``, Bedrock's ``redactedContent`` (base64)."""
    encrypted: str | None = None
    """A Responses ``reasoning`` item's ``encrypted_content``, an OpenRouter ``reasoning.encrypted``
    entry's ``data``."""


class TextSignature(msgspec.Struct, frozen=True, tag="text_signature", tag_field="type"):
    """Gemini signed the text before it: a ``thoughtSignature`` on a text part (often an empty
    part at the end of the turn).  The text since the last signature, the last call or the last
    reasoning block is one part, which goes back to Gemini with this signature."""

    signature: str
    """The opaque ``thoughtSignature``."""


class ToolCallStarted(msgspec.Struct, frozen=True, tag="tool_call_started", tag_field="type"):
    """A call began: its id and name are known.  Always the first event of a call.

    Comes as soon as the provider has sent both (for a call found in the
    text: once the markup shows it is a call).  Then come the call's
    :class:`ToolCallDelta` events, and exactly one :class:`ToolCallCompleted`
    or :class:`ToolCallFailed` with the same ``index``.
    """

    index: int
    """The call's number in its stream, from 0; every event of the call carries it."""
    id: str
    """The provider's id, or a generated one; unique within the stream (a repeated id gets ``#2``)."""
    name: str
    """The tool's name; ``""`` only for a call that fails before it had one."""


class ToolCallDelta(msgspec.Struct, frozen=True, tag="tool_call_delta", tag_field="type", gc=False):
    """A raw fragment of a call's arguments, exactly as the provider sent it.

    Comes between the call's :class:`ToolCallStarted` and its end, once per
    fragment.  A call that arrives whole (Ollama, Gemini) gets one delta
    holding all of its arguments' JSON.  The concatenated deltas are the
    call's argument text; :class:`ToolCallPatch` says what each one changed
    in their value.
    """

    index: int
    """The call's number in its stream."""
    arguments_delta: str
    """The fragment of argument JSON text."""


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
    """The call's number in its stream."""
    op: Literal["add", "append"]
    """``"add"``: set the value at ``path``; ``"append"``: extend the string at ``path``."""
    path: tuple[PathSegment, ...]
    """Where, from the arguments' root: member names and array indices; ``()`` is the root."""
    value: Any
    """What is added there, or the text appended."""

    @property
    def pointer(self) -> str:
        """``path`` as an RFC 6901 JSON Pointer: ``("a/b", 0)`` is ``"/a~1b/0"``, ``()`` is ``""``."""
        return "".join(
            "/" + (segment.replace("~", "~0").replace("/", "~1") if type(segment) is str else str(segment))
            for segment in self.path
        )


class ToolCallCompleted(msgspec.Struct, frozen=True, tag="tool_call_completed", tag_field="type"):
    """A call is complete: its arguments closed and decoded to an object.

    Comes out of the very ``feed()`` whose bytes close the arguments' JSON
    object (or carry the provider's end of the call), while the rest of the
    stream is still to come: the moment to start the tool.
    """

    call: ToolCall
    """The call, with its arguments decoded."""


class ToolCallFailed(msgspec.Struct, frozen=True, tag="tool_call_failed", tag_field="type"):
    """A call that is malformed, truncated or over a limit.  The stream goes on.

    Comes in place of :class:`ToolCallCompleted`: when the arguments close
    and do not decode to an object, when the stream ends (or the provider
    reports an error or a length cut-off) with the call still open, when a
    :class:`~streamcalls.Limits` limit breaks, or when a call written in the
    text is malformed.  Never run such a call.

    ``raw`` holds the argument text received for the call, so nothing is lost.
    """

    index: int
    """The call's number in its stream."""
    id: str
    """The call's id."""
    name: str
    """The tool's name; ``""`` if the call failed before it had one."""
    raw: str
    """The argument text received (for a call in the text: its whole markup, delimiters included)."""
    error: str
    """Why, in words; it names the limit when one broke."""


class StreamStarted(msgspec.Struct, frozen=True, omit_defaults=True, tag="stream_started", tag_field="type"):
    """A provider's stream began: whose it is, and the model and response id where it names them.

    Comes once, first, from the first record of a provider's stream (before it only framing
    errors may come); a complete response read whole gives it too.  Not for
    ``provider="text"`` streams, nor for a stream or body that opens with an error.
    """

    provider: str
    """The stream's wire format, by its canonical name (``"openai"`` for every OpenAI-compatible
    server, ``"anthropic"``, ``"openai-responses"``, ...)."""
    model: str | None = None
    """The model the stream names (``model``, Gemini's ``modelVersion``), if it names one."""
    response_id: str | None = None
    """The response's id (``chatcmpl-...``, ``msg_...``, ``resp_...``, Gemini's ``responseId``,
    Cohere's message id), if the stream sends one."""


class StreamFinished(msgspec.Struct, frozen=True, tag="stream_finished", tag_field="type"):
    """The stream ended.

    Comes exactly once, last of the stream's call events: at the provider's
    end marker (``finish_reason``, ``message_stop``, ``done: true``, ...), or
    at ``close()`` when the stream ended without one.  Calls still open
    have failed before it.

    ``reason`` is one of ``"stop"``, ``"tool_calls"``, ``"length"``,
    ``"content_filter"`` and ``"error"``; ``provider_reason`` keeps the
    provider's own value.  ``usage`` is set when the provider sent token counts.
    """

    reason: str
    """``"stop"``, ``"tool_calls"`` (also a normal stop after calls), ``"length"``, ``"content_filter"`` or ``"error"``."""
    usage: Usage | None = None
    """The token counts, when the provider sent them."""
    provider_reason: str | None = None
    """The provider's own word for the end (``"end_turn"``, ``"MAX_TOKENS"``, ...)."""


class ProviderError(
    msgspec.Struct,
    frozen=True,
    tag="provider_error",
    tag_field="type",
    omit_defaults=True,
    repr_omit_defaults=True,
):
    """An error the provider itself sent inside the stream.

    Comes when the stream carries one (OpenAI ``{"error"}``, Anthropic
    ``event: error``, Responses ``response.failed``, Bedrock exception
    frames, ...), when the whole body is an error object or a proxy's HTML
    page, and -- from ``from_httpx`` -- for a non-2xx response.  Calls still
    open fail; calls completed before stay completed.  Then comes
    ``StreamFinished("error")``.  With ``raise_provider_errors=True`` it is
    raised instead, as :class:`~streamcalls.ProviderFailure`.

    ``status`` and ``retry_after`` are what a loop needs to decide whether,
    and when, to try again.  A field left at its default (``None``) is left
    out of the event's JSON.
    """

    message: str
    """The provider's message, as it wrote it."""
    code: str | None = None
    """The provider's code or error type (``"rate_limit_error"``, ``"RESOURCE_EXHAUSTED"``, ...), if it sent one."""
    status: int | None = None
    """The HTTP status: the response's, when it refused the request (``from_httpx``); the one an error body
    names (Gemini's ``"code": 429``); else, for an error inside a stream, the one the provider documents for
    its ``code`` (Anthropic ``overloaded_error``: 529, Bedrock ``throttlingException``: 429, Google
    ``UNAVAILABLE``: 503).  ``None`` when none is known."""
    retry_after: float | None = None
    """Seconds the provider asks to wait before trying again: the ``Retry-After`` (or ``retry-after-ms``)
    header of a response ``from_httpx`` read, in seconds or as a date, or the body's own delay (Gemini's
    ``RetryInfo.retryDelay``).  ``None`` when it gave none."""


class ParseError(msgspec.Struct, frozen=True, tag="parse_error", tag_field="type"):
    """Bytes that could not be framed or decoded.  Parsing resumes after them.

    Comes where the problem is found: a payload that is not JSON, a record of
    an unexpected shape, a line or event over its limit, invalid UTF-8 (with
    ``invalid_utf8="report"``), text after a call's closed arguments, a
    stream ``provider="auto"`` cannot tell.  With ``strict=True`` the first
    one raises :class:`~streamcalls.MalformedStreamError` instead.
    """

    message: str
    """What was wrong, and where (a JSON path, a stream offset, the limit's name)."""
    raw: str = ""
    """The offending input as text, or the start of it."""


Event = (
    TextDelta
    | ReasoningDelta
    | ReasoningStarted
    | ReasoningCompleted
    | TextSignature
    | StreamStarted
    | ToolCallStarted
    | ToolCallDelta
    | ToolCallPatch
    | ToolCallCompleted
    | ToolCallFailed
    | StreamFinished
    | ProviderError
    | ParseError
)
"""The union of every event type.

Annotate with it, dispatch on it (``match event: case TextDelta(text=t): ...``),
and read events written as JSON lines back with
``msgspec.json.decode(line, type=streamcalls.Event)``: the ``type`` tag picks
the class.
"""
