"""The event order a writer keeps: the one place that says which event may come when.

Every target relies on it (the steps and their order are in
:mod:`streamcalls.writing._target`).  The rules are the parser's event
protocol, so whatever a :class:`~streamcalls.StreamParser` emits is written,
and an event out of that order raises :class:`~streamcalls.UsageError`
naming it:

- :class:`~streamcalls.StreamStarted` at most once, first (only parse errors
  before it); without one, the start is written before the first other event.
  A target that takes ``steps`` (the chat UI protocols) takes a
  ``StreamStarted`` after a :class:`~streamcalls.StreamFinished` too: the
  next stream of a tool loop, whose calls number from 0 again (their ids stay
  unique: results find their call by id);
- a reasoning block holds only its deltas (and parse errors) until its
  :class:`~streamcalls.ReasoningCompleted`; bare reasoning deltas (a text
  detector's) are a block ended by the next other event;
- a call's events come between its :class:`~streamcalls.ToolCallStarted`
  (a new index, an id no other call has) and its completion or failure;
- a :class:`~streamcalls.ProviderError` comes with no call open (open calls
  fail first), and the stream may go on after it;
- :class:`~streamcalls.StreamFinished` once per stream, with no call or block
  open; after it only results, parse errors and the next stream's start;
- a :class:`~streamcalls.ToolResult` names a call that has ended, once (by
  the id it started with, or the one it ended with: a call found in the text
  may end with the model's own id).

``close()`` ends what is open when no finish came (a call still open fails)
and finishes the stream: ``"error"`` if something was cut, else
``"tool_calls"`` or ``"stop"`` as the parser says it.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum
from typing import Any

from .._errors import UsageError
from .._events import (
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
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallPatch,
    ToolCallStarted,
)
from .._results import ToolResult
from ._target import Block, Call, Stream, Target

__all__ = ("EventOrder", "Phase", "Writable")

Writable = Event | ToolResult
"""What a writer takes: every event, and the result of a call's tool."""


class Phase(IntEnum):
    """Where the stream is."""

    WAITING = 0  # nothing written yet: the start comes with the first event that writes
    OPEN = 1  # started
    FINISHED = 2  # StreamFinished came: only results and parse errors now
    CLOSED = 3  # close() was called


_BARE = ReasoningStarted()
_CUT = "the stream ended before the call completed"


def describe(event: object) -> str:
    """An event named for a message: its type, and the call it belongs to."""
    kind = type(event).__name__
    if isinstance(event, ToolCallCompleted):
        return f"{kind}(index={event.call.index})"
    if isinstance(event, (ToolCallStarted, ToolCallDelta, ToolCallPatch, ToolCallFailed)):
        return f"{kind}(index={event.index})"
    if isinstance(event, ToolResult):
        return f"{kind}(call_id={event.call_id!r:.80})"
    return kind


def _misplaced(event: object, why: str) -> UsageError:
    return UsageError(f"{describe(event)} out of order: {why}")


class EventOrder:
    """Events in, a target's steps out, in the order every target relies on (``send``, ``close``)."""

    __slots__ = (
        "_bare",
        "_blocks",
        "_call_delta",
        "_ended_any",
        "_ids",
        "_native",
        "_open",
        "_phase",
        "_reasoning",
        "_target",
        "_text",
        "_text_block",
        "stream",
    )

    def __init__(
        self,
        target: type[Target],
        *,
        model: str | None = None,
        response_id: str | None = None,
        thread_id: str | None = None,
    ) -> None:
        self.stream = Stream(model, response_id, thread_id)
        """What the writer knows of the stream: its provider, model and response id (once started),
        its calls by index, the finish once it came."""
        self._target = target(self.stream)
        self._phase = Phase.WAITING
        self._open: dict[int, Call] = {}  # calls started and not ended, by index
        self._ids: dict[str, Call] = {}  # every call, by the id its events gave
        self._ended_any = False  # a call completed
        self._text_block: Block | None = None
        self._reasoning: Block | None = None
        self._bare = False  # the open reasoning block is a run of bare deltas
        self._blocks = 0
        self._native = False  # the native send may write its deltas by their forms (StreamWriter's)
        # The steps the hot paths call, bound once.
        self._text = self._target.text
        self._call_delta = self._target.call_delta

    def send(self, event: Writable) -> bytes:
        """The bytes ``event`` writes (often ``b""``).

        :raises UsageError: the event is out of the parser's order (the message names it), or
            the writer was closed.
        """
        handler = _HANDLERS.get(type(event))
        if handler is None:
            raise UsageError(f"a writer takes streamcalls events and ToolResult, not {type(event).__name__}")
        if self._phase is Phase.CLOSED:
            raise UsageError(f"{describe(event)} sent after close()")
        return handler(self, event)

    def close(self) -> bytes:
        """The last bytes: what is open ends, the finish if no ``StreamFinished`` came, the target's end.

        :raises UsageError: called a second time.
        """
        phase = self._phase
        if phase is Phase.CLOSED:
            raise UsageError("close() called a second time")
        out = b""
        if phase is not Phase.FINISHED:
            if phase is Phase.WAITING:
                out = self._begin()
            cut = bool(self._open) or (self._reasoning is not None and not self._bare)
            out += self._end_reasoning(ReasoningCompleted()) + self._end_text()
            target = self._target
            for call in list(self._open.values()):
                del self._open[call.index]
                call.ended = True
                out += target.call_failed(call, ToolCallFailed(call.index, call.id, call.name, "", _CUT))
            reason = "error" if cut else "tool_calls" if self._ended_any else "stop"
            out += self._finish(StreamFinished(reason))
        self._phase = Phase.CLOSED
        return out + self._target.end()

    # -- what the steps share ------------------------------------------------------------------------

    def _begin(self) -> bytes:
        stream = self.stream
        prefix = self._target.response_id_prefix
        if stream.response_id is None and prefix is not None:
            stream.response_id = stream.new_id(prefix)
        self._phase = Phase.OPEN
        stream.steps = 1
        return self._target.start()

    def _content(self, event: object) -> bytes:
        """Before an event that writes: the start if it is not written, the end of bare reasoning;
        raises for content after the finish or inside a reasoning block."""
        out = b""
        phase = self._phase
        if phase is Phase.WAITING:
            out = self._begin()
        elif phase is Phase.FINISHED:
            raise _misplaced(event, "after StreamFinished")
        if self._reasoning is not None:
            if not self._bare:
                raise _misplaced(event, "inside a reasoning block (before its ReasoningCompleted)")
            out += self._end_reasoning(ReasoningCompleted())
        return out

    def _new_block(self) -> Block:
        block = Block(self._blocks)
        self._blocks += 1
        return block

    def _end_text(self, signature: str | None = None) -> bytes:
        block = self._text_block
        if block is None:
            return b""
        self._text_block = None
        return self._target.text_end(block, signature)

    def _end_reasoning(self, completed: ReasoningCompleted) -> bytes:
        block = self._reasoning
        if block is None:
            return b""
        self._reasoning = None
        self._bare = False
        return self._target.reasoning_end(block, completed)

    def _finish(self, finished: StreamFinished) -> bytes:
        self._phase = Phase.FINISHED
        self.stream.finished = finished
        return self._target.finish(finished)

    def _open_call(self, event: Event, index: int) -> Call:
        """The open call ``index``; raises, saying why, if it is not open."""
        call = self._open.get(index)
        if call is None:
            if index in self.stream.calls:
                raise _misplaced(event, f"call {index} has already ended")
            raise _misplaced(
                event, f"call {index} was never started (no ToolCallStarted(index={index}) before it)"
            )
        return call

    # -- one step per event --------------------------------------------------------------------------

    def _stream_started(self, event: StreamStarted) -> bytes:
        stream = self.stream
        phase = self._phase
        if phase is Phase.FINISHED and self._target.steps:  # the next stream: a step
            self._phase = Phase.OPEN
            stream.provider = event.provider
            stream.calls = {}
            stream.finished = None
            stream.steps += 1
            self._ended_any = False
            return self._target.step(event)
        if phase is not Phase.WAITING:
            why = "the stream has already begun (StreamStarted comes once, first)"
            if phase is Phase.FINISHED:
                why = f"the stream has finished, and {self._target.name!r} writes one stream"
            raise _misplaced(event, why)
        stream.provider = event.provider
        if stream.model is None:
            stream.model = event.model
        if stream.response_id is None:
            stream.response_id = event.response_id
        return self._begin()

    def _text_delta(self, event: TextDelta) -> bytes:
        out = b"" if self._phase is Phase.OPEN and self._reasoning is None else self._content(event)
        text = event.text
        if not text:
            return out
        block = self._text_block
        if block is None:
            block = self._text_block = self._new_block()
            out += self._target.text_start(block)
        return out + self._text(block, text)

    def _text_signature(self, event: TextSignature) -> bytes:
        out = self._content(event)
        if self._text_block is None:
            return out + self._target.text_signature(event.signature)
        return out + self._end_text(event.signature)

    def _reasoning_started(self, event: ReasoningStarted) -> bytes:
        out = self._content(event) + self._end_text()
        block = self._reasoning = self._new_block()
        return out + self._target.reasoning_start(block, event)

    def _reasoning_delta(self, event: ReasoningDelta) -> bytes:
        block = self._reasoning
        out = b""
        if block is None:
            out = self._content(event) + self._end_text()
            block = self._reasoning = self._new_block()
            self._bare = True
            out += self._target.reasoning_start(block, _BARE)
        text = event.text
        return out + self._target.reasoning(block, text) if text else out

    def _reasoning_completed(self, event: ReasoningCompleted) -> bytes:
        if self._reasoning is None or self._bare:
            raise _misplaced(event, "no ReasoningStarted opened a block for it")
        return self._end_reasoning(event)

    def _call_started(self, event: ToolCallStarted) -> bytes:
        out = self._content(event) + self._end_text()
        stream = self.stream
        index = event.index
        if index in stream.calls:
            raise _misplaced(event, f"call {index} has already started")
        call_id = event.id
        if call_id in self._ids:
            raise _misplaced(event, f"id {call_id!r:.80} is call {self._ids[call_id].index}'s already")
        call = Call(index, call_id or stream.new_id(self._target.call_id_prefix), event.name)
        if call_id:
            self._ids[call_id] = call
        stream.calls[index] = self._open[index] = call
        return out + self._target.call_start(call)

    def _call_delta_event(self, event: ToolCallDelta) -> bytes:
        call = self._open.get(event.index) or self._open_call(event, event.index)
        out = b"" if self._reasoning is None else self._content(event)
        fragment = event.arguments_delta
        if not fragment:
            return out
        call.streamed = True
        return out + self._call_delta(call, fragment)

    def _call_patch(self, event: ToolCallPatch) -> bytes:
        self._open_call(event, event.index)
        return b""  # what the deltas say already

    def _end_call(self, event: ToolCallCompleted | ToolCallFailed, call: Call, call_id: str) -> None:
        """The call ends.  A call found in the text may end with the model's own id, given after it
        started (the parser adopts it): its result may name either id; the wire keeps the first."""
        if call_id and call_id != call.id:
            other = self._ids.setdefault(call_id, call)
            if other is not call:
                raise _misplaced(event, f"id {call_id!r:.80} is call {other.index}'s already")
        del self._open[call.index]
        call.ended = True

    def _call_completed(self, event: ToolCallCompleted) -> bytes:
        completed = event.call
        call = self._open_call(event, completed.index)
        out = b"" if self._reasoning is None else self._content(event)
        self._end_call(event, call, completed.id)
        self._ended_any = True
        return out + self._target.call_end(call, completed)

    def _call_failed(self, event: ToolCallFailed) -> bytes:
        call = self._open_call(event, event.index)
        out = b"" if self._reasoning is None else self._content(event)
        self._end_call(event, call, event.id)
        return out + self._target.call_failed(call, event)

    def _provider_error(self, event: ProviderError) -> bytes:
        out = self._content(event) + self._end_text()
        if self._open:
            index = next(iter(self._open))
            raise _misplaced(event, f"call {index} is still open (an open call fails before the error)")
        self.stream.errors += 1
        return out + self._target.error(event)

    def _parse_error(self, event: ParseError) -> bytes:
        self.stream.parse_error = event
        return self._target.parse_error(event)

    def _stream_finished(self, event: StreamFinished) -> bytes:
        phase = self._phase
        if phase is Phase.FINISHED:
            raise _misplaced(event, "the stream has already finished")
        if self._open:
            index = next(iter(self._open))
            raise _misplaced(event, f"call {index} is still open (an open call fails before the finish)")
        out = self._content(event) + self._end_text()
        return out + self._finish(event)

    def _tool_result(self, event: ToolResult) -> bytes:
        call = self._ids.get(event.call_id)
        if call is None:
            raise _misplaced(event, "no call of the stream has that id")
        if not call.ended:
            raise _misplaced(event, f"call {call.index} has not ended yet")
        if call.has_result:
            raise _misplaced(event, f"call {call.index} has a result already")
        call.has_result = True
        return self._target.result(call, event)


_HANDLERS: dict[type, Callable[[EventOrder, Any], bytes]] = {
    TextDelta: EventOrder._text_delta,
    ToolCallDelta: EventOrder._call_delta_event,
    ToolCallPatch: EventOrder._call_patch,
    ReasoningDelta: EventOrder._reasoning_delta,
    StreamStarted: EventOrder._stream_started,
    TextSignature: EventOrder._text_signature,
    ReasoningStarted: EventOrder._reasoning_started,
    ReasoningCompleted: EventOrder._reasoning_completed,
    ToolCallStarted: EventOrder._call_started,
    ToolCallCompleted: EventOrder._call_completed,
    ToolCallFailed: EventOrder._call_failed,
    ProviderError: EventOrder._provider_error,
    ParseError: EventOrder._parse_error,
    StreamFinished: EventOrder._stream_finished,
    ToolResult: EventOrder._tool_result,
}
