"""What every part of a parser writes into: events, calls, text, reasoning, and the stream's end.

The :class:`Emitter` is the one way events leave a parser.  Framers, provider
adapters and text detectors all write into the same object: an adapter
writes text, reasoning and the end, and builds its calls with the emitter's
call half (:class:`~streamcalls._calls.CallAssembler`, which it extends); a
detector releases text and builds its calls the same way; a framer's reports
reach it through the adapter.  Each event goes out through :attr:`Emitter.put`,
into the list the parser hands back from ``feed``; nothing else holds that
list, and nothing takes an event back.

The rules that hold for every provider live here, once: the stream's start
is reported once, first; a reasoning block is opened before its text and
closed exactly once (at the latest by the stream's end or an error); a
provider error fails the calls it interrupts; the end of the stream is
reported exactly once, after every call has ended; a normal stop after calls
reads ``"tool_calls"``; input after the end is reported, not processed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ._arguments import IdFactory
from ._calls import CallAssembler, Put
from ._events import (
    Event,
    ParseError,
    ProviderError,
    ReasoningCompleted,
    ReasoningDelta,
    ReasoningStarted,
    StreamFinished,
    StreamStarted,
    TextDelta,
    TextSignature,
    Usage,
)
from ._limits import Limits
from ._statuses import documented_status

__all__ = ("Emitter", "Put", "TextSink", "Watcher", "preview")

TextSink = Callable[[str], None]


class Watcher(Protocol):
    """What the fallback policy (:mod:`streamcalls._policy`) learns from a stream, through the emitter."""

    def model_named(self, name: str) -> None:
        """The stream named its model (the first name only)."""

    def provider_found(self, name: str) -> None:
        """``provider="auto"`` found the stream's provider (before any of its text)."""


def preview(raw: bytes | bytearray, limit: int = 200) -> str:
    """Bytes shown in an error message: decoded leniently and cut to ``limit``.

    The emitter's errors show their bytes with it, and so do the framers' own.
    """
    text = bytes(raw[: limit + 1]).decode("utf-8", "replace")
    return text if len(text) <= limit else text[:limit] + "..."


class Emitter(CallAssembler):
    """The stream's events: its start, text, reasoning, calls (the assembler's methods), errors and end.

    ``out`` is the list the events go into, for the parser to hand back; everything else
    gives its events to :attr:`put`."""

    __slots__ = (
        "_after_end_reported",
        "_held_start",
        "_noted",
        "errored",
        "finished",
        "identify",
        "on_model",
        "on_provider",
        "out",
        "reasoning_kind",
        "reasoning_open",
        "report_invalid_utf8",
        "started",
        "steady",
        "text",
        "text_end",
        "text_sink",
        "texts",
    )

    def __init__(
        self,
        limits: Limits,
        id_factory: IdFactory | None,
        *,
        native: bool = True,
        report_invalid_utf8: bool = False,
        partial_arguments: bool = False,
    ) -> None:
        out: list[Event] = []
        self.out = out
        super().__init__(out.append, limits, id_factory, native=native, partial=partial_arguments)
        self.finished = False
        self.errored = False
        self.report_invalid_utf8 = report_invalid_utf8
        self._after_end_reported = False
        self.started = False  # StreamStarted was reported
        self.steady = False  # started and not finished: an adapter's records need no special care
        # The first record's StreamStarted, held until the record's first other event (or its end)
        # shows it is not an error body's.
        self._held_start: StreamStarted | None = None
        self.reasoning_open = False  # a ReasoningStarted awaits its ReasoningCompleted
        self.reasoning_kind: str | None = None  # the open block's kind
        self._noted: list[str | None] | None = None  # the open block's signature, redacted, encrypted
        self.text_sink: TextSink | None = None  # the text channel, set aside while a block is open
        # The text channel: text detectors replace these two.
        self.text: TextSink = self._plain_text
        self.texts = 0  # pieces of text given to the channel, once counted (count_texts)
        self.text_end: Callable[[], None] = _nothing
        # Who is told the model name a stream carries (the fallback policy, when neither detect=
        # nor model= was given), and the provider provider="auto" found (while the policy waits
        # for it): the object itself, so that a parser holds no bound method for either.
        self.on_model: Watcher | None = None
        self.on_provider: Watcher | None = None
        # The provider a decoded first record (with its event name) looks like, as (provider=
        # value, title), if any tells: what an adapter asks of a first record it does not claim.
        self.identify: Callable[[str | None, object], tuple[str, str] | None] | None = None

    def count_texts(self) -> None:
        """From now on, count in ``texts`` each piece of text given to ``text``.

        Even a piece a text detector then holds back, as it could still be a
        call's markup, counts: that tells a stream that is writing from one
        that only sends keep-alives (:attr:`StreamParser.progress
        <streamcalls.StreamParser.progress>`).  Only a parser whose progress
        is read pays for it.
        """
        self.__class__ = TextCountingEmitter

    def _plain_text(self, text: str) -> None:
        self.put(TextDelta(text))

    def model(self, name: str) -> None:
        """The stream named its model: the first name decides the detectors its family adds."""
        watcher = self.on_model
        if watcher is not None and name:
            self.on_model = None
            watcher.model_named(name)

    def provider(self, name: str) -> None:
        """The stream's provider is known (``provider="auto"`` found it), before any of its text."""
        watcher = self.on_provider
        if watcher is not None:
            watcher.provider_found(name)

    def start(self, provider: str, model: object = None, response_id: object = None) -> None:
        """The stream's first record begins: whose stream it is, reported once, first.

        The report waits for the record's first event: a first record that is an
        error (a provider's error body) starts nothing.  :meth:`opened` ends the record.
        """
        if not self.started:
            self.started = True
            self.steady = not self.finished
            named = model if isinstance(model, str) and model else None
            identified = response_id if isinstance(response_id, str) and response_id else None
            self._held_start = StreamStarted(provider, named, identified)
            self.put = self._put_after_start

    def _put_after_start(self, event: Event) -> None:
        """``put`` while the start is held: it goes out first."""
        self.opened()
        self.put(event)

    def opened(self) -> None:
        """The first record was read: the start goes out, if nothing has taken it out yet."""
        held = self._held_start
        if held is not None:
            self._held_start = None
            self.put = put = self.out.append
            put(held)

    def reasoning(self, text: str, kind: str | None = None) -> None:
        """Reasoning text: in the open block, or in a new one (of ``kind``) if none is open or
        the open one is of another kind."""
        if not self.reasoning_open:
            self.reasoning_start(kind=kind)
        elif kind is not None and kind != self.reasoning_kind:
            self.reasoning_end()
            self.reasoning_start(kind=kind)
        self.put(ReasoningDelta(text))

    def reasoning_start(
        self, id: str | None = None, kind: str | None = None, format: str | None = None
    ) -> None:
        """A reasoning block begins (the open one, if any, ends first)."""
        if self.reasoning_open:
            self.reasoning_end()
        self.reasoning_open = True
        self.reasoning_kind = kind
        self.put(ReasoningStarted(id or None, kind, format or None))
        # Text ends the block: while it is open, the text sink ends it first (so that
        # no adapter pays a check per text delta for it).
        self.text_sink = self.text
        self.text = self._text_after_reasoning

    def _text_after_reasoning(self, text: str) -> None:
        self.reasoning_end()
        self.text(text)

    def reasoning_note(
        self, signature: str | None = None, redacted: str | None = None, encrypted: str | None = None
    ) -> None:
        """What the open block's end will carry, as it arrives (pieces are joined); with no block
        open, a block opens for it."""
        if not self.reasoning_open:
            self.reasoning_start()
        noted = self._noted
        if noted is None:
            noted = self._noted = [None, None, None]
        for slot, piece in enumerate((signature, redacted, encrypted)):
            if piece:
                before = noted[slot]
                noted[slot] = piece if before is None else before + piece

    def reasoning_end(self) -> None:
        """The open reasoning block ends, with what was noted for it (nothing if none is open)."""
        if not self.reasoning_open:
            return
        self.reasoning_open = False
        self.reasoning_kind = None
        sink = self.text_sink
        if sink is not None:
            self.text_sink = None
            if self.text == self._text_after_reasoning:  # (text detectors may have taken over since)
                self.text = sink
        noted = self._noted
        if noted is None:
            self.put(ReasoningCompleted())
        else:
            self._noted = None
            self.put(ReasoningCompleted(*noted))

    def text_signature(self, signature: str) -> None:
        """A signature on the text so far (Gemini): the text held back is let out first."""
        if self.reasoning_open:
            self.reasoning_end()
        self.text_end()
        self.put(TextSignature(signature))

    def provider_error(
        self,
        message: str,
        code: str | None = None,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        """The provider reported an error: open calls fail.  Without ``status``, the one documented for ``code``."""
        if self._held_start is not None:  # the first record is an error: the stream never started
            self._held_start = None
            self.put = self.out.append
        elif not self.started:  # an error before any record (found by provider="auto"): no start after it
            self.started = True
            self.steady = not self.finished
        self.errored = True
        if self.reasoning_open:
            self.reasoning_end()
        self.text_end()
        self.fail_open(f"interrupted by a provider error: {message}")
        if status is None:
            status = documented_status(code)
        self.put(ProviderError(message, code, status, retry_after))

    def parse_error(self, message: str, raw: bytes | bytearray | str = b"") -> None:
        """Input that could not be read (``raw``: it, or its start; bytes are shown leniently)."""
        shown = raw if isinstance(raw, str) else preview(raw)
        self.put(ParseError(message, shown))

    def finish(self, reason: str, provider_reason: str | None = None, usage: Usage | None = None) -> None:
        """The provider's end marker: end open calls and report the end, once."""
        if self.finished:
            return
        if self.reasoning_open:
            self.reasoning_end()
        self.text_end()
        if self.has_open:
            self.end_open()
        if self.errored and reason == "stop":
            reason = "error"
        elif reason == "stop" and self.completed:
            reason = "tool_calls"
        self.finished = True
        self.steady = False
        self.put(StreamFinished(reason, usage, provider_reason))

    def end_of_input(self, truncated: str | None) -> None:
        """No more bytes.  ``truncated`` says what end marker never came, if one is missing."""
        if self.finished:
            return
        if self.reasoning_open:
            self.reasoning_end()
        self.text_end()
        if self.has_open:
            self.fail_open("stream ended before the call completed")
        if truncated and not self.errored:
            self.put(ParseError(f"stream ended before {truncated} (truncated)"))
        self.finish("error" if (truncated or self.errored) else "stop")

    def not_mine(self, message: str, raw: bytes | str) -> None:
        """The records are another provider's: said once, and the stream ends; the rest of
        it is ignored without a further report (it was all said)."""
        self.parse_error(message, raw)
        self._after_end_reported = True
        self.started = True  # no start after it (nor a check of the next record)
        self.finish("error")

    def after_end(self, raw: bytes | str) -> None:
        """Input that arrived after the stream's end marker: reported once, ignored."""
        if not self._after_end_reported:
            self._after_end_reported = True
            self.parse_error("data after the end of the stream; ignored", raw)


_TEXT_SLOT = Emitter.__dict__["text"]  # the slot that holds the text sink


class TextCountingEmitter(Emitter):
    """An :class:`Emitter` that counts the pieces of text adapters give it (see :meth:`Emitter.count_texts`)."""

    __slots__ = ()

    @property
    def text(self) -> TextSink:
        self.texts += 1  # read once per piece: every adapter calls emit.text(piece)
        sink: TextSink = _TEXT_SLOT.__get__(self, Emitter)
        return sink

    @text.setter
    def text(self, sink: TextSink) -> None:
        _TEXT_SLOT.__set__(self, sink)


def _nothing() -> None:
    return None
