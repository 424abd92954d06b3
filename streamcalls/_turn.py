"""One assistant turn, accumulated from its events: :class:`Turn`, its parts, :func:`accumulate`.

Sans-IO like the parser: a :class:`TurnBuilder` takes the events one by one
(``add``) and holds the turn so far (``turn``); :func:`accumulate` does the
same for a finished list.  Everything a turn holds travels in the events --
the stream's provider, model and id (:class:`~streamcalls.StreamStarted`),
the reasoning blocks with what the provider requires back
(:class:`~streamcalls.ReasoningStarted`, :class:`~streamcalls.ReasoningCompleted`),
Gemini's signatures on text (:class:`~streamcalls.TextSignature`), each
call's argument text (the :class:`~streamcalls.ToolCallDelta` fragments) --
so the turn is the same however the stream was chunked, and whether it came
from a stream or a complete response.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from ._events import (
    ParseError,
    ProviderError,
    ReasoningCompleted,
    ReasoningDelta,
    ReasoningStarted,
    StreamFinished,
    StreamStarted,
    TextDelta,
    TextSignature,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallStarted,
    Usage,
)

__all__ = ("Part", "ReasoningPart", "TextPart", "Turn", "TurnBuilder", "TurnError", "accumulate")


class TextPart(msgspec.Struct, frozen=True):
    """A run of the assistant's text: the text between two reasoning blocks or calls."""

    text: str
    """The text."""
    signature: str | None = None
    """Gemini's ``thoughtSignature`` on the text's last part (:class:`~streamcalls.TextSignature`), else ``None``."""


class ReasoningPart(msgspec.Struct, frozen=True):
    """One block of reasoning, as the provider sent it; ``None`` where the provider sent none.

    Anthropic ``thinking`` (``text`` and ``signature``) and ``redacted_thinking``
    (``redacted``); Bedrock ``reasoningText`` (``text``, ``signature``) and
    ``redactedContent`` (``redacted``, base64); a Responses ``reasoning`` item's
    summary or reasoning-text part (``text``; ``id``, and ``encrypted`` on the
    item's last part); ``reasoning_content`` / ``reasoning`` / ``reasoning_details``
    of OpenAI-compatible servers; a run of Gemini ``thought`` parts (``signature``);
    Ollama ``thinking``; Cohere's ``tool_plan``.
    """

    text: str = ""
    """The reasoning text (``""`` for a redacted block, or a Responses item without a summary)."""
    signature: str | None = None
    """The signature that verifies ``text`` (Anthropic, Bedrock, Gemini, OpenRouter)."""
    redacted: str | None = None
    """Reasoning sent encrypted instead of text: Anthropic ``redacted_thinking.data``, Bedrock ``redactedContent``."""
    encrypted: str | None = None
    """A Responses reasoning item's ``encrypted_content``; OpenRouter's ``reasoning.encrypted`` data."""
    id: str | None = None
    """A Responses reasoning item's ``id`` (every part of one item has it); an OpenRouter detail's ``id``."""
    kind: str | None = None
    """What the provider called it (see :attr:`ReasoningStarted.kind <streamcalls.ReasoningStarted.kind>`)."""
    format: str | None = None
    """OpenRouter's ``reasoning_details`` ``format``."""

    @property
    def signed(self) -> bool:
        """Whether it carries something only its own provider can verify: a signature,
        redacted or encrypted content."""
        return self.signature is not None or self.redacted is not None or self.encrypted is not None


Part = TextPart | ReasoningPart | ToolCall
"""One part of a :class:`Turn`."""

TurnError = ProviderError | ParseError | ToolCallFailed
"""What can go wrong in a turn: the provider's error, bytes that could not be read, a call that failed."""


class Turn(msgspec.Struct, frozen=True):
    """One assistant turn: everything the model produced, in the order it produced it.

    Build one with :func:`accumulate` (or :class:`TurnBuilder`, as a stream goes);
    write it back for the next request with :func:`~streamcalls.encode_turn`.  A
    turn with ``errors`` is not an answer: check them before taking ``text``.
    """

    parts: tuple[Part, ...] = ()
    """Text, reasoning blocks and completed calls, in the order the provider sent them (a
    call where it started)."""
    finish_reason: str | None = None
    """:attr:`StreamFinished.reason <streamcalls.StreamFinished.reason>`; ``None`` if the stream never finished."""
    usage: Usage | None = None
    """The token counts, when the provider sent them."""
    provider: str | None = None
    """The stream's wire format (``"anthropic"``, ``"openai"``, ...), from its :class:`~streamcalls.StreamStarted`."""
    model: str | None = None
    """The model the stream named, if it named one."""
    response_id: str | None = None
    """The response's id, if the stream sent one."""
    errors: tuple[TurnError, ...] = ()
    """The turn's :class:`~streamcalls.ProviderError`, :class:`~streamcalls.ParseError` and
    :class:`~streamcalls.ToolCallFailed` events, in order."""
    raw_arguments: dict[str, str] = msgspec.field(default_factory=dict)
    """Each completed call's argument text as the model wrote it (its deltas joined), by call
    id: what :func:`~streamcalls.encode_turn` sends back where a provider takes a string."""

    @property
    def text(self) -> str:
        """All the text, joined."""
        return "".join(part.text for part in self.parts if type(part) is TextPart)

    @property
    def reasoning(self) -> str:
        """All the reasoning text, joined."""
        return "".join(part.text for part in self.parts if type(part) is ReasoningPart)

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        """The completed calls, in order."""
        return tuple(part for part in self.parts if type(part) is ToolCall)


# -- the builder --------------------------------------------------------------------------------


class _Text:
    __slots__ = ("pieces", "signature")

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.signature: str | None = None

    def part(self) -> TextPart | None:
        pieces = self.pieces
        if len(pieces) > 1:
            pieces[:] = ["".join(pieces)]  # asked again, the turn so far costs nothing more
        text = pieces[0] if pieces else ""
        return TextPart(text, self.signature) if text or self.signature is not None else None


class _Reasoning:
    __slots__ = ("end", "pieces", "start")

    def __init__(self, start: ReasoningStarted) -> None:
        self.pieces: list[str] = []
        self.start = start
        self.end: ReasoningCompleted | None = None

    def part(self) -> ReasoningPart:
        pieces = self.pieces
        if len(pieces) > 1:
            pieces[:] = ["".join(pieces)]
        start, end = self.start, self.end
        if end is None:
            return ReasoningPart(
                pieces[0] if pieces else "", None, None, None, start.id, start.kind, start.format
            )
        return ReasoningPart(
            pieces[0] if pieces else "",
            end.signature,
            end.redacted,
            end.encrypted,
            start.id,
            start.kind,
            start.format,
        )


_BARE = ReasoningStarted()


class TurnBuilder:
    """A :class:`Turn` built as its events arrive: ``add`` each one, read ``turn`` at any time.

    ``add`` takes every event (and ignores what a turn does not hold: patches,
    and any other value, such as a :class:`~streamcalls.ToolResult`), so it can
    sit in any event loop::

        builder = streamcalls.TurnBuilder()
        for event in parser.feed(chunk):
            builder.add(event)
            ...
        turn = builder.turn
    """

    __slots__ = (
        "_errors",
        "_finish",
        "_parts",
        "_provider",
        "_raw",
        "_raw_by_id",
        "_reasoning",
        "_slots",
        "_started",
        "_text",
        "_usage",
    )

    def __init__(self) -> None:
        self._parts: list[_Text | _Reasoning | ToolCall | int | None] = []  # int: a call's slot
        self._text: list[str] | None = None  # the open text part's pieces
        self._reasoning: _Reasoning | None = None  # the open reasoning block
        self._slots: dict[int, int] = {}  # a started call's stream index -> its place in _parts
        self._raw: dict[int, list[str]] = {}  # a started call's argument fragments
        self._raw_by_id: dict[str, str] = {}
        self._errors: list[TurnError] = []
        self._started: StreamStarted | None = None
        self._finish: StreamFinished | None = None

    def add(self, event: Any) -> None:
        """Take one event into the turn."""
        kind = type(event)
        if kind is TextDelta:
            pieces = self._text
            if pieces is None:
                pieces = self._open_text()
            pieces.append(event.text)
        elif kind is ToolCallDelta:
            fragments = self._raw.get(event.index)
            if fragments is not None:
                fragments.append(event.arguments_delta)
        elif kind is ReasoningDelta:
            block = self._reasoning
            if block is None:
                block = self._open_reasoning(_BARE)
            block.pieces.append(event.text)
        else:
            handler = _HANDLERS.get(kind)
            if handler is not None:
                handler(self, event)

    @property
    def turn(self) -> Turn:
        """The turn so far (a call still open is not in it yet)."""
        parts: list[Part] = []
        for item in self._parts:
            if type(item) is ToolCall:
                parts.append(item)
            elif type(item) is _Text or type(item) is _Reasoning:
                part = item.part()
                if part is not None:
                    parts.append(part)
        started, finish = self._started, self._finish
        return Turn(
            tuple(parts),
            finish.reason if finish is not None else None,
            finish.usage if finish is not None else None,
            started.provider if started is not None else None,
            started.model if started is not None else None,
            started.response_id if started is not None else None,
            tuple(self._errors),
            dict(self._raw_by_id),
        )

    # -- the events ------------------------------------------------------------------------

    def _open_text(self) -> list[str]:
        self._reasoning = None
        text = _Text()
        self._parts.append(text)
        self._text = text.pieces
        return text.pieces

    def _open_reasoning(self, start: ReasoningStarted) -> _Reasoning:
        self._text = None
        block = _Reasoning(start)
        self._parts.append(block)
        self._reasoning = block
        return block

    def _reasoning_started(self, event: ReasoningStarted) -> None:
        self._open_reasoning(event)

    def _reasoning_completed(self, event: ReasoningCompleted) -> None:
        block = self._reasoning or self._open_reasoning(_BARE)
        block.end = event
        self._reasoning = None

    def _text_signature(self, event: TextSignature) -> None:
        parts = self._parts
        last = parts[-1] if parts and self._text is not None else None
        if type(last) is not _Text:
            last = _Text()
            parts.append(last)
        last.signature = event.signature
        self._text = None
        self._reasoning = None

    def _call_started(self, event: ToolCallStarted) -> None:
        self._text = None
        self._reasoning = None
        self._slots[event.index] = len(self._parts)
        self._parts.append(event.index)
        self._raw[event.index] = []

    def _call_completed(self, event: ToolCallCompleted) -> None:
        call = event.call
        place = self._slots.pop(call.index, None)
        fragments = self._raw.pop(call.index, None)
        if place is None:  # completed without a start: a list put together by hand
            self._text = None
            self._reasoning = None
            self._parts.append(call)
        else:
            self._parts[place] = call
        if fragments is not None:
            self._raw_by_id[call.id] = fragments[0] if len(fragments) == 1 else "".join(fragments)

    def _call_failed(self, event: ToolCallFailed) -> None:
        place = self._slots.pop(event.index, None)
        self._raw.pop(event.index, None)
        if place is not None:
            self._parts[place] = None
        self._errors.append(event)

    def _error(self, event: ProviderError | ParseError) -> None:
        self._errors.append(event)

    def _stream_started(self, event: StreamStarted) -> None:
        if self._started is None:
            self._started = event

    def _stream_finished(self, event: StreamFinished) -> None:
        self._finish = event
        self._text = None
        self._reasoning = None


_HANDLERS: dict[type[Any], Any] = {
    ReasoningStarted: TurnBuilder._reasoning_started,
    ReasoningCompleted: TurnBuilder._reasoning_completed,
    TextSignature: TurnBuilder._text_signature,
    ToolCallStarted: TurnBuilder._call_started,
    ToolCallCompleted: TurnBuilder._call_completed,
    ToolCallFailed: TurnBuilder._call_failed,
    ProviderError: TurnBuilder._error,
    ParseError: TurnBuilder._error,
    StreamStarted: TurnBuilder._stream_started,
    StreamFinished: TurnBuilder._stream_finished,
}


def accumulate(events: Iterable[Any]) -> Turn:
    """The :class:`Turn` of a stream's events (a list, or any iterable of them).

    The same turn for any chunking of the stream, and for a complete response
    read whole; only the events are read.  Check ``turn.errors`` before
    trusting the answer: a stream that broke off or carried an error has them.
    """
    builder = TurnBuilder()
    add = builder.add
    for event in events:
        add(event)
    return builder.turn
