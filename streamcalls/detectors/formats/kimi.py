"""Kimi K2's tool-call tokens (``source="kimi"``).

::

    <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>

The section holds calls one after another (blanks between the tokens are
markup); some checkpoints spell its tokens ``<|tool_call_section_begin|>`` /
``<|tool_call_section_end|>``.  The model writes each call's id,
``functions.NAME:IDX``: the call keeps it as its id (made unique within the
stream like every id) and is named ``NAME`` -- the id without a leading
``functions.`` and a trailing ``:IDX``, dots and dashes kept.  A call
starts at ``<|tool_call_argument_begin|>`` and completes when its
arguments' JSON closes (no arguments before ``<|tool_call_end|>``: ``{}``);
the arguments end at the next Kimi token, so JSON still open there fails
the call.

Nothing inside the section is text.  Text before a ``<|tool_call_begin|>``
(``<|tool_calls_section_begin|> noise <|tool_call_begin|>...``) is the markup
of the call that follows it, as the peers' parsers drop it: it goes with
that call (into its ``raw`` if it fails).  Text that no call follows (before
the section's end, or another Kimi token) fails, nameless, with that text as
``raw``.  A
``<|tool_call_begin|>`` without a section is a call too; after it, only a
further call continues the markup.
"""

from __future__ import annotations

import re
from enum import IntEnum

from ..._call import OPEN, Call
from .._engine.detector import Detector, Hold, Trigger
from .._engine.machine import Status, fast
from .._engine.tokens import Tokens, literal_at, skip_blanks
from .._parts.arguments import Ended, arguments_until

__all__ = ("KimiDetector",)

SECTION_BEGINS = ("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>")
SECTION_ENDS = ("<|tool_calls_section_end|>", "<|tool_call_section_end|>")
CALL_BEGIN = "<|tool_call_begin|>"
ARGUMENTS_BEGIN = "<|tool_call_argument_begin|>"
CALL_END = "<|tool_call_end|>"
_TOKENS = Tokens((*SECTION_BEGINS, *SECTION_ENDS, CALL_BEGIN, ARGUMENTS_BEGIN, CALL_END))
_NOISE = "text inside the tool-call section that is not a call"
_FUNCTIONS = "functions."
_INDEX = re.compile(r":\d+\Z")
_MAX_ID = 256
_MAX_BLANK = 64  # blanks held after a call outside a section, while another call may follow


class KimiDetector(Detector):
    class State(IntEnum):
        BETWEEN = 0  # between calls
        CALL_ID = 1  # after <|tool_call_begin|>
        ARGUMENTS_START = 2
        ARGUMENTS = 3
        AFTER_ARGUMENTS = 4  # <|tool_call_end|> should follow
        STRAY = 5  # text inside the section that is not a call: up to the next token
        NOISE = 6  # text inside the section before a token: the next call's markup, if one follows

    name = "kimi"
    triggers = tuple(Trigger.literal(token) for token in (*SECTION_BEGINS, CALL_BEGIN))
    holds = tuple(Hold.literal(token) for token in (*SECTION_BEGINS, CALL_BEGIN))

    __slots__ = ("_call", "_id_pieces", "_section")

    def begin(self, trigger: str) -> None:
        self.start(_S.CALL_ID if trigger == CALL_BEGIN else _S.BETWEEN)
        self._section = trigger != CALL_BEGIN
        self._id_pieces: list[str] = []
        self._call: Call | None = None

    def _between(self, text: str, pos: int) -> int:
        start = pos
        pos = skip_blanks(text, pos)
        if pos == len(text):
            if self._section:
                return pos  # blanks inside the section are markup
            if pos - start > _MAX_BLANK:
                self.status = _Status.DONE
            return start  # wait: another call may follow
        for token in (CALL_BEGIN, *SECTION_ENDS):
            found = literal_at(text, pos, token)
            if found == 1:
                if token == CALL_BEGIN:
                    self.markup.next_call(pos)
                    self._state = _S.CALL_ID
                    self._id_pieces = []
                    self._call = None
                else:
                    self.status = _Status.DONE
                return pos + len(token)
            if found == 0:
                return start if not self._section else pos
        if not self._section:
            return self.stop(start)  # the text goes on
        self.markup.next_call(pos)  # what came before was the last call's markup
        self._state = _S.NOISE
        return pos

    def _noise(self, text: str, pos: int) -> int:
        """Text inside the section: the markup of the call whose token follows it; if another
        token follows, it fails, nameless, with that text as raw."""
        cut, found = _TOKENS.find(text, pos)
        if found is None:
            return cut
        if found.group() != CALL_BEGIN:
            self.markup.fail(_NOISE)
            if found.group() not in SECTION_ENDS:
                self._state = _S.STRAY
                return found.end()
        self._state = _S.BETWEEN
        return cut

    def _unexpected(
        self, pos: int, error: str, *, name: str | None = None, call_id: str | None = None
    ) -> int:
        """Markup that is not a call: in a section it fails, up to the next token; else the text resumes."""
        if self._section:
            self.markup.next_call(pos)
            self.markup.fail(error, name=name, call_id=call_id)
            self._state = _S.STRAY
        else:
            self.markup.fail(error, name=name, call_id=call_id)
            self.status = _Status.DONE
        return pos

    def _stray(self, text: str, pos: int) -> int:
        cut, found = _TOKENS.find(text, pos)
        if found is not None:
            self._state = _S.BETWEEN if found.group() in (CALL_BEGIN, *SECTION_ENDS) else _S.STRAY
            return cut if self._state is _S.BETWEEN else found.end()
        return cut

    def _call_id(self, text: str, pos: int) -> int:
        room = _MAX_ID - sum(map(len, self._id_pieces))
        at = text.find("<", pos, pos + room + 1)
        if at < 0:
            if len(text) - pos > room:
                self._id_pieces = []
                return self._unexpected(pos + room, "the call id after <|tool_call_begin|> is too long")
            self._id_pieces.append(text[pos:])
            return len(text)
        self._id_pieces.append(text[pos:at])
        found = literal_at(text, at, ARGUMENTS_BEGIN)
        if found == 0:
            return at
        call_id = "".join(self._id_pieces).strip()
        name = _name(call_id)
        if found < 0:
            error = "expected <|tool_call_argument_begin|> after the call id"
            return self._unexpected(at, error, name=name or None, call_id=call_id or None)
        self._call = self.markup.open_call(call_id or None, name or None)
        if self._call is None:  # past max_calls
            return self.stop(at)
        self._state = _S.ARGUMENTS_START
        return at + len(ARGUMENTS_BEGIN)

    def _arguments_start(self, text: str, pos: int) -> int:
        pos = skip_blanks(text, pos)
        if pos == len(text):
            return pos
        call = self._call
        assert call is not None
        if text[pos] == "<":
            found = literal_at(text, pos, CALL_END)
            if found == 0:
                return pos
            if found == 1:  # no arguments: {}
                self.calls.whole(call, None)
                self._state = _S.BETWEEN
                return pos + len(CALL_END)
        self.markup.arguments(call, pos)
        self._state = _S.ARGUMENTS
        return pos

    def _arguments(self, text: str, pos: int) -> int:
        assert self._call is not None
        stop, ended, _ = arguments_until(self, self._call, text, pos, tokens=_TOKENS)
        if ended is not _E.MORE:  # the JSON closed, or a token came first (the call was ended there)
            self._state = _S.AFTER_ARGUMENTS
        return stop

    def _after_arguments(self, text: str, pos: int) -> int:
        pos = skip_blanks(text, pos)
        if pos == len(text):
            return pos
        found = literal_at(text, pos, CALL_END)
        if found == 1:
            self._state = _S.BETWEEN
            return pos + len(CALL_END)
        if found == 0:
            return pos
        others = [literal_at(text, pos, token) for token in (CALL_BEGIN, *SECTION_ENDS)]
        if 1 in others:
            self._state = _S.BETWEEN  # no <|tool_call_end|>: the next call, or the section's end, ends it
            return pos
        if 0 in others:
            return pos  # the text so far begins one of them: wait (another token would fail otherwise)
        if not self._section:
            return self.stop(pos)
        return self._unexpected(pos, "expected <|tool_call_end|> after the arguments")

    def finish(self, rest: str) -> str:
        self.status = _Status.DONE
        call = self._call
        state = self._state
        if call is not None and call.status == OPEN:
            if state is _S.ARGUMENTS:
                self.calls.feed(call, rest)
            self.markup.fail("the arguments were cut off (the text ended inside them)", call)
        elif state is _S.CALL_ID:
            call_id = "".join(self._id_pieces).strip()
            self.markup.fail(
                "the text ended inside a tool call", name=_name(call_id) or None, call_id=call_id or None
            )
        elif state is _S.BETWEEN and not self._section:
            return rest  # blanks held after the last call: text
        elif state is _S.NOISE:
            self.markup.fail(_NOISE)
        return ""


_S = fast(KimiDetector.State)
_E = fast(Ended)


def _name(call_id: str) -> str:
    """``functions.NAME:IDX`` -> ``NAME``."""
    name = call_id[len(_FUNCTIONS) :] if call_id.startswith(_FUNCTIONS) else call_id
    found = _INDEX.search(name)
    return name[: found.start()] if found is not None else name


_Status = fast(Status)
