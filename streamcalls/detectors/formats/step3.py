"""StepFun Step3 tool calls (``source="step3"``).

One section holds the turn's calls, each an entry whose body is a StepTML invoke (the bars are
U+FF5C, the underscores ASCII)::

    <｜tool_calls_begin｜>
    <｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather">
    <steptml:parameter name="city">Paris</steptml:parameter>
    </steptml:invoke><｜tool_call_end｜>
    <｜tool_calls_end｜>

- Values are bare text, verbatim (no trimming, no entity decoding), typed by the tools' schemas
  (:mod:`~streamcalls.detectors._parts.values`).
- An entry completes at ``</steptml:invoke>``; ``<｜tool_call_end｜>``, the line ends and
  ``<｜tool_calls_end｜>`` after it are its markup.  An entry whose type is not ``function``
  fails, named, up to its end; a value that meets ``</steptml:invoke><｜tool_call_end｜>`` before
  its ``</steptml:parameter>`` was never closed: its call fails.
- Step3's prompt opens the reasoning: the output starts inside it and ``</think>`` ends it
  (``think_prompted``).  The machine is the XML formats'
  (:mod:`~streamcalls.detectors._parts.callblock`), with the entry's header and end read here.
"""

from __future__ import annotations

from .._engine.machine import fast
from .._engine.tokens import Seen, literal_at
from .._parts.callblock import CallBlock
from .._parts.xmlparams import Closer

__all__ = ("Step3Detector",)

_SECTION_END = "<｜tool_calls_end｜>"
_INVOKE = "<｜tool_sep｜><steptml:invoke name="  # after the entry's type
_ENTRY_END = "<｜tool_call_end｜>"
_FUNCTION = "function"


class Step3Detector(CallBlock):
    State = CallBlock.State  # the block machine's states; _open, _after and _name are its own below

    name = "step3"
    openers = (("<｜tool_calls_begin｜>", _SECTION_END),)
    call_open = "<｜tool_call_begin｜>"
    parameter_open = "<steptml:parameter name="
    call_end = "</steptml:invoke>"
    closer = Closer(
        "</steptml:parameter>",
        (parameter_open, call_end),
        breaks=(call_end,),
        break_followers=(_ENTRY_END,),
    )
    quoted_names = True

    __slots__ = ("_type",)

    def begin(self, trigger: str) -> None:
        super().begin(trigger)
        self._type: str | None = None

    def _open(self, text: str, pos: int) -> int:
        self._type = None
        if self._state is _S.AFTER:  # the entry's end token after its invoke: markup
            found, at = self.look_past(text, pos, (_ENTRY_END,))
            if found == Seen.WAIT:
                return pos
            if found == 0:
                return at + len(_ENTRY_END)
        return CallBlock._open(self, text, pos)

    _after = _open

    def _name(self, text: str, pos: int) -> int:
        if self._type is not None:  # the invoke's name, then its call
            stop = CallBlock._name(self, text, pos)
            if self._state is _S.BODY and self._type != _FUNCTION:
                self.fail(f"a step3 entry of type {self._type[:40]!r}, not {_FUNCTION!r}")
                self._state = _S.SKIP
            return stop
        at, found = self.read_up_to(text, pos, "<")  # the entry's type
        if at < 0:
            self.fail("an entry type longer than the limit")
            self._state = _S.SKIP
            return pos
        if not found:
            return at
        seen = literal_at(text, at, _INVOKE)
        if seen == 0:
            return at  # wait for the rest of the token
        if seen < 0:
            self.taken()
            self.fail(f"expected {_INVOKE}...> after the entry's type")
            self._state = _S.SKIP
            return at
        self._type = self.taken().strip()
        return at + len(_INVOKE)


_S = fast(CallBlock.State)
