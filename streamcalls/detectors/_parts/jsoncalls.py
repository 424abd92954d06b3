"""JSON calls between tokens, declared: an opener, a body of call objects, a closer.

The shape most open-weight formats share::

    <tool_calls>[{"name": "f", "arguments": {...}}, ...]</tool_calls>      Jamba, Hunyuan
    <|tool_call|>[{"name": "f", "arguments": {...}}]                         Granite 3.0 (no closer)
    <|action_start|><|plugin|>{"name": "f", "parameters": {...}}<|action_end|>   InternLM2
    <|tools_prefix|>[{"f": {...}}]<|tools_suffix|>                           Apertus (name-keyed)
    <|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {...}}]<|END_ACTION|>
    functools[{"name": "f", "arguments": {...}}]                             Phi-4-mini (the array opened)

A format declares (:class:`JsonCalls`' class attributes) its openers, each with its closer (or
"" for none), whether its body is an array of call objects, one object (or several joined by
``;``), one object per line, or either of the first two, and what its objects' keys mean
(:class:`~.callkeys.CallKeys`); maybe a token that must follow an opener (``then``:
``<|action_start|>`` then ``<|plugin|>``), and how far an opener commits (``commit``: an opener
that is also a word of prose is markup only once its JSON begins; a bare array is a candidate
until its first object shows a call).  An opener that ends with ``[`` has opened the array
itself.  Everything else is the engine's: the opener is a trigger, held back while it may still
be one; the objects are read by :mod:`.callrun` and :mod:`.callobject`, their arguments streamed
by the call assembler.

- Each call completes when its object's JSON closes -- the closer need not come (the issue's
  rule: a JSON call block whose JSON has closed is a call even when its end token never comes).
- After the body, blanks and the closer are markup, and so are the format's end tokens after it
  (``<|eom_id|>``); anything else is text again, the blanks before it included.
- An object whose JSON is whole but which is no call (no name, two names) fails alone, and the
  run goes on.
- An opener with no JSON after it (prose, or the closer at once), an element that is no object,
  an object whose JSON breaks: that call fails, nameless if it had no name yet, with its markup
  as ``raw``.  Where the format has a closer, the rest of the block up to the closer is that
  markup too, if the closer comes within :data:`MAX_SKIP` characters (and before another
  opener); else the text resumes where the markup broke -- before the blanks after an opener.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Any, ClassVar

from .._engine.detector import Detector, Hold, Trigger
from .._engine.machine import Status, fast
from .._engine.shared import MAX_GAP
from .._engine.tokens import Seen, Tokens, literal_at, literal_prefix_at, skip_blanks
from .callkeys import CALL_KEYS, CallKeys
from .callrun import CallRun, Layout

__all__ = ("MAX_SKIP", "Body", "Commit", "JsonCalls")

MAX_SKIP = 1024  # characters looked through for the closer after a failure


class Body(IntEnum):
    """What a format's body holds."""

    ARRAY = 0  # [{...}, {...}]
    OBJECTS = 1  # {...}, or {...}; {...}
    LINES = 2  # {...} on a line, then another on the next
    EITHER = 3  # an array or objects, whichever comes


class Commit(IntEnum):
    """How far an opener commits: from when on its region is markup, not text."""

    OPENER = 0  # at once: a special token no prose writes
    BODY = 1  # once its JSON begins (Granite's ``<tool_call>`` then ``[``, ``functools[`` then ``{``)
    CALL = 2  # once its first object shows a call's name and arguments (a bare array, a ``json`` fence)


class JsonCalls(Detector):
    """JSON call objects after an opener; subclasses declare it (see the module docstring)."""

    class State(IntEnum):
        LEAD = 0  # after the opener: blanks, then the token that must follow it
        BODY = 1  # blanks, then the JSON
        CALLS = 2  # the run of call objects
        CLOSE = 3  # after the run: the closer, then end tokens
        SKIP = 4  # after a failure: the rest of the block, up to its closer

    # The declaration.
    openers: ClassVar[tuple[tuple[str, str], ...]]  # (opener, its closer or ""), ...
    body: ClassVar[Body] = Body.EITHER
    keys: ClassVar[CallKeys] = CALL_KEYS
    end_tokens: ClassVar[tuple[str, ...]] = ()  # markup after the closer (end-of-turn tokens)
    line_start: ClassVar[bool] = False  # the opener counts only at the start of a line
    then: ClassVar[tuple[tuple[str, str], ...]] = ()  # (opener, the token that must follow it), ...
    commit: ClassVar[tuple[tuple[str, Commit], ...]] = ()  # (opener, how far it commits), ...: OPENER

    _closers: ClassVar[dict[str, str]]
    _then: ClassVar[Mapping[str, str]]
    _commit: ClassVar[Mapping[str, Commit]]
    _stops: ClassVar[Tokens]  # what ends a skip: a closer, or another opener

    __slots__ = ("_after", "_closer", "_mode", "_needed", "_opened", "_run", "_searched")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        openers = cls.__dict__.get("openers")
        if openers is None:
            return
        cls._closers = dict(openers)
        cls._then = dict(cls.then)
        cls._commit = dict(cls.commit)
        closers = tuple(dict.fromkeys(closer for _, closer in openers if closer))
        # A skip ends at a closer, or before an opener that is markup wherever it stands.
        markers = tuple(
            opener for opener, _ in openers if cls._commit.get(opener, Commit.OPENER) is Commit.OPENER
        )
        cls._stops = Tokens(closers + markers) if closers else Tokens(("\0",))  # (no closer: no skip)
        if "triggers" not in cls.__dict__:
            cls.triggers = tuple(Trigger.literal(token, line_start=cls.line_start) for token, _ in openers)
            cls.holds = tuple(Hold.literal(token, line_start=cls.line_start) for token, _ in openers)

    def begin(self, trigger: str) -> None:
        opener = trigger if trigger in self._closers else _declared(self.openers, trigger)
        self._closer = self._closers[opener]
        self._mode = self._commit.get(opener, _Commit.OPENER)
        self._needed = self._then.get(opener, "")
        self._opened = opener.endswith("[")  # the opener opened the array itself
        self._run: CallRun | None = None
        self._searched = 0
        self._after: tuple[str, ...] = ((self._closer,) if self._closer else ()) + self.end_tokens
        committed = self._mode is _Commit.OPENER and not self._needed
        self.start(_S.LEAD if self._needed else _S.BODY, committed=committed)

    # -- the steps -----------------------------------------------------------------------

    def _lead(self, text: str, pos: int) -> int:
        """The token that must follow the opener (an opener followed by anything else is text)."""
        at = skip_blanks(text, pos)
        if at - pos > MAX_GAP:
            return self._reject(pos)
        if at == len(text):
            return pos  # wait
        found = literal_at(text, at, self._needed)
        if found == 0:
            return pos  # maybe the token: wait
        if found < 0:
            return self._reject(pos)
        self.committed = self._mode is _Commit.OPENER
        self._state = _S.BODY
        return at + len(self._needed)

    def _body(self, text: str, pos: int) -> int:
        # The blanks after the opener are not consumed until the JSON shows: if none follows,
        # the markup ends before them, and they are text.
        at = skip_blanks(text, pos)
        if at - pos > MAX_GAP:
            return self._no_json(pos)
        if at == len(text):
            return pos  # wait
        if self._closer:
            found = literal_at(text, at, self._closer)
            if found == 0:
                return pos  # maybe the closer: wait
            if found == 1:  # the closer at once: markup that holds no call
                return self._no_json(at + len(self._closer), skip=False)
        char = text[at]
        body = self.body
        if self._opened:
            layout = Layout.ARRAY
            fits = char == "{" or self._mode is _Commit.OPENER
        elif char == "[" and body in (Body.ARRAY, Body.EITHER):
            layout = Layout.ARRAY
            fits = True
        elif char == "{" and body is not Body.ARRAY:
            layout = Layout.LINES if body is Body.LINES else Layout.RUN
            fits = True
        else:
            fits = False
        if not fits:
            return self._no_json(pos)
        if self._mode is _Commit.BODY:
            self.committed = True
        self.markup.next_call(at)
        self._run = CallRun(
            self.calls,
            self.markup,
            self.tools,
            committed=self.committed,
            layout=layout,
            keys=self.keys,
            resume=True,
        )
        self._state = _S.CALLS
        return at if self._opened else at + 1

    def _no_json(self, pos: int, *, skip: bool = True) -> int:
        """No call after the opener: its markup fails (an uncommitted opener is text)."""
        if not self.committed:
            return self._reject(pos)
        self.markup.fail(f"{self.name} markup with no JSON tool call after it")
        return self._broken(pos) if skip else self.stop(pos)

    def _broken(self, pos: int) -> int:
        """The markup broke at ``pos``: the rest of the block is the failure's, if its closer comes."""
        if not self._closer:
            return self.stop(pos)
        self._searched = 0
        self._state = _S.SKIP
        return pos

    def _calls(self, text: str, pos: int) -> int:
        run = self._run
        assert run is not None
        pos = run.feed(text, pos)
        if run.committed:
            self.committed = True
        status = run.status
        if status is _Status.ACTIVE:
            return pos
        if status is _Status.REJECTED:
            return self._reject(pos)
        if run.broken:
            return self._broken(pos)
        self._state = _S.CLOSE
        return pos

    def _close(self, text: str, pos: int) -> int:
        """Blanks, then the closer or an end token (markup); anything else is text again."""
        at = skip_blanks(text, pos)
        if at - pos > MAX_GAP or not self._after:
            return self.stop(pos)
        if at == len(text):
            return pos  # wait: the closer may follow
        found = literal_prefix_at(text, at, self._after)
        if found == Seen.WAIT:
            return pos
        if found < 0:
            return self.stop(pos)
        token = self._after[found]
        self._after = self._after[found + 1 :]  # what may follow it: the tokens after it
        return at + len(token)

    def _skip(self, text: str, pos: int) -> int:
        """After a failure at ``pos``: up to the closer, if it comes within MAX_SKIP characters
        and before another opener; else the text resumes at ``pos``.  Nothing is consumed until
        that is known (the channel holds the text meanwhile)."""
        stops = self._stops
        limit = pos + MAX_SKIP  # the last place the closer may begin
        found = stops.pattern.search(text, pos + self._searched, limit + stops.window)
        if found is not None and found.start() <= limit:
            if found.group() == self._closer:
                run = self._run
                if run is not None and run.error:  # the run broke after a call: this is its markup
                    self.markup.fail(run.error)
                return self.stop(found.end())
            return self.stop(pos)  # another block begins first
        if len(text) >= limit + stops.window:
            return self.stop(pos)
        self._searched = max(self._searched, len(text) - pos - stops.window + 1)
        return pos  # wait

    def _reject(self, pos: int) -> int:
        """Not markup after all: the candidate is text."""
        self.status = _Status.REJECTED
        return pos

    # -- the channel's side --------------------------------------------------------------

    def finish(self, rest: str) -> str:
        self.status = _Status.DONE
        state = self._state
        if state is _S.BODY:
            self.markup.fail(f"{self.name} markup with no JSON tool call after it")
            return rest  # blanks: text
        if state is _S.CALLS and self._run is not None:
            return self._run.finish(rest)
        return rest  # after the calls or a failure: blanks, a token cut short, text

    def abandon(self) -> None:
        if self._run is not None:
            self._run.abandon()


def _declared(openers: tuple[tuple[str, str], ...], trigger: str) -> str:
    """The declared opener a trigger's text begins with (a trigger may match more: a fence's line end)."""
    return next(opener for opener, _ in openers if trigger.startswith(opener))


_S = fast(JsonCalls.State)
_Status = fast(Status)
_Commit = fast(Commit)
