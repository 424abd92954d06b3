"""What provider adapters write into: events, calls, text, and the stream's end.

The rules that hold for every provider live here, once: a provider error
fails the calls it interrupts; the end of the stream is reported exactly
once, after every call has ended; a normal stop after calls reads
``"tool_calls"``; input after the end is reported, not processed.
"""

from __future__ import annotations

from collections.abc import Callable

from ._arguments import IdFactory
from ._calls import CallAssembler
from ._events import (
    Event,
    ParseError,
    ProviderError,
    ReasoningDelta,
    StreamFinished,
    TextDelta,
    Usage,
)
from ._limits import Limits
from ._statuses import documented_status

__all__ = ("Emitter", "TextSink", "preview")

TextSink = Callable[[str], None]


def preview(raw: bytes | bytearray, limit: int = 200) -> str:
    """Bytes shown in an error message: decoded leniently and cut to ``limit``.

    The emitter's errors show their bytes with it, and so do the framers' own.
    """
    text = bytes(raw[: limit + 1]).decode("utf-8", "replace")
    return text if len(text) <= limit else text[:limit] + "..."


class Emitter:
    __slots__ = (
        "_after_end_reported",
        "calls",
        "errored",
        "finished",
        "limits",
        "on_model",
        "on_provider",
        "out",
        "report_invalid_utf8",
        "text",
        "text_end",
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
        self.limits = limits
        self.calls = CallAssembler(out, limits, id_factory, native=native, partial=partial_arguments)
        self.finished = False
        self.errored = False
        self.report_invalid_utf8 = report_invalid_utf8
        self._after_end_reported = False
        # The text channel: text detectors replace these two.
        self.text: TextSink = self._plain_text
        self.texts = 0  # pieces of text given to the channel, once counted (count_texts)
        self.text_end: Callable[[], None] = _nothing
        # What the model name a stream carries does (set when neither detect= nor model= was given).
        self.on_model: Callable[[str], None] | None = None
        # What the provider provider="auto" found does (set while the fallback policy waits for it).
        self.on_provider: Callable[[str], None] | None = None

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
        self.out.append(TextDelta(text))

    def model(self, name: str) -> None:
        """The stream named its model: the first name decides the detectors its family adds."""
        hook = self.on_model
        if hook is not None and name:
            self.on_model = None
            hook(name)

    def provider(self, name: str) -> None:
        """The stream's provider is known (``provider="auto"`` found it), before any of its text."""
        hook = self.on_provider
        if hook is not None:
            hook(name)

    def reasoning(self, text: str) -> None:
        self.out.append(ReasoningDelta(text))

    def provider_error(
        self,
        message: str,
        code: str | None = None,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        """The provider reported an error: open calls fail.  Without ``status``, the one documented for ``code``."""
        self.errored = True
        self.text_end()
        self.calls.fail_open(f"interrupted by a provider error: {message}")
        if status is None:
            status = documented_status(code)
        self.out.append(ProviderError(message, code, status, retry_after))

    def parse_error(self, message: str, raw: bytes | str = b"") -> None:
        shown = raw if isinstance(raw, str) else preview(raw)
        self.out.append(ParseError(message, shown))

    def finish(self, reason: str, provider_reason: str | None = None, usage: Usage | None = None) -> None:
        """The provider's end marker: end open calls and report the end, once."""
        if self.finished:
            return
        self.text_end()
        calls = self.calls
        if calls.has_open:
            calls.end_open()
        if self.errored and reason == "stop":
            reason = "error"
        elif reason == "stop" and calls.completed:
            reason = "tool_calls"
        self.finished = True
        self.out.append(StreamFinished(reason, usage, provider_reason))

    def end_of_input(self, truncated: str | None) -> None:
        """No more bytes.  ``truncated`` says what end marker never came, if one is missing."""
        if self.finished:
            return
        self.text_end()
        if self.calls.has_open:
            self.calls.fail_open("stream ended before the call completed")
        if truncated and not self.errored:
            self.out.append(ParseError(f"stream ended before {truncated} (truncated)"))
        self.finish("error" if (truncated or self.errored) else "stop")

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
