"""Llama 3.x JSON tool calls (``source="llama"``).

::

    <|python_tag|>{"name": "get_weather", "parameters": {"city": "Oslo"}}; {"name": ...}<|eom_id|>

The ``<|python_tag|>`` marker is optional: without it the call object stands
at the start of the text or of a line, and is then a candidate like any bare
JSON (see :mod:`~streamcalls.detectors.rawjson`).  ``parameters`` and
``arguments`` both name the arguments; ``;`` separates calls; an end token
(``<|eom_id|>``, ``<|eot_id|>``) after the calls is markup too.  Code after
``<|python_tag|>`` (the code-interpreter tool) is not a JSON call: it stays
text, the tag with it (the tag commits to a call only once a ``{`` follows it).
"""

from __future__ import annotations

import re

from ._base import ACTIVE, DONE, RAW, REJECTED, Detector, Hold, Trigger, prefixes
from ._sequence import CallSequence

__all__ = ("LlamaDetector",)

_TAG = "<|python_tag|>"
_END_TOKEN = re.compile(r"[ \t]*<\|(?:eom_id|eot_id)\|>")
_END_TOKEN_HOLD = re.compile(r"[ \t]*(?:<(?:\|(?:e(?:o(?:[mt](?:_(?:i(?:d(?:\|)?)?)?)?)?)?)?)?)?\Z")
_WHITESPACE = " \t\r\n"

# States.
_AFTER_TAG = 0
_CALLS = 1
_END = 2


class LlamaDetector(Detector):
    name = "llama"
    triggers = (Trigger("<", re.escape(_TAG[1:])), Trigger("{", "", line_start=True, tier=RAW))
    holds = (Hold(prefixes(_TAG), "<"),)

    __slots__ = ("_sequence", "_state")

    def begin(self, trigger: str) -> None:
        self.status = ACTIVE
        self._sequence: CallSequence | None = None
        self.committed = False
        if trigger == _TAG:
            self._state = _AFTER_TAG
        else:
            self._sequence = CallSequence(self.calls, self.markup, self.tools, committed=False, array=False)
            self._state = _CALLS

    def feed(self, text: str, pos: int) -> int:
        end = len(text)
        while pos < end and self.status == ACTIVE:
            state = self._state
            if state == _AFTER_TAG:
                while pos < end and text[pos] in _WHITESPACE:
                    pos += 1
                if pos == end:
                    break
                if text[pos] != "{":
                    self.status = REJECTED  # code for the interpreter, not a JSON call: text, tag and all
                    break
                self.committed = True
                self._sequence = CallSequence(
                    self.calls, self.markup, self.tools, committed=True, array=False
                )
                self._state = _CALLS
                pos += 1
            elif state == _CALLS:
                sequence = self._sequence
                assert sequence is not None
                pos = sequence.feed(text, pos)
                self.committed = sequence.committed
                if sequence.status == REJECTED:
                    self.status = REJECTED
                elif sequence.status == DONE:
                    self._state = _END
                else:
                    break  # it consumed what it could and waits for more text
            else:
                return self._end_token(text, pos)
        return pos

    def _end_token(self, text: str, pos: int) -> int:
        match = _END_TOKEN.match(text, pos)
        if match is not None:
            self.status = DONE
            return match.end()
        if _END_TOKEN_HOLD.match(text, pos) is not None and len(text) - pos < 32:
            return pos  # maybe the start of an end token
        self.status = DONE
        return pos

    def finish(self, rest: str) -> str:
        self.status = DONE
        if self._sequence is not None and self._state == _CALLS:
            return self._sequence.finish(rest)
        return rest if self._state == _END else ""

    def abandon(self) -> None:
        if self._sequence is not None:
            self._sequence.abandon()
