"""What a target is: the class that formats one wire's bytes, a step at a time, and what it is given.

A target only formats.  The order of the events -- which may come when, which
block is open, which call an index names -- is kept in one place, the
writer's event order (:mod:`streamcalls.writing._order`), which calls a
target's steps in an order every target can rely on:

- ``start()`` once, before anything else the stream writes (only
  ``parse_error`` may come before it); for a target that takes ``steps``
  (several streams in a row: a tool loop's model turns), ``step()`` where
  each next stream begins, after the last one's ``finish``;
- text in blocks: ``text_start``, ``text`` for each non-empty delta,
  ``text_end`` (a block ends where reasoning, a call's start, a signature, an
  error or the finish comes); ``text_signature`` for a signature on no text;
- reasoning in blocks: ``reasoning_start``, ``reasoning`` for each non-empty
  delta, ``reasoning_end``; never inside a text block, never nested;
- each call: ``call_start``, ``call_delta`` for each non-empty fragment, then
  ``call_end`` or ``call_failed``; calls may overlap one another and text;
- ``error`` for each provider error, with no call open;
- ``finish`` once per stream, with no block and no call open; after it only
  ``result``, ``parse_error`` and (``steps``) the next ``step``;
- ``result`` for a call that has ended, once per call, at any time after;
- ``end()`` last, at the writer's ``close()``.

Each step returns the bytes it writes (``b""`` for none).
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar

from .._events import (
    ParseError,
    ProviderError,
    ReasoningCompleted,
    ReasoningStarted,
    StreamFinished,
    StreamStarted,
    ToolCall,
    ToolCallFailed,
)
from .._results import ToolResult
from ._form import DeltaForm

__all__ = ("Block", "Call", "Stream", "Target")


class Call:
    """A call the writer saw start: what a target may need of it at any later step."""

    __slots__ = ("ended", "form", "has_result", "id", "index", "memo", "name", "streamed")

    def __init__(self, index: int, id: str, name: str) -> None:
        self.index = index
        """The call's index in the stream (its events' ``index``)."""
        self.id = id
        """The call's id: the event's, or one the writer generated (``call_id_prefix`` and 24 hex
        digits) where the event had none."""
        self.name = name
        """The tool's name."""
        self.streamed = False
        """A non-empty argument fragment of it was written (``call_delta``)."""
        self.ended = False
        """It completed or failed."""
        self.has_result = False
        """Its ``result`` was written."""
        self.memo = b""
        """Bytes the target formats once for the call and keeps (the head of its delta records)."""
        self.form: DeltaForm | None = None
        """How each ``call_delta`` writes, where the target declares it (the native path's)."""


class Block:
    """An open text or reasoning block."""

    __slots__ = ("form", "id", "memo", "number")

    def __init__(self, number: int) -> None:
        self.number = number
        """0, 1, 2, ...: the stream's text and reasoning blocks, numbered together in order."""
        self.id = ""
        """An id the target gives the block, if its wire names blocks."""
        self.memo = b""
        """Bytes the target formats once for the block and keeps (the head of its delta records)."""
        self.form: DeltaForm | None = None
        """How each ``text``/``reasoning`` step writes, where the target declares it (the native path's)."""


class Stream:
    """The stream as the writer knows it, for its target: the start's names, the calls, the errors."""

    __slots__ = (
        "calls",
        "errors",
        "finished",
        "model",
        "parse_error",
        "provider",
        "response_id",
        "steps",
        "thread_id",
    )

    def __init__(self, model: str | None, response_id: str | None, thread_id: str | None) -> None:
        self.provider: str | None = None
        """Whose stream it is (:class:`~streamcalls.StreamStarted`'s ``provider``), if it said."""
        self.model = model
        """The model: the writer's ``model=``, else the stream's, else None."""
        self.response_id = response_id
        """The response's id: the writer's ``response_id=``, else the stream's, else one generated
        with the target's ``response_id_prefix`` (None if it has none)."""
        self.thread_id = thread_id
        """The conversation the response belongs to, if the caller named one (AG-UI's ``threadId``)."""
        self.calls: dict[int, Call] = {}
        """Every call started, by index (the current step's: each stream numbers its calls from 0)."""
        self.errors = 0
        """How many provider errors came."""
        self.parse_error: ParseError | None = None
        """The last parse error, if any came."""
        self.finished: StreamFinished | None = None
        """The end, once it came (the current step's)."""
        self.steps = 0
        """How many streams began: 1, then 2, ... for a target that takes ``steps``."""

    @staticmethod
    def new_id(prefix: str) -> str:
        """A fresh id: ``prefix`` and 24 random hex digits."""
        return prefix + uuid.uuid4().hex[:24]


class Target(ABC):
    """One wire format's writer: a step per thing the stream writes, each returning its bytes.

    Subclasses declare ``name`` (the ``target=`` value) and implement the
    abstract steps; the others write nothing unless overridden.  A target is
    registered with :func:`~streamcalls.writing.register`.
    """

    name: ClassVar[str]
    """The name ``StreamWriter(target=...)`` takes."""
    media_type: ClassVar[str] = "text/event-stream"
    """The HTTP ``content-type`` of what it writes."""
    headers: ClassVar[Mapping[str, str]] = MappingProxyType({"content-type": "text/event-stream"})
    """The HTTP response headers a server sends with what it writes."""
    response_id_prefix: ClassVar[str | None] = None
    """Generate a response id with this prefix when neither the caller nor the stream named one."""
    call_id_prefix: ClassVar[str] = "call_"
    """The prefix of the ids generated for calls that came without one."""
    steps: ClassVar[bool] = False
    """It takes several streams in a row, one step each (a tool loop's model turns, in one chat UI
    message): a :class:`~streamcalls.StreamStarted` after a :class:`~streamcalls.StreamFinished`
    begins the next.  A provider's response is one stream: False."""
    cannot_carry: ClassVar[frozenset[str]] = frozenset()
    """What a provider's target cannot carry, in the words of
    :data:`~streamcalls.writing.CANNOT_CARRY`: the round trip (its stream read back by the parser as
    that provider's) compares everything else, and the guide's table is made from it.  The chat UI
    protocols' targets are not read back by the parser; the guide says what they leave out."""
    response_cannot_carry: ClassVar[frozenset[str]] = frozenset()
    """What the provider's complete response (:func:`~streamcalls.write_response`) cannot carry beyond
    ``cannot_carry`` (the same words): a body that holds one text and a list of calls loses
    ``"part_order"``, for instance."""

    __slots__ = ("stream",)

    def __init__(self, stream: Stream) -> None:
        self.stream = stream

    @abstractmethod
    def start(self) -> bytes:
        """The stream begins (``stream`` holds its provider, model and response id)."""

    def step(self, started: StreamStarted) -> bytes:
        """The next stream begins (``steps``), after the last one's ``finish``."""
        return b""

    def text_start(self, block: Block) -> bytes:
        """A text block begins; its first ``text`` follows."""
        return b""

    @abstractmethod
    def text(self, block: Block, text: str) -> bytes:
        """A piece of text (never empty)."""

    def text_end(self, block: Block, signature: str | None) -> bytes:
        """The text block ends; ``signature`` is a :class:`~streamcalls.TextSignature`'s, if one ended it."""
        return b""

    def text_signature(self, signature: str) -> bytes:
        """A :class:`~streamcalls.TextSignature` with no text before it since the last block or call."""
        return b""

    def reasoning_start(self, block: Block, started: ReasoningStarted) -> bytes:
        """A reasoning block begins (``ReasoningStarted()`` for a run of bare reasoning deltas)."""
        return b""

    @abstractmethod
    def reasoning(self, block: Block, text: str) -> bytes:
        """A piece of reasoning (never empty)."""

    def reasoning_end(self, block: Block, completed: ReasoningCompleted) -> bytes:
        """The reasoning block ends, with what its end carries."""
        return b""

    @abstractmethod
    def call_start(self, call: Call) -> bytes:
        """A call begins: its id and name are known."""

    @abstractmethod
    def call_delta(self, call: Call, fragment: str) -> bytes:
        """A fragment of the call's argument text (never empty)."""

    @abstractmethod
    def call_end(self, call: Call, completed: ToolCall) -> bytes:
        """The call completed, with its decoded arguments."""

    @abstractmethod
    def call_failed(self, call: Call, failed: ToolCallFailed) -> bytes:
        """The call failed (at ``close()`` before the finish: with ``raw=""``)."""

    def result(self, call: Call, result: ToolResult) -> bytes:
        """What the tool returned for the call (the chat UI protocols write it; a provider does not)."""
        return b""

    @abstractmethod
    def error(self, error: ProviderError) -> bytes:
        """The provider reported an error; the stream may go on after it."""

    def parse_error(self, error: ParseError) -> bytes:
        """Bytes the parser could not read (may come before ``start``, and after ``finish``)."""
        return b""

    @abstractmethod
    def finish(self, finished: StreamFinished) -> bytes:
        """The model's stream ended (results may still follow)."""

    def end(self) -> bytes:
        """The writer is closed: the last bytes."""
        return b""
