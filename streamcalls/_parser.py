"""The sans-IO stream parser: bytes in, canonical events out."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from typing import Any

from ._adapter import Adapter, as_mapping
from ._arguments import IdFactory
from ._detect import AutoDetector
from ._emitter import Emitter
from ._errors import MalformedStreamError, ProviderFailure, UsageError
from ._events import Event, ParseError, ProviderError, StreamStarted
from ._limits import Limits
from ._names import ProviderName
from ._native import install_feed
from ._nonstream import DocumentReader
from ._options import check_parser_options
from ._policy import DefaultDetection
from .detectors import build_channel
from .framing._bom import LeadingBom
from .framing._make import make_framer
from .framing._records import Framer
from .framing._utf8 import Utf8Filter
from .providers import adapter_for, looks_like, recognize

__all__ = ("ParserState", "StreamParser")


class ParserState(enum.Enum):
    """Where a parser is (:attr:`StreamParser.state`): taking input, or ended by ``close()``."""

    OPEN = "open"  # taking input
    CLOSED = "closed"  # close() was called


class StreamParser:
    """Parses one provider stream, fed in chunks of any size.

    ::

        parser = StreamParser(provider="auto")
        for chunk in response_chunks:
            for event in parser.feed(chunk):
                ...
        for event in parser.close():
            ...

    ``feed`` takes ``bytes`` (or ``str``, encoded as UTF-8), split anywhere,
    and returns the events those bytes completed -- a tool call comes out of
    the very ``feed`` whose bytes close its arguments.  ``close`` marks the
    end of input and returns what that ends (calls left open fail).

    Bad input never raises: it becomes :class:`~streamcalls.ParseError`,
    :class:`~streamcalls.ToolCallFailed` or :class:`~streamcalls.ProviderError`
    events and parsing goes on.  With ``strict=True`` the first ParseError
    raises :class:`~streamcalls.MalformedStreamError` instead, and with
    ``raise_provider_errors=True`` a ProviderError raises
    :class:`~streamcalls.ProviderFailure`.  Exceptions are otherwise for
    misuse: an unknown provider name, ``feed`` after ``close``.

    :param provider: ``"openai"``, ``"openai-responses"``, ``"anthropic"``,
        ``"ollama"``, ``"gemini"``, ``"bedrock"`` (ConverseStream),
        ``"bedrock-invoke"`` (InvokeModelWithResponseStream), ``"cohere"``, ``"text"``,
        an alias of one (``"openrouter"``, ``"groq"``, ``"vllm"``, ...), or
        ``"auto"`` to detect it from the first bytes and first event.  Typed
        as :data:`~streamcalls.ProviderName`, so a misspelt name fails type
        checking; cast a name read at run time
        (``typing.cast(streamcalls.ProviderName, name)``).
    :param native: the fallback policy between native calls and calls
        written in the text.  ``None`` (default): both, in stream order, with
        the text detectors that ``detect=`` or the provider and model choose
        (below).  ``True``: native calls are the protocol; bare JSON is not
        read by default, and markup counts only while no native call was seen
        (bare JSON named in ``detect=`` only while no call at all was).
        ``False``: the text detectors are the protocol, bare JSON included; a
        native call the model sends anyway is reported as failed, never run.
        Either way, a text call that repeats a native call of the stream (same
        name and arguments) is one call: the copy that completes second gives
        no event (see the guide, "A call written twice").
    :param detect: the text detectors to run on the text channel, by name:
        ``"fence"``, ``"json"``, ``"hermes"``, ``"mistral"``, ``"llama"``,
        ``"deepseek"``, ``"harmony"``, ``"kimi"``, ``"pythonic"``,
        ``"qwen3_coder"``, ``"glm"``, ``"minimax"``; ``()`` turns detection
        off.  Without it, the fallback policy: ``"fence"`` and the detectors
        of the model's family always; bare JSON objects and ```` ```json ````
        blocks (``"json"``, and the ``llama`` detector's bare object) only
        where a model writes its calls in text -- ``native=False``, or a
        ``"text"``, OpenAI-compatible or Ollama stream whose model is not a
        known hosted model with native calls (``gpt-*``, ``o1``..., ``claude-*``,
        ``gemini-*``, ``command-*``, ...); never with ``native=True``, for a
        known hosted model, nor in Anthropic, Responses, Gemini, Bedrock and
        Cohere streams.  The guide's table, "The fallback policy", has every
        row and the list of hosted models.
    :param model: the model's name (``"openai/gpt-oss-20b"``,
        ``"qwen3-coder:30b"``): the detectors of its family join the
        defaults (see :func:`~streamcalls.detectors_for_model`; an unknown
        name adds none), and a known hosted model reads no bare JSON.
        Without ``model=`` and ``detect=``, the ``model`` an
        OpenAI-compatible or Ollama stream carries does the same, from the
        first record that names one (it comes before any text; a model named
        after the text began only adds its family's detectors).
    :param tools: the tools the model was given: names, dicts in any
        provider's tool shape, or objects with a ``name`` and a ``parameters``
        dict (a :class:`~streamcalls.Tool`; a typed function goes in as
        ``Tool.from_function(fn)``).  A bare JSON object counts as a call only
        if it names one of them (one naming another tool is text: no call, no
        failure); the parameter schemas type the values of the
        ``qwen3_coder``, ``glm`` and ``minimax`` formats.
    :param invalid_utf8: ``"replace"`` (default): invalid UTF-8 becomes
        U+FFFD; ``"report"``: only the invalid bytes are dropped, each run
        reported as a ParseError naming its offset in the stream.
    :param id_factory: makes ids for calls that arrive without one
        (default ``call_`` + random hex); pass one to get deterministic ids.
    :param limits: bounds on what one stream may make the parser hold.
    :param strict: raise on the first ParseError instead of reporting it.
    :param raise_provider_errors: raise :class:`~streamcalls.ProviderFailure`
        (carrying the event) instead of reporting a ProviderError, for a loop
        that handles a refused or failed request in one ``except``.
    :param partial_arguments: also emit :class:`~streamcalls.ToolCallPatch`
        events: after each ``ToolCallDelta``, what its text changed in the
        call's arguments, so that the value so far can be used while the
        call streams (see :class:`~streamcalls.PartialArguments`).
    :raises UsageError: for an unknown provider name, or an option's value
        that it cannot take (an unknown detector, ``native="yes"``, ...).
    """

    __slots__ = (
        "_adapter",
        "_bom",
        "_checks",
        "_closed",
        "_content",
        "_counting",
        "_detector",
        "_direct",
        "_emit",
        "_framer",
        "_out",
        "_provider",
        "_raises",
        "_strict",
        "_utf8",
    )

    def __init__(
        self,
        provider: ProviderName = "auto",
        *,
        native: bool | None = None,
        detect: Sequence[str] | None = None,
        tools: Iterable[Any] | None = None,
        invalid_utf8: str = "replace",
        id_factory: IdFactory | None = None,
        limits: Limits | None = None,
        strict: bool = False,
        partial_arguments: bool = False,
        model: str | None = None,
        raise_provider_errors: bool = False,
    ) -> None:
        limits = check_parser_options(
            native=native,
            detect=detect,
            tools=tools,
            invalid_utf8=invalid_utf8,
            id_factory=id_factory,
            limits=limits,
            strict=strict,
            partial_arguments=partial_arguments,
            model=model,
            provider=provider,
            raise_provider_errors=raise_provider_errors,
        )
        emit = Emitter(
            limits,
            id_factory,
            native=native is not False,
            report_invalid_utf8=invalid_utf8 == "report",
            partial_arguments=partial_arguments,
        )
        if detect is None:
            named = None if provider == "auto" else adapter_for(provider).name
            DefaultDetection(emit, tools, native=native, model=model, provider=named)
        elif detect:
            channel = build_channel(emit, tuple(detect), tools, fallback=native is True)
            emit.text = channel.push
            emit.text_end = channel.end
        emit.identify = looks_like  # a first record another provider's: named, once
        self._emit = emit
        self._out = emit.out
        self._strict = strict
        self._raises = raise_provider_errors
        self._checks = strict or raise_provider_errors  # events are looked through (see _counted)
        self._counting = False  # progress was read: events and text are counted from then on
        self._content = 0  # events that are not ParseErrors, while counting
        self._closed = False
        self._bom: LeadingBom | None = LeadingBom()
        self._adapter: Adapter | None
        # The framer bytes go to: the parser alone holds it, and a framer that hands over
        # returns its successor from feed().  Under provider="auto" the detector stands in
        # for it until the provider is known.
        self._framer: Framer
        self._detector: AutoDetector | None = None
        # invalid_utf8="report": invalid bytes are dropped before any text framing.
        self._utf8: Utf8Filter | None = None
        if provider == "auto":
            self._adapter = None
            if emit.report_invalid_utf8:
                self._utf8 = Utf8Filter(binary_gate=True)
            self._framer = self._detector = AutoDetector(emit)
        else:
            cls = adapter_for(provider)
            adapter = cls(emit)
            self._adapter = adapter
            if emit.report_invalid_utf8 and cls.framing != "eventstream":
                self._utf8 = Utf8Filter(binary_gate=False)
            self._framer = make_framer(cls.framing, adapter, emit, DocumentReader(emit, adapter))
        self._direct = False  # chunks go straight to the framer: no BOM to look for, no UTF-8 filter
        self._provider = provider

    def _to_framer(self, data: bytes) -> None:
        """Bytes after the BOM: through the UTF-8 filter, if there is one, to the framer."""
        utf8 = self._utf8
        if utf8 is None:
            self._framed(data)
        else:
            self._checked(utf8.split(data))

    def _checked(self, pieces: list[bytes | ParseError]) -> None:
        """The UTF-8 filter's pieces: the valid ones to the framer, a report in place of each run."""
        for piece in pieces:
            if isinstance(piece, bytes):
                self._framed(piece)
            else:
                self._emit.put(piece)

    def _framed(self, data: bytes) -> None:
        successor = self._framer.feed(data)
        if successor is not None:
            self._take_over(successor)

    def _take_over(self, successor: Framer) -> None:
        """The framer handed over: its successor reads the stream from now on."""
        self._framer = successor
        detector = self._detector
        if detector is not None:  # provider="auto" found the provider
            self._detector = None
            self._adapter = detector.adapter

    @property
    def provider(self) -> str | None:
        """The provider's name: as given, or as detected (None while unknown)."""
        if self._adapter is not None:
            return self._adapter.name
        return None if self._provider == "auto" else self._provider

    @property
    def progress(self) -> int:
        """A count that grows each time the input carries content.

        Content is text (also text a detector still holds back, as it could
        be a call's markup), reasoning, a call's data, the stream's end or an
        error: anything but a keep-alive.  SSE comments, blank lines, an
        Anthropic ``ping``, a chunk with an empty delta, the response's start
        (``StreamStarted``) and input the parser cannot read (a ParseError)
        leave it as it was.  Compare it before and
        after a ``feed`` to tell a model that is writing from a connection
        that is only kept open -- the async fronts' ``idle_timeout`` does
        that, and the parser itself never looks at a clock.

        Only its growth means something: the counting starts when it is
        first read, so that a parser whose progress nobody reads does not
        pay for it.
        """
        if not self._counting:
            self._counting = self._checks = True
            self._emit.count_texts()
        return self._content + self._emit.texts

    @property
    def state(self) -> ParserState:
        """``OPEN`` until :meth:`close` is called, then ``CLOSED`` (``feed`` then raises)."""
        return ParserState.CLOSED if self._closed else ParserState.OPEN

    def feed(self, data: bytes | bytearray | memoryview | str) -> list[Event]:
        """Add the next chunk of the stream; returns the events it completed.

        :raises UsageError: after :meth:`close`, or for a chunk that is not bytes or str.
        """
        if self._direct:  # the common case, past the first chunk
            if type(data) is not bytes:
                data = _as_bytes(data)
            successor = self._framer.feed(data)
            if successor is not None:
                self._take_over(successor)
        else:
            self._feed_first(data)
        out = self._out  # _drain(), inlined: this runs once per chunk
        if not out:
            return []
        events = out.copy()
        out.clear()
        if self._checks:
            return self._counted(events)
        return events

    def _feed_first(self, data: bytes | bytearray | memoryview | str) -> None:
        """A chunk while a leading BOM may still come, or through the UTF-8 filter (or after close)."""
        if self._closed:
            raise UsageError("feed() after close(): a parser takes one stream")
        if type(data) is not bytes:
            data = _as_bytes(data)
        bom = self._bom
        if bom is not None:
            data = bom.strip(data)
            if bom.done:
                self._bom = None
                if self._utf8 is not None:
                    self._utf8.skipped(bom.removed)  # its offsets count from the stream's first byte
                self._direct = self._utf8 is None
            if not data:
                return
        self._to_framer(data)

    def feed_event(self, obj: Any) -> list[Event]:
        """Add one already-decoded stream event: a dict, or an SDK event object.

        For users of the openai / anthropic SDKs, who iterate objects rather
        than bytes.  It goes through the same adapter as the bytes would.
        """
        if self._closed:
            raise UsageError("feed_event() after close(): a parser takes one stream")
        adapter = self._adapter
        if adapter is None:
            adapter = self._detect_object(obj)
        if adapter is not None:
            adapter.on_object(obj)
        return self._drain()

    def _detect_object(self, obj: Any) -> Adapter | None:
        data = as_mapping(obj)
        cls = recognize(None, data)
        if cls is not None:
            self._emit.provider(cls.name)
            adapter = cls(self._emit)
            self._adapter = adapter
            self._detector = None
            self._framer = make_framer(cls.framing, adapter, self._emit, DocumentReader(self._emit, adapter))
            return adapter
        self._emit.parse_error(f"cannot tell the provider from the event {data!r:.200}")
        return None

    def close(self) -> list[Event]:
        """End of input.  Calls still open fail; the stream's end is reported.

        Calling it again returns no events.
        """
        if self._closed:
            return []
        self._closed = True
        self._direct = False
        if self._bom is not None:
            held = self._bom.flush()  # the start of a BOM that never completed is data
            self._bom = None
            if held:
                self._to_framer(held)
        if self._utf8 is not None:
            self._checked(self._utf8.flush())
        self._framer.close()
        detector = self._detector
        if detector is not None:  # closing may have told the provider (or made the stream text)
            self._adapter = detector.adapter
        adapter = self._adapter
        if adapter is not None:
            adapter.close()
        elif not self._emit.finished:
            self._emit.parse_error("stream ended before its provider could be told (no complete event)")
            self._emit.finish("error")
        return self._drain()

    def _drain(self) -> list[Event]:
        out = self._out
        if not out:
            return []
        events = out.copy()
        out.clear()
        if self._checks:
            return self._counted(events)
        return events

    def _counted(self, events: list[Event]) -> list[Event]:
        """Count the events that are content (once progress is read); raise where the options ask.

        ``strict=True``: the first ParseError raises; ``raise_provider_errors=True``:
        the first ProviderError.  Either carries the events before it.
        """
        content = len(events)
        for position, event in enumerate(events):
            kind = type(event)
            if kind is ParseError:
                if self._strict:
                    raise MalformedStreamError(event, events[:position])  # type: ignore[arg-type]
                content -= 1
            elif kind is StreamStarted:
                content -= 1  # the response began: the server's doing, not yet the model's
            elif kind is ProviderError and self._raises:
                raise ProviderFailure(event, events[:position])  # type: ignore[arg-type]
        self._content += content
        return events


install_feed(StreamParser)  # where the native path is built: feed's common case in C (streamcalls/_native)


def _as_bytes(data: object) -> bytes:
    if isinstance(data, str):
        return data.encode("utf-8", "surrogatepass")
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    raise UsageError(f"feed() takes bytes or str, not {type(data).__name__}")
