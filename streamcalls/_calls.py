"""Assembling tool calls from fragments, and the call event protocol.

Every adapter (native providers and text detectors alike) builds its calls
through one :class:`CallAssembler` -- the call half of the
:class:`~streamcalls._emitter.Emitter` they all write into --, which is where the protocol is kept:
each call gets exactly one :class:`ToolCallStarted` (once its name is
known), then any number of :class:`ToolCallDelta`, then exactly one
:class:`ToolCallCompleted` or :class:`ToolCallFailed`.  Stream indices live
here too.  Its rules each have a module of their own, which it applies: the
ids made unique (:mod:`streamcalls._callids`), the per-call limits
(:mod:`streamcalls._calllimits`), arguments that arrive whole
(:mod:`streamcalls._wholeargs`), and a call written twice, natively and in
the text, kept as one (:mod:`streamcalls._copies`).

Argument fragments are added to the call's text (:class:`~streamcalls._call.Call`);
the :class:`~streamcalls._jsonscan.JsonScanner` says when the JSON closed, and
msgspec decodes it exactly once, at that moment.

An assembler is made with every parser, most of which never see a call: what
it holds for calls (the ids in use, the completed calls, the sources) is
made when the first call needs it, so that an idle parser holds no empty
containers.

A call found in text has an *owner*, the markup it was written in
(:mod:`streamcalls.detectors._engine.markup`): its failure is reported by the owner,
when the markup has ended, with the markup as ``raw``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._arguments import IdFactory, decode_arguments, random_call_id
from ._call import COMPLETED, FAILED, JOIN_EVERY, OPEN, Call, CallOwner
from ._callids import IdsInUse
from ._calllimits import breach, drain, feed_over_limit, text_over_limit, too_deep, too_many_calls
from ._calllimits import room as _room
from ._copies import Unpaired, may_be_copy, remember, take_original
from ._events import (
    Event,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallStarted,
)
from ._jsonscan import COMPLETE, SCALAR, TOO_DEEP
from ._limits import Limits
from ._patchwriter import PatchWriter
from ._wholeargs import whole_arguments

__all__ = ("CallAssembler", "Put")

Put = Callable[[Event], None]
"""How an event goes out: the emitter's ``put`` (its output list's ``append``)."""

# ``sources`` while no call has started, and once only native calls have: shared.
_NO_SOURCES: frozenset[str] = frozenset()
_NATIVE_ONLY = frozenset({"native"})


class CallAssembler:
    """Builds calls and emits their events through ``put``."""

    __slots__ = (
        "_done",
        "_first_id",
        "_ids",
        "_max_arguments",
        "_max_buffered",
        "_new_id",
        "_open",
        "_opened",
        "completed",
        "copies",
        "count",
        "held",
        "limits",
        "native",
        "partial",
        "put",
        "sources",
    )

    def __init__(
        self,
        put: Put,
        limits: Limits,
        id_factory: IdFactory | None,
        *,
        native: bool = True,
        partial: bool = False,
    ) -> None:
        self.put = put
        self.limits = limits
        self._max_arguments = limits.max_arguments_bytes
        self._max_buffered = limits.max_buffered_bytes
        self._new_id = id_factory or random_call_id
        self._open: list[Call] = []
        # The ids of the calls started so far: the first alone, then all of them (see _callids).
        self._first_id: str | None = None
        self._ids: IdsInUse | None = None
        self._opened = 0  # calls opened so far, for max_calls
        self.count = 0  # calls started so far; the next call's index
        self.completed = 0
        self.copies = 0  # calls dropped as copies of a call of the other kind (no event at all)
        self.held = 0  # argument characters held by the open calls, for max_buffered_bytes
        self.native = native  # False: native calls are reported as failed, never run
        self.sources = _NO_SOURCES  # the sources of the calls started so far
        self.partial = partial  # ToolCallPatch events after each delta (see _patchwriter)
        self._done: Unpaired | None = None  # the completed calls a copy may come of (see _copies)

    # -- opening and naming ------------------------------------------------

    def open(
        self,
        call_id: str | None,
        name: str | None,
        source: str,
        *,
        deferred: bool = False,
        owner: CallOwner | None = None,
        tentative: bool = False,
    ) -> Call | None:
        """Open a new call; it starts (``ToolCallStarted``) once it has a name.

        Returns None (after reporting it once) past ``max_calls``.
        """
        limits = self.limits
        if self._opened >= limits.max_calls:
            if self._opened == limits.max_calls:
                self._opened += 1
                too_many_calls(self, call_id, name or "")
            return None
        self._opened += 1
        call = Call(call_id or self._new_id(), name or "", source, limits.max_json_depth, deferred)
        call.owner = owner
        call.tentative = tentative
        self._open.append(call)
        if name:
            self._named(call)
        return call

    def _unique(self, call_id: str) -> str:
        """The id a call starts with: ``call_id``, made unique within the stream (see _callids)."""
        ids = self._ids
        if ids is None:
            first = self._first_id
            if first is None:
                self._first_id = call_id
                return call_id
            ids = self._ids = IdsInUse(first)
        return ids.unique(call_id)

    def discard(self, call: Call) -> None:
        """Forget a call that never started (a text candidate that was not a call)."""
        if not call.started and call.status == OPEN:
            call.status = FAILED
            call.withheld = False
            self._open.remove(call)
            self._opened -= 1
            self.held -= call.size

    def set_name(self, call: Call, name: str) -> None:
        """Give a call its name if it has none yet (later names are ignored)."""
        if not call.name and name and call.status == OPEN:
            call.name = name
            self._named(call)

    def sign(self, call: Call, signature: str | None) -> None:
        """Keep a provider's signature for the call (Gemini 3's ``thoughtSignature``): the first one counts."""
        if signature and call.signature is None and call.status == OPEN:
            call.signature = signature

    def set_id(self, call: Call, call_id: str) -> None:
        """Replace a generated id with the provider's, while nothing was emitted."""
        if not call.started and call_id:
            call.id = call_id

    def adopt_id(self, call: Call, call_id: str) -> None:
        """A model's own id for a call found in text, which may come after the call
        started: the completed call carries it (made unique like every id)."""
        if call.status != OPEN or not call_id:
            return
        if call.started:
            call.id = self._unique(call_id)
        else:
            call.id = call_id  # made unique when the call starts

    def _named(self, call: Call) -> None:
        """The call's name is known: it starts, unless it may be a copy of a call of the other
        kind with that name (one that came out and is open, or completed unpaired): then it is
        withheld until it ends."""
        if may_be_copy(call, self._done, self._open):
            call.tentative = False  # named: it is a call, only maybe a copy
            call.withheld = True
            return
        self._start(call)

    def _start(self, call: Call) -> None:
        call.withheld = False  # (if it was, it comes out after all)
        before = call.begin()
        call.tentative = False
        call.index = self.count
        self.count += 1
        call.id = self._unique(call.id)
        source = call.source
        sources = self.sources
        if source not in sources:
            self.sources = _NATIVE_ONLY if not sources and source == "native" else sources | {source}
        put = self.put
        put(ToolCallStarted(call.index, call.id, call.name))
        index = call.index
        patches = call.patches = PatchWriter(put, index) if self.partial else None
        for part in before:  # fragments that came before the name
            if part:
                put(ToolCallDelta(index, part))
                if patches is not None:
                    patches.feed(part)

    # -- arguments -----------------------------------------------------------

    def feed(self, call: Call, fragment: str) -> int:
        """Add an argument fragment.

        Completes the call when its JSON value closes.  Returns -1, or the
        offset in ``fragment`` where the call's text ended before the
        fragment did: the value closed and something other than blank space
        follows (a second value: the caller decides whether it starts a new
        call).  For a call found in text, also where its value ended after a
        limit failed it (it is counted to its end, ``draining`` until then),
        or where a tentative call was given up at a limit.
        """
        if call.status != OPEN or not fragment:
            if call.draining and fragment:
                return drain(call, fragment, 0)
            return -1
        length = len(fragment)
        if call.size + length > self._max_arguments or self.held + length > self._max_buffered:
            return feed_over_limit(self, call, fragment)
        call.size += length
        self.held += length
        scanner = call.scanner
        # The scanner's own first test, inlined: inside a string, a fragment without a quote or
        # a backslash changes nothing (the middle of a long string value, most fragments).
        if not scanner.in_string or scanner.escape or '"' in fragment or "\\" in fragment:
            end = scanner.feed(fragment)
            if end >= 0 or scanner.state == TOO_DEEP:
                return self._after_scan(call, fragment, end)
        # The common case: the value goes on.
        if not call.started:
            self._append(call, fragment)
            return -1
        # _append's started case, inlined: this runs once per fragment.
        try:
            call.text += fragment.encode()  # (with no arguments: the fastest encode)
        except UnicodeEncodeError:  # a lone surrogate, from a decoded object
            call.text += fragment.encode("utf-8", "surrogatepass")
        self.put(ToolCallDelta(call.index, fragment))
        if call.patches is not None:
            call.patches.feed(fragment)
        return -1

    def _append(self, call: Call, fragment: str) -> None:
        call.keep(fragment)
        if call.started:
            self.put(ToolCallDelta(call.index, fragment))
            if call.patches is not None:
                call.patches.feed(fragment)
        # Fragments before the start are replayed as deltas, each; but a withheld call may be
        # long: its replay comes in fewer, longer deltas.
        elif call.withheld and len(call.parts or ()) >= call.joined + JOIN_EVERY:
            call.join_tail()

    def _after_scan(self, call: Call, fragment: str, end: int, cut_at: int = -1) -> int:
        """The value closed, nested too deep, or (in text) a limit cut ``fragment`` at ``cut_at``."""
        native = call.source == "native"
        scanner = call.scanner
        rest = -1
        kept = fragment if cut_at < 0 else fragment[:cut_at]
        if scanner.state == TOO_DEEP:
            if not native:
                rest = scanner.deep_at
                kept = kept[:rest]
        # What follows the value in the same fragment: a provider's blank tail
        # stays in its raw fragment; anything else -- and, for a call found in
        # text, even blanks, which its detector parses -- goes back to the caller.
        elif 0 <= end < len(fragment) and (not native or not fragment[end:].isspace()):
            rest = end
            kept = kept[:end]
        if kept:
            self._append(call, kept)
        if end >= 0:
            if not call.deferred:
                self._finish(call)
            return rest
        if scanner.state == TOO_DEEP:
            error = too_deep(self.limits)
        else:
            error = breach(self.limits, call.size + 1, self.held + 1)
            rest = cut_at
        if native:
            self.fail(call, error, limit=True)
            return rest
        return text_over_limit(self, call, fragment, rest, error)

    def room(self) -> tuple[int, str]:
        """How many characters of arguments a new call may take, and the limit that more would break
        (for a reader that holds a call's arguments itself before it feeds them)."""
        return _room(self.limits, self.held)

    def whole(self, call: Call, arguments: Any, raw: str | None = None) -> None:
        """Complete a call whose arguments arrived whole (an object or a JSON string)."""
        whole_arguments(self, call, arguments, raw)

    # -- ending ----------------------------------------------------------------

    def end(self, call: Call) -> None:
        """The provider signalled the end of this call: complete or fail it."""
        if call.status != OPEN:
            return
        scanner = call.scanner
        if scanner.state == COMPLETE:
            self._finish(call)
        elif call.blank:
            self._complete(call, call.initial if call.initial is not None else {})
        elif scanner.state == TOO_DEEP:
            self.fail(call, too_deep(self.limits))
        # An unclosed object, array or string is truncated: never a success.
        # A top-level scalar closes here; decode_arguments rejects it.
        elif scanner.state == SCALAR:
            self._finish(call)
        else:
            self.fail(call, "arguments JSON is incomplete (truncated)")

    def fail(self, call: Call, error: str, *, limit: bool = False, raw: str | None = None) -> None:
        """End a call as failed, with ``raw`` or what arrived of its arguments.

        A call found in text is reported by its owner (``limit``: it broke a
        size limit), unless ``raw`` is given.
        """
        if call.status != OPEN:
            return
        call.status = FAILED
        self._open.remove(call)
        self.held -= call.size
        owner = call.owner
        if owner is not None and raw is None:
            owner.call_failed(call, error, limit=limit)
        else:
            self.report_failure(call, call.raw() if raw is None else raw, error)

    def report_failure(self, call: Call, raw: str, error: str) -> None:
        """Emit a failed call's end (``ToolCallStarted`` first, if it had no name yet)."""
        if not call.started:
            self._start(call)
        self.put(ToolCallFailed(call.index, call.id, call.name, raw, error))

    def fail_open(self, error: str) -> None:
        """Fail every call still open (end of input, a provider error, ...)."""
        for call in list(self._open):
            self.fail(call, error)

    def end_open(self) -> None:
        """Signal the end of every call still open (a call found in text ends with its markup)."""
        for call in list(self._open):
            if call.owner is None:
                self.end(call)

    @property
    def has_open(self) -> bool:
        return bool(self._open)

    def _finish(self, call: Call) -> None:
        try:
            arguments = decode_arguments(call.raw())
        except ValueError as exc:
            self.fail(call, str(exc))
            return
        self._complete(call, arguments)

    def _complete(self, call: Call, arguments: dict[str, Any]) -> None:
        if not call.name:
            self.fail(call, "call has no name")
            return
        done = self._done
        if done is not None:
            original = take_original(done, call, arguments)
            if original is not None:
                self._copy(call, original)
                return
        native = call.source == "native"
        if not self.native and native:
            self.fail(call, "native tool calls are disabled (native=False); not run")
            return
        if not call.started:
            self._start(call)
        call.status = COMPLETED
        self._open.remove(call)
        self.held -= call.size
        self.completed += 1
        if call.patches is not None:
            call.patches.finish(arguments)
        self.put(
            ToolCallCompleted(
                ToolCall(call.id, call.name, arguments, call.index, call.source, call.signature)
            )
        )
        self._done = remember(self._done, call, arguments)
        if call.owner is not None:
            call.owner.call_completed(call)

    def _copy(self, call: Call, original: str) -> None:
        """``call`` completed as a copy of the completed call ``original``, of the other kind."""
        if call.started:  # it came out while the other was still open: it ends, not run
            kind = "text" if call.source == "native" else "native"
            self.fail(call, f"a copy of the {kind} call {original!r}, which completed first; not run")
            return
        call.withheld = False  # dropped: no event at all
        self.copies += 1
        call.status = COMPLETED
        self._open.remove(call)
        self.held -= call.size
        if call.owner is not None:
            call.owner.call_completed(call)  # its markup leaves the text, as a completed call's does
