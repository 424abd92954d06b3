"""Assembling tool calls from fragments, and the call event protocol.

Every adapter (native providers and text detectors alike) builds its calls
through one :class:`CallAssembler` -- the call half of the
:class:`~streamcalls._emitter.Emitter` they all write into --, which is where the protocol is kept:
each call gets exactly one :class:`ToolCallStarted` (once its name is
known), then any number of :class:`ToolCallDelta`, then exactly one
:class:`ToolCallCompleted` or :class:`ToolCallFailed`.  Stream indices,
generated ids and the per-call limits live here too.

Argument fragments are added to the call's text (:class:`~streamcalls._call.Call`);
the :class:`~streamcalls._jsonscan.JsonScanner` says when the JSON closed, and
msgspec decodes it exactly once, at that moment.

An assembler is made with every parser, most of which never see a call: what
it holds for calls (the ids in use, the completed calls, the sources) is
made when the first call needs it, so that an idle parser holds no empty
containers.

A call found in text has an *owner*, the markup it was written in
(:mod:`streamcalls.detectors._engine.markup`): its failure is reported by the owner,
when the markup has ended, with the markup as ``raw``.  Past a size limit
such a call fails at once and its value is then counted to its end without
being kept, so that the rest of it never spills into the text.

*Copies.*  A call written in the text that repeats a native call of the same
stream (same name, same arguments) -- a server that parses a call natively
and leaves its markup in the content too -- is one call.  Whichever copy
completes first comes out; the other is *withheld* from the moment its name
is known while a call of the other kind (native or text) with that name has
come out and is open, or has completed unpaired: it emits nothing until it
ends.  A withheld call that completes as a copy of a completed call of the
other kind is dropped without a single event (a text copy's markup leaves
the text, as a completed call's does); one that turns out not to be a copy
comes out whole when it ends (``ToolCallStarted``, its arguments, then
``ToolCallCompleted`` or ``ToolCallFailed``), with the next index.  A copy that
had already come out when the other completed first (the two overlapped)
ends as ``ToolCallFailed``, never run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from ._arguments import IdFactory, decode_arguments, json_kind, random_call_id
from ._call import COMPLETED, FAILED, JOIN_EVERY, OPEN, Call, CallOwner
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

__all__ = ("CallAssembler", "Put")

Put = Callable[[Event], None]
"""How an event goes out: the emitter's ``put`` (its output list's ``append``)."""

_encode = msgspec.json.encode

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
        "_next_suffix",
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
        # The ids of the calls started so far: the first alone, then a set of them all.
        self._first_id: str | None = None
        self._ids: set[str] | None = None
        self._next_suffix: dict[str, int] | None = None  # per repeated id, the "#n" to try next
        self._opened = 0  # calls opened so far, for max_calls
        self.count = 0  # calls started so far; the next call's index
        self.completed = 0
        self.copies = 0  # calls dropped as copies of a call of the other kind (no event at all)
        self.held = 0  # argument characters held by the open calls, for max_buffered_bytes
        self.native = native  # False: native calls are reported as failed, never run
        self.sources = _NO_SOURCES  # the sources of the calls started so far
        self.partial = partial  # ToolCallPatch events after each delta (see _patchwriter)
        # Copies (see the module docstring): the completed calls not paired with a copy yet, by
        # (native?, name), each as (id, arguments).  (A call withheld while it may be a copy
        # is marked on the call itself: ``Call.withheld``.)
        self._done: dict[tuple[bool, str], list[tuple[str, Any]]] | None = None

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
                index = self.count
                self.count += 1
                call_id = self._unique(call_id or self._new_id())
                self.put(ToolCallStarted(index, call_id, name or ""))
                error = f"stream has more calls than max_calls={limits.max_calls}; the rest are dropped"
                self.put(ToolCallFailed(index, call_id, name or "", "", error))
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
        """Ids stay unique within a stream: a provider that gives a second call
        the id of an earlier one gets a ``#2`` (``#3``, ...) suffix on it."""
        ids = self._ids
        if ids is None:
            first = self._first_id
            if first is None:
                self._first_id = call_id
                return call_id
            ids = self._ids = {first}
        if call_id in ids:
            # Numbers below the one remembered are taken: an id repeated n times costs O(n), not O(n²).
            suffixes = self._next_suffix
            if suffixes is None:
                suffixes = self._next_suffix = {}
            number = suffixes.get(call_id, 2)
            while f"{call_id}#{number}" in ids:
                number += 1
            suffixes[call_id] = number + 1
            call_id = f"{call_id}#{number}"
        ids.add(call_id)
        return call_id

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
        native = call.source == "native"
        name = call.name
        done = self._done
        if (done is not None and done.get((not native, name))) or any(
            other.started and other.name == name and (other.source == "native") is not native
            for other in self._open
        ):
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
                return self._drain(call, fragment, 0)
            return -1
        length = len(fragment)
        if call.size + length > self._max_arguments or self.held + length > self._max_buffered:
            return self._feed_over_limit(call, fragment)
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

    def _feed_over_limit(self, call: Call, fragment: str) -> int:
        breach = self._breach(call, len(fragment))
        if call.source == "native":  # a provider's fragment is its unit: it stays whole in the raw text
            call.keep(fragment)
            self.fail(call, breach)
            return -1
        # A call found in text stops exactly at the limit, however the text was chunked.
        room = min(self._max_arguments - call.size, self._max_buffered - self.held)
        call.size += room
        self.held += room
        return self._after_scan(call, fragment, call.scanner.feed(fragment[:room]), room)

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
            error = f"arguments nest deeper than max_json_depth={self.limits.max_json_depth}"
        else:
            error = self._breach(call, 1)
            rest = cut_at
        if native:
            self.fail(call, error, limit=True)
            return rest
        return self._text_over_limit(call, fragment, rest, error)

    def _text_over_limit(self, call: Call, fragment: str, at: int, error: str) -> int:
        """A call found in text broke a limit at ``at``: it fails there and the rest
        of its value is counted to its end, kept nowhere (a tentative call is given up)."""
        if call.tentative:
            self.discard(call)
            return at
        self.fail(call, error, limit=True)
        call.scanner.unlimit()
        return self._drain(call, fragment, at)

    def _drain(self, call: Call, fragment: str, start: int) -> int:
        """Count a failed call's value on: where it ended in ``fragment``, or -1."""
        end = call.scanner.feed(fragment[start:] if start else fragment)
        call.draining = end < 0
        return -1 if end < 0 else start + end

    def _breach(self, call: Call, more: int) -> str:
        """The limit that ``more`` characters of arguments would break, if any."""
        limits = self.limits
        if call.size + more > limits.max_arguments_bytes:
            return f"arguments exceed max_arguments_bytes={limits.max_arguments_bytes}"
        if self.held + more > limits.max_buffered_bytes:
            return f"the open calls' arguments together exceed max_buffered_bytes={limits.max_buffered_bytes}"
        return ""

    def room(self) -> tuple[int, str]:
        """How many characters of arguments a new call may take, and the limit that more would break
        (for a reader that holds a call's arguments itself before it feeds them)."""
        limits = self.limits
        buffered = limits.max_buffered_bytes - self.held
        if limits.max_arguments_bytes <= buffered:
            return (
                limits.max_arguments_bytes,
                f"arguments exceed max_arguments_bytes={limits.max_arguments_bytes}",
            )
        return (
            buffered,
            f"the open calls' arguments together exceed max_buffered_bytes={limits.max_buffered_bytes}",
        )

    def whole(self, call: Call, arguments: Any, raw: str | None = None) -> None:
        """Complete a call whose arguments arrived whole (an object or a JSON string)."""
        if call.status != OPEN:
            return
        if isinstance(arguments, str):
            self.feed(call, arguments)
            self.end(call)
            return
        if arguments is None:  # no arguments at all: {}
            arguments = {}
            raw = ""
        if raw is None:
            encoded = _encode(arguments)
            text = encoded.decode()
            if call.started:
                call.text += encoded  # what keep() would encode the text to again
            else:
                call.keep(text)
        else:
            text = raw
            call.keep(text)
        if call.started and text:
            self.put(ToolCallDelta(call.index, text))
            if call.patches is not None:
                call.patches.whole(arguments, text)
        if type(arguments) is not dict:
            self.fail(call, f"arguments must be a JSON object, got {json_kind(arguments)}")
            return
        self._complete(call, arguments)

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
            self.fail(call, f"arguments nest deeper than max_json_depth={self.limits.max_json_depth}")
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
        native = call.source == "native"
        key = (native, call.name)
        done = self._done
        others = None if done is None else done.get((not native, call.name))
        if others:
            original = _pair(others, arguments)
            if original is not None:
                self._copy(call, original)
                return
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
        done = self._done
        if done is None:
            self._done = {key: [(call.id, arguments)]}
        else:
            pairs = done.get(key)
            if pairs is None:
                done[key] = [(call.id, arguments)]
            else:
                pairs.append((call.id, arguments))
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


def _pair(done: list[tuple[str, Any]], arguments: dict[str, Any]) -> str | None:
    """The id of the first call in ``done`` with these arguments, now paired (taken out); or None."""
    for position, (call_id, other) in enumerate(done):
        if same_json(other, arguments):
            del done[position]
            return call_id
    return None


def same_json(left: Any, right: Any) -> bool:
    """Do two decoded JSON values hold the same value?  Numbers compare by value (``1`` and
    ``1.0`` are one number), ``true`` is not ``1``, key order does not matter.  Iterative: a
    value as deep as ``max_json_depth`` allows costs no recursion."""
    pending = [(left, right)]
    while pending:
        a, b = pending.pop()
        if type(a) is dict:
            if type(b) is not dict or a.keys() != b.keys():
                return False
            pending.extend((value, b[key]) for key, value in a.items())
        elif type(a) is list:
            if type(b) is not list or len(a) != len(b):
                return False
            pending.extend(zip(a, b, strict=True))
        elif type(a) is bool or type(b) is bool or a is None or b is None:
            if a is not b:
                return False
        elif type(a) is str or type(b) is str:
            if type(a) is not type(b) or a != b:
                return False
        elif a != b:  # int and float, by value
            return False
    return True
