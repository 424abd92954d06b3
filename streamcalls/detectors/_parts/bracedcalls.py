"""Calls written ``call:NAME{key:value,...}`` between two tokens: the machine behind ``gemma4`` and
``functiongemma``.

A format declares its tokens (:class:`BracedCalls`' class attributes), and this machine reads::

    <|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|><|tool_response>      Gemma 4
    <start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>  FunctionGemma

- The opener is explicit markup: ``call:``, a name (letters, digits, ``_``, ``.``, ``-``) and ``{``
  must follow it; anything else fails, nameless, up to the call's closing token.
- The arguments are read by :class:`~.bracedargs.BracedArguments` and stream as JSON as their
  values arrive; the call completes at the ``}`` that closes them (eagerly: a call whose
  arguments closed is a call even when the closing token never comes).
- The closing token and, right after it, the format's ``after`` tokens (the model's stop signal:
  ``<|tool_response>``) are the call's markup; calls follow each other with no separator, each
  its own region.
- A value the notation does not allow fails its call, whose markup is read on to the closing
  token (or to the next opener, not consumed); the text ending inside a call fails it.
"""

from __future__ import annotations

import re
from enum import IntEnum
from typing import Any, ClassVar

from ..._call import OPEN, Call
from .._engine.detector import Detector, Hold, Trigger
from .._engine.machine import Status, fast
from .._engine.tokens import Seen, Tokens, literal_at, literal_prefix_at
from .bracedargs import BracedArguments

__all__ = ("BracedCalls",)

_PREFIX = "call:"
_NAME_CHARS = re.compile(r"[A-Za-z0-9_.\-]*")
_MAX_NAME = 256


class BracedCalls(Detector):
    """``call:NAME{...}`` between tokens; subclasses declare the tokens (see the module docstring)."""

    class State(IntEnum):
        PREFIX = 0  # "call:" after the opener
        NAME = 1  # up to "{"
        ARGUMENTS = 2
        END = 3  # the closing token may follow
        AFTER = 4  # after the closing token: the stop tokens that may follow it
        SKIP = 5  # malformed: up to the closing token (or the next opener)

    # The declaration.
    opener: ClassVar[str]  # "<|tool_call>"
    closer: ClassVar[str]  # "<tool_call|>"
    after: ClassVar[tuple[str, ...]] = ()  # tokens right after the closer that are markup too
    quote: ClassVar[str]  # the string quote token: '<|"|>'
    json_strings: ClassVar[bool] = False  # a JSON string in double quotes is a string too

    # Made from it (by __init_subclass__).
    _skip_to: ClassVar[Tokens]

    __slots__ = ("_call", "_json", "_name_pieces", "_reader")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "opener" not in cls.__dict__:
            return
        cls.triggers = (Trigger.literal(cls.opener),)
        cls.holds = (Hold.literal(cls.opener),)
        cls._skip_to = Tokens((cls.closer, cls.opener))

    def begin(self, trigger: str) -> None:
        self.start(_S.PREFIX)
        self._call: Call | None = None
        self._reader: BracedArguments | None = None
        self._name_pieces: list[str] = []
        self._json: list[str] = []  # the arguments' JSON written since the last flush

    def _prefix(self, text: str, pos: int) -> int:
        seen = literal_at(text, pos, _PREFIX)
        if seen == 0:
            return pos
        if seen < 0:
            self.markup.fail(f"{self.opener} with no {_PREFIX}NAME{{...}} after it")
            self._state = _S.SKIP
            return pos
        self._state = _S.NAME
        return pos + len(_PREFIX)

    def _name(self, text: str, pos: int) -> int:
        room = _MAX_NAME - sum(map(len, self._name_pieces))
        match = _NAME_CHARS.match(text, pos, pos + room + 1)
        assert match is not None
        pos = match.end()
        self._name_pieces.append(match.group())
        too_long = pos - match.start() > room
        if pos == len(text) and not too_long:
            return pos  # more of the name may come
        name = "".join(self._name_pieces)
        if too_long or text[pos] != "{" or not name:
            self.markup.fail(f"{self.opener}{_PREFIX} with no tool name and {{ after it")
            self._state = _S.SKIP
            return pos
        self._call = call = self.markup.open_call(None, name)
        if call is None:  # past max_calls: its markup is dropped
            self._state = _S.SKIP
            return pos + 1
        room, error = self.calls.room()
        self._reader = BracedArguments(
            self._json.append,
            quote=self.quote,
            json_strings=self.json_strings,
            max_depth=self.calls.limits.max_json_depth,
            room=room,
            room_error=error,
        )
        self._state = _S.ARGUMENTS
        return pos + 1

    def _arguments(self, text: str, pos: int) -> int:
        reader = self._reader
        call = self._call
        assert reader is not None
        assert call is not None
        pos = reader.feed(text, pos)
        self._flush()
        if reader.status is _Status.ACTIVE:
            return pos
        if reader.error is not None:
            if reader.limit:
                self.markup.consumed(pos)  # its raw is its markup up to the limit
                self.calls.fail(call, reader.error, limit=True)
            else:
                self.markup.fail(reader.error, call)
            self._state = _S.SKIP
            return pos
        self._state = _S.END  # the "}" closed the JSON: the call has completed
        return pos

    def _flush(self) -> None:
        """Hand the JSON written so far to the call (its ToolCallDelta)."""
        pieces = self._json
        if pieces:
            call = self._call
            if call is not None and call.status == OPEN:
                self.calls.feed(call, "".join(pieces))
            pieces.clear()

    def _end(self, text: str, pos: int) -> int:
        seen = literal_at(text, pos, self.closer)
        if seen == 0:
            return pos
        if seen < 0:
            return self.stop(pos)  # no closing token: the text resumes
        self._state = _S.AFTER
        return pos + len(self.closer)

    def _after(self, text: str, pos: int) -> int:
        if not self.after:
            return self.stop(pos)
        found = literal_prefix_at(text, pos, self.after)
        if found == Seen.WAIT:
            return pos
        if found >= 0:
            return self.stop(pos + len(self.after[found]))
        return self.stop(pos)

    def _skip(self, text: str, pos: int) -> int:
        cut, found = self._skip_to.find(text, pos)
        if found is None:
            return cut
        if found.group() == self.opener:  # the next call: the failed one's markup ends here
            return self.stop(cut)
        self._state = _S.AFTER
        return found.end()

    def finish(self, rest: str) -> str:
        self.status = _Status.DONE
        state = self._state
        if state is _S.END or state is _S.AFTER:
            return rest  # after a completed call (or its closing token): text
        call = self._call
        if state is _S.ARGUMENTS and call is not None and call.status == OPEN:
            self.markup.fail("the tool call was cut off (the text ended inside it)", call)
        elif state is _S.PREFIX or state is _S.NAME:
            self.markup.fail("the text ended inside a tool call")
        return ""


_S = fast(BracedCalls.State)
_Status = fast(Status)
