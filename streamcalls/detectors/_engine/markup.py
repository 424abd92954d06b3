"""The markup a text detector consumed that no event accounts for yet.

This is where rule 8 (see :mod:`streamcalls.detectors`) is kept: every
character of a detector's markup ends up inside a completed call's markup,
in a failed call's ``raw``, or -- for a candidate that was not a call -- back
in the text.  A region (the markup from a trigger to where its detector
stops) is recorded as it is consumed: the channel records what each ``feed``
consumed, a call's arguments are recorded as a reference to the call (its
assembler keeps them), and

- a call that completes takes the record with it, and what follows it up to
  the next call's markup (closing tags, separators) belongs to it too;
- a call that fails is reported when its markup has ended -- where the next
  call's markup begins, or at the region's end -- with everything recorded
  as its ``raw``, closing delimiters included;
- a call that fails at a size limit is reported at once, with what was
  recorded up to the limit; the rest of its markup is counted and dropped;
- a region that ends with markup that no call accounts for fails as it is
  (a marker with no call after it);
- markup that frames the model's own text (a Harmony message's header, and
  the end token after its text) is accounted for by that text: the detector
  emits the text itself (:meth:`Markup.content`), and the framing around it
  is neither text nor ``raw``.

Besides the arguments, at most ``max_arguments_bytes`` characters of markup
are kept; a failed call whose ``raw`` was cut there says so in its error.
"""

from __future__ import annotations

from typing import NamedTuple

from ..._call import OPEN, Call
from ..._calls import CallAssembler

__all__ = ("Markup",)


class _Failure(NamedTuple):
    call: Call | None  # None: the markup failed before a call was opened
    error: str
    name: str | None = None
    call_id: str | None = None


class Markup:
    __slots__ = (
        "_active",
        "_calls",
        "_cap",
        "_cut",
        "_gap",
        "_mark",
        "_parts",
        "_pending",
        "_size",
        "_source",
        "_text",
    )

    def __init__(self, calls: CallAssembler, source: str) -> None:
        self._calls = calls
        self._source = source
        self._cap = calls.limits.max_arguments_bytes
        self._parts: list[str | Call] = []  # recorded markup; a Call stands for its arguments
        self._size = 0
        self._cut = False  # the record reached the cap; the rest was dropped
        self._gap = False  # after a completed call (or a limit failure): nothing to record
        self._pending: _Failure | None = None  # a failure waiting for its markup's end
        self._text = ""  # the text being fed
        self._mark: int | None = 0  # where its unrecorded part starts; None inside arguments
        self._active = False

    # -- the channel's side ------------------------------------------------------

    def start(self, trigger: str) -> None:
        """A region begins with ``trigger``."""
        self._clear()
        self._gap = False
        self._pending = None
        self._mark = 0
        self._active = True
        self._add(trigger)

    def attach(self, text: str, pos: int) -> None:
        """The detector is about to consume ``text`` from ``pos``."""
        self._text = text
        if self._mark is not None:
            self._mark = pos

    def detach(self, stop: int) -> None:
        """The detector consumed the attached text up to ``stop``."""
        self._take(stop)
        self._text = ""

    def end(self) -> None:
        """The region ended: report its failed call, or its markup if no call accounts for it."""
        if self._pending is None and self._parts and not self._gap:
            self._pending = _Failure(None, f"{self._source} markup that holds no tool call")
        self._flush()
        self.discard()

    def discard(self) -> None:
        """The region is over, with nothing (left) to report: a candidate that was prose."""
        self._clear()
        self._pending = None
        self._text = ""
        self._active = False

    # -- the detectors' side -------------------------------------------------------

    def open_call(
        self, call_id: str | None, name: str | None, *, deferred: bool = False, tentative: bool = False
    ) -> Call | None:
        """Open a call written in this markup (None past ``max_calls``)."""
        return self._calls.open(
            call_id, name, self._source, deferred=deferred, owner=self, tentative=tentative
        )

    def arguments(self, call: Call, at: int) -> None:
        """``call``'s arguments begin at ``at`` in the attached text; the call keeps them."""
        self._take(at)
        if not self._cut:
            self._parts.append(call)
        self._mark = None

    def consumed(self, at: int) -> None:
        """Record the attached text up to ``at`` now: the detector consumed it, and a limit may end
        the record there (a call written as markup, not as JSON, fails at the limit's character)."""
        self._take(at)

    def retag(self, source: str) -> None:
        """The region is another format's (a shared opener decided): its calls get ``source``."""
        self._source = source

    def after_arguments(self, at: int) -> None:
        """The arguments' text ended at ``at`` (their value closed, or the markup around them did)."""
        if self._mark is None:
            self._mark = at

    def next_call(self, at: int) -> None:
        """The markup of the region's next call begins at ``at``: what came before is the last call's."""
        self._take(at)
        if self._pending is not None or self._gap:
            self._flush()
        self._gap = False

    def content(self, start: int, stop: int) -> None:
        """``text[start:stop]`` of the attached text is the model's text, which the detector
        emits: not markup.  What was recorded before it is reported if a call failed there (its
        ``raw``), else it is the framing that holds the text, accounted for; so is what follows
        the text up to the region's end or the next call's markup (an end token)."""
        self._take(start)
        self._flush()
        self._gap = True
        self._mark = stop

    def fail(
        self, error: str, call: Call | None = None, *, name: str | None = None, call_id: str | None = None
    ) -> None:
        """The markup is malformed: its call (or a new one) fails when the markup ends."""
        if call is not None:
            if call.status == OPEN:
                self._calls.fail(call, error)  # comes back through call_failed
        else:
            self._hold(_Failure(None, error, name, call_id))

    # -- the assembler's side (CallOwner) --------------------------------------------

    def call_failed(self, call: Call, error: str, *, limit: bool) -> None:
        if not self._active:  # the region already ended (never expected): report it plainly
            self._calls.report_failure(call, call.raw(), error)
            return
        self._hold(_Failure(call, error))
        if limit:  # reported now, with the markup up to the limit; the rest is dropped
            self._flush()
            self._gap = True

    def call_completed(self, call: Call) -> None:
        self._flush()
        self._gap = True

    # -- internals ---------------------------------------------------------------------------

    def _hold(self, failure: _Failure) -> None:
        if self._pending is not None:  # a second failure before the first one's markup ended
            self._flush()
        self._pending = failure
        self._gap = False

    def _flush(self) -> None:
        """Report the held failure with everything recorded; start a new record."""
        if self._pending is not None:
            self._report(self._pending)
            self._pending = None
        self._clear()

    def _take(self, at: int) -> None:
        mark = self._mark
        if mark is not None:
            if at > mark:
                self._add(self._text[mark:at])
            self._mark = at

    def _add(self, text: str) -> None:
        if self._gap or self._cut or not text:
            return
        room = self._cap - self._size
        if len(text) > room:
            text = text[:room]
            self._cut = True
        self._parts.append(text)
        self._size += len(text)

    def _clear(self) -> None:
        self._parts.clear()
        self._size = 0
        self._cut = False

    def _report(self, failure: _Failure) -> None:
        raw = "".join(part if isinstance(part, str) else part.raw() for part in self._parts)
        error = failure.error
        if self._cut:
            error += f" (its raw text is cut at max_arguments_bytes={self._cap})"
        call = failure.call
        if call is not None:
            self._calls.report_failure(call, raw, error)
            return
        call = self._calls.open(failure.call_id, failure.name, self._source)
        if call is not None:
            self._calls.fail(call, error, raw=raw)
