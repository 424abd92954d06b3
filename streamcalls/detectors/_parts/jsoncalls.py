"""JSON calls between tokens, declared: an opener, a body of call objects, a closer.

The shape most open-weight formats share::

    <tool_calls>[{"name": "f", "arguments": {...}}, ...]</tool_calls>      Jamba, Hunyuan
    <|tool_call|>[{"name": "f", "arguments": {...}}]                         Granite 3.0 (no closer)
    <|action_start|><|plugin|>{"name": "f", "parameters": {...}}<|action_end|>   InternLM2
    <|tools_prefix|>[{"f": {...}}]<|tools_suffix|>                           Apertus (name-keyed)
    <|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {...}}]<|END_ACTION|>

A format declares (:class:`JsonCalls`' class attributes) its openers, each with its closer (or
"" for none), whether its body is an array of call objects, one object (or several joined by
``;``), one object per line, or either of the first two, and what its objects' keys mean
(:class:`~.callkeys.CallKeys`).  Everything else is the engine's: the opener is a trigger,
held back while it may still be one; the objects are read by :mod:`.callrun` and
:mod:`.callobject`, their arguments streamed by the call assembler.

- Each call completes when its object's JSON closes -- the closer need not come (the issue's
  rule: a JSON call block whose JSON has closed is a call even when its end token never comes).
- After the body, blanks and the closer are markup, and so are the format's end tokens after it
  (``<|eom_id|>``); anything else is text again, the blanks before it included.
- An opener with no JSON after it (prose, or the closer at once) fails, nameless, with its
  markup as ``raw``, and the text resumes where the markup broke.  A malformed object fails its
  call; its run ends there, and the text resumes at the character that broke it.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, ClassVar

from .._engine.detector import Detector, Hold, Trigger
from .._engine.machine import Status, fast
from .._engine.shared import MAX_GAP
from .._engine.tokens import Seen, literal_at, literal_prefix_at, skip_blanks
from .callkeys import CALL_KEYS, CallKeys
from .callrun import CallRun, Layout

__all__ = ("Body", "JsonCalls")


class Body(IntEnum):
    """What a format's body holds."""

    ARRAY = 0  # [{...}, {...}]
    OBJECTS = 1  # {...}, or {...}; {...}
    LINES = 2  # {...} on a line, then another on the next
    EITHER = 3  # an array or objects, whichever comes


class JsonCalls(Detector):
    """JSON call objects after an opener; subclasses declare it (see the module docstring)."""

    class State(IntEnum):
        BODY = 0  # after the opener: blanks, then the JSON
        CALLS = 1  # the run of call objects
        CLOSE = 2  # after the run: the closer, then end tokens

    # The declaration.
    openers: ClassVar[tuple[tuple[str, str], ...]]  # (opener, its closer or ""), ...
    body: ClassVar[Body] = Body.EITHER
    keys: ClassVar[CallKeys] = CALL_KEYS
    end_tokens: ClassVar[tuple[str, ...]] = ()  # markup after the closer (end-of-turn tokens)
    line_start: ClassVar[bool] = False  # the opener counts only at the start of a line

    _closers: ClassVar[dict[str, str]]

    __slots__ = ("_after", "_closer", "_run")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        openers = cls.__dict__.get("openers")
        if openers is None:
            return
        cls._closers = dict(openers)
        if "triggers" not in cls.__dict__:
            cls.triggers = tuple(Trigger.literal(token, line_start=cls.line_start) for token, _ in openers)
            cls.holds = tuple(Hold.literal(token, line_start=cls.line_start) for token, _ in openers)

    def begin(self, trigger: str) -> None:
        self._closer = self._closers.get(trigger, "")
        self._run: CallRun | None = None
        self._after: tuple[str, ...] = ((self._closer,) if self._closer else ()) + self.end_tokens
        self.start(_S.BODY)

    def _body(self, text: str, pos: int) -> int:
        at = skip_blanks(text, pos)  # (blanks after the opener are its markup)
        if at == len(text):
            return at
        if self._closer:
            found = literal_at(text, at, self._closer)
            if found == 0:
                return at  # maybe the closer: wait
            if found == 1:  # the closer at once: markup that holds no call
                return self._no_json(at + len(self._closer))
        char = text[at]
        body = self.body
        if char == "[" and body in (Body.ARRAY, Body.EITHER):
            layout = Layout.ARRAY
        elif char == "{" and body is not Body.ARRAY:
            layout = Layout.LINES if body is Body.LINES else Layout.RUN
        else:
            return self._no_json(at)
        self.markup.next_call(at)
        self._run = CallRun(
            self.calls, self.markup, self.tools, committed=True, layout=layout, keys=self.keys
        )
        self._state = _S.CALLS
        return at + 1

    def _no_json(self, pos: int) -> int:
        """No call after the opener: its markup fails, and the text resumes at ``pos``."""
        self.markup.fail(f"{self.name} markup with no JSON tool call after it")
        return self.stop(pos)

    def _calls(self, text: str, pos: int) -> int:
        run = self._run
        assert run is not None
        pos = run.feed(text, pos)
        if run.status is not _Status.ACTIVE:
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

    def finish(self, rest: str) -> str:
        self.status = _Status.DONE
        state = self._state
        if state is _S.BODY:
            self.markup.fail(f"{self.name} markup with no JSON tool call after it")
            return ""
        if state is _S.CALLS and self._run is not None:
            return self._run.finish(rest)
        return rest  # after the calls: blanks, or a token cut short -- text

    def abandon(self) -> None:
        if self._run is not None:
            self._run.abandon()


_S = fast(JsonCalls.State)
_Status = fast(Status)
