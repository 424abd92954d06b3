"""Llama 3.x JSON tool calls (``source="llama"``).

::

    <|python_tag|>{"name": "get_weather", "parameters": {"city": "Oslo"}}; {"name": ...}<|eom_id|>

The ``<|python_tag|>`` marker is optional: without it the call object stands
at the start of the text or of a line, and is then a candidate like any bare
JSON (see :mod:`~streamcalls.detectors.formats.rawjson`).  ``parameters`` and
``arguments`` both name the arguments; ``;`` separates calls; an end token
(``<|eom_id|>``, ``<|eot_id|>``) after the calls is markup too.  Code after
``<|python_tag|>`` (the code-interpreter tool) is not a JSON call: it stays
text, the tag with it (the tag commits to a call only once a ``{`` follows it).
"""

from __future__ import annotations

import re
from enum import IntEnum

from .._engine.detector import Detector, Hold, Tier, Trigger
from .._engine.machine import Status, fast
from .._engine.tokens import skip_blanks
from .._parts.callrun import CallRun, Layout

__all__ = ("LlamaDetector",)

_TAG = "<|python_tag|>"
_END_TOKEN = re.compile(r"[ \t]*<\|(?:eom_id|eot_id)\|>")
_END_TOKEN_HOLD = re.compile(r"[ \t]*(?:<(?:\|(?:e(?:o(?:[mt](?:_(?:i(?:d(?:\|)?)?)?)?)?)?)?)?)?\Z")


class LlamaDetector(Detector):
    class State(IntEnum):
        AFTER_TAG = 0  # after <|python_tag|>: a "{" must follow
        CALLS = 1  # the ;-run of call objects
        END = 2  # an end token may follow

    name = "llama"
    triggers = (Trigger.literal(_TAG), Trigger("{", "", line_start=True, tier=Tier.RAW))
    holds = (Hold.literal(_TAG),)

    __slots__ = ("_run",)

    def begin(self, trigger: str) -> None:
        self._run: CallRun | None = None
        if trigger == _TAG:
            self.start(_S.AFTER_TAG, committed=False)
        else:
            self._run = CallRun(self.calls, self.markup, self.tools, committed=False, layout=Layout.RUN)
            self.start(_S.CALLS, committed=False)

    def _after_tag(self, text: str, pos: int) -> int:
        pos = skip_blanks(text, pos)
        if pos == len(text):
            return pos
        if text[pos] != "{":
            self.status = _Status.REJECTED  # code for the interpreter, not a JSON call: text, tag and all
            return pos
        self.committed = True
        self._run = CallRun(self.calls, self.markup, self.tools, committed=True, layout=Layout.RUN)
        self._state = _S.CALLS
        return pos + 1

    def _calls(self, text: str, pos: int) -> int:
        run = self._run
        assert run is not None
        pos = run.feed(text, pos)
        self.committed = run.committed
        if run.status is _Status.REJECTED:
            self.status = _Status.REJECTED
        elif run.status is _Status.DONE:
            self._state = _S.END
        return pos

    def _end(self, text: str, pos: int) -> int:
        match = _END_TOKEN.match(text, pos)
        if match is not None:
            return self.stop(match.end())
        if _END_TOKEN_HOLD.match(text, pos) is not None and len(text) - pos < 32:
            return pos  # maybe the start of an end token
        return self.stop(pos)

    def finish(self, rest: str) -> str:
        self.status = _Status.DONE
        if self._run is not None and self._state is _S.CALLS:
            return self._run.finish(rest)
        return rest if self._state is _S.END else ""

    def abandon(self) -> None:
        if self._run is not None:
            self._run.abandon()


_S = fast(LlamaDetector.State)
_Status = fast(Status)
