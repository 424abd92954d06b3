"""Python-style call lists, as Llama 3.2 and Llama 4 write them (``source="pythonic"``).

::

    [get_weather(city="Paris", days=3), get_time()]
    <|python_start|>[get_weather(city="Paris")]<|python_end|>

A list of calls with keyword arguments whose values are Python literals
(read by :mod:`~streamcalls.detectors._pyliteral`, never evaluated).  Each
call's arguments stream as JSON written as its values arrive, and the call
completes at its closing ``)``.

Prose is full of brackets, so a list is a call list only where Meta's
prompts put one and only once it shows a call's shape: its ``[`` opens a
line (or the text, or follows ``<|python_start|>``), a name follows it
straight away, then ``(`` and then ``)`` or a keyword and ``=`` (not
``==``); with ``tools=``, the name must be one of them.  Until then it is a
candidate, given back as text if it turns out not to be one: ``[1] See
below``, ``[see (a) below]``, ``[x(1)]``, ``["a", "b"]`` stay text.  From
that first call on the list is committed: a later element that is not a
call, or a call that is not all literals (a positional argument, a name or a
call in a value, ...), fails -- that element alone, with its text as
``raw`` -- and the list goes on.  After the ``]``, ``<|python_end|>`` and an
end token (``<|eot|>``, ``<|eom|>``, ``<|eot_id|>``, ``<|eom_id|>``) are
markup; a list left open ends where its text stops being one.
"""

from __future__ import annotations

import re

from .._call import OPEN, Call
from ._base import ACTIVE, DONE, REJECTED, SHAPED, Hold, StateDetector, Trigger, prefixes, skip_blanks
from ._pyliteral import READING, PythonArguments
from ._pytokens import Skipper

__all__ = ("PythonicDetector",)

_PYTHON_START = "<|python_start|>"
_PYTHON_END = "<|python_end|>"
_END_TOKENS = ("<|eot_id|>", "<|eom_id|>", "<|eot|>", "<|eom|>")
_NAME_CHARS = re.compile(r"[\w.]*")
_MAX_NAME = 256
_MAX_BLANK = 64  # blanks held after a call while a "," or "]" may follow
# The first call shows itself: "(" then ")" or a keyword and "=" that is not "==".
_COMMITS = re.compile(r"\(\s*(?:\)|[A-Za-z_]\w*\s*=[^=])")
_MAY_COMMIT = re.compile(r"\(\s*(?:[A-Za-z_]\w*\s*=?)?\Z")
_END = re.compile(
    rf"(?:[ \t]*{re.escape(_PYTHON_END)})?(?:[ \t]*(?:{'|'.join(map(re.escape, _END_TOKENS))}))?"
)
_MAY_END = re.compile(
    rf"(?:[ \t]*{re.escape(_PYTHON_END)})?[ \t]*"
    rf"(?:{'|'.join(prefixes(token) for token in (_PYTHON_END, *_END_TOKENS))})?\Z"
)

# States.
_OPENED = 0  # after <|python_start|>: its "[" should follow
_ITEM = 1  # an element of the list, or its "]"
_NAME = 2
_COMMIT = 3  # the first call's "(": does a call's shape follow?
_ARGUMENTS = 4
_AFTER_CALL = 5  # "," or "]"
_SKIP_ITEM = 6  # an element that is not a call, up to the next "," or "]"
_END_TOKEN = 7  # after "]"


class PythonicDetector(StateDetector):
    name = "pythonic"
    triggers = (
        Trigger("[", r"[ \t]{0,64}[A-Za-z_]", line_start=True, tier=SHAPED),
        Trigger("<", re.escape(_PYTHON_START[1:])),
    )
    holds = (Hold(r"\[[ \t]{0,64}", "[", line_start=True), Hold(prefixes(_PYTHON_START), "<"))

    __slots__ = ("_arguments", "_call", "_json", "_name", "_skipper")

    def begin(self, trigger: str) -> None:
        self.status = ACTIVE
        self.committed = False
        self._call: Call | None = None
        self._arguments: PythonArguments | None = None
        self._skipper: Skipper | None = None
        self._json: list[str] = []  # the arguments' JSON written since the last flush
        if trigger == _PYTHON_START:
            self._state = _OPENED
            self._name: list[str] = []
        else:
            self._state = _NAME
            self._name = [trigger[-1]]  # the trigger took the name's first character

    def feed(self, text: str, pos: int) -> int:
        pos = super().feed(text, pos)
        self._flush()  # the JSON this text wrote: one ToolCallDelta
        return pos

    # -- the list ------------------------------------------------------------------------------

    def _opened(self, text: str, pos: int) -> int:
        pos = skip_blanks(text, pos)
        if pos == len(text):
            return pos
        if text[pos] != "[":
            self.status = REJECTED  # <|python_start|> before something else: text, token and all
            return pos
        self._state = _ITEM
        return pos + 1

    def _item(self, text: str, pos: int) -> int:
        pos = skip_blanks(text, pos)
        if pos == len(text):
            return pos
        char = text[pos]
        if not self.committed:
            if not (char.isascii() and (char.isalpha() or char == "_")):
                self.status = REJECTED
                return pos
            self._name = []
            self._state = _NAME
            return pos
        if char == "]":
            self._state = _END_TOKEN
            return pos + 1
        if char in ")}":
            self.status = DONE  # a closer that closes nothing: the list is over
            return pos
        self.markup.next_call(pos)
        if char.isidentifier():
            self._name = []
            self._state = _NAME
            return pos
        return self._not_a_call(pos)

    def _not_a_call(self, pos: int) -> int:
        """A committed list's element that is not a call: it fails, up to the next "," or "]"."""
        self.markup.fail("an element of the call list that is not a call")
        self._skipper = Skipper(",]")
        self._state = _SKIP_ITEM
        return pos

    def _skip_item(self, text: str, pos: int) -> int:
        skipper = self._skipper
        assert skipper is not None
        pos = skipper.feed(text, pos)
        if skipper.stop == ",":
            self._state = _ITEM
            return pos + 1
        if skipper.stop == "]":
            self._state = _END_TOKEN
            return pos + 1
        if skipper.stop:
            self.status = DONE  # a closer that closes nothing: the list is over
        return pos

    def _after_call(self, text: str, pos: int) -> int:
        start = pos
        pos = skip_blanks(text, pos)
        if pos == len(text):
            if pos - start > _MAX_BLANK:
                self.status = DONE
            return start  # wait: a "," or "]" may follow
        char = text[pos]
        if char == ",":
            self._state = _ITEM
            return pos + 1
        if char == "]":
            self._state = _END_TOKEN
            return pos + 1
        self.status = DONE  # the list was never closed: the text goes on
        return start

    def _end_token(self, text: str, pos: int) -> int:
        found = _END.match(text, pos)
        assert found is not None
        complete = found.end() == len(text) and text.endswith(_END_TOKENS)
        if not complete and len(text) - pos < 48 and _MAY_END.match(text, pos) is not None:
            return pos  # blanks, or the start of an end token: wait
        self.status = DONE
        return found.end()

    # -- a call ---------------------------------------------------------------------------------

    def _read_name(self, text: str, pos: int) -> int:
        room = _MAX_NAME - sum(map(len, self._name))
        match = _NAME_CHARS.match(text, pos, pos + room + 1)
        assert match is not None
        if match.end() - pos > room:
            return self._no_call(pos + room)
        self._name.append(match.group())
        pos = match.end()
        if pos == len(text):
            return pos
        if text[pos] != "(":
            return self._no_call(pos)
        if not self.committed:
            self._state = _COMMIT
            return pos
        return self._open_call(pos)

    def _no_call(self, pos: int) -> int:
        if not self.committed:
            self.status = REJECTED
            return pos
        return self._not_a_call(pos)

    def _commit(self, text: str, pos: int) -> int:
        name = "".join(self._name)
        if self.tools is not None and name not in self.tools:
            self.status = REJECTED
            return pos
        if _COMMITS.match(text, pos) is None:
            if _MAY_COMMIT.match(text, pos) is None:
                self.status = REJECTED
            return pos
        self.committed = True
        return self._open_call(pos)

    def _open_call(self, pos: int) -> int:
        """The call's ``(`` is at ``pos``."""
        self._call = call = self.markup.open_call(None, "".join(self._name))
        self._state = _ARGUMENTS
        if call is None:  # past max_calls: followed to its end, and dropped
            self._arguments = None
            self._skipper = Skipper(")")
            return pos + 1
        limits = self.calls.limits
        buffered = limits.max_buffered_bytes - self.calls.held
        if limits.max_arguments_bytes <= buffered:
            room, error = (
                limits.max_arguments_bytes,
                f"arguments exceed max_arguments_bytes={limits.max_arguments_bytes}",
            )
        else:
            room = buffered
            error = (
                f"the open calls' arguments together exceed max_buffered_bytes={limits.max_buffered_bytes}"
            )
        self._arguments = PythonArguments(
            self._json.append, max_depth=limits.max_json_depth, room=room, room_error=error
        )
        return pos + 1

    def _read_arguments(self, text: str, pos: int) -> int:
        arguments = self._arguments
        if arguments is None:  # a call past max_calls
            skipper = self._skipper
            assert skipper is not None
            pos = skipper.feed(text, pos)
            if skipper.stop:
                self._state = _AFTER_CALL
                return pos + 1 if skipper.stop == ")" else pos
            return pos
        call = self._call
        assert call is not None
        failed = arguments.error is not None
        pos = arguments.feed(text, pos)
        if arguments.error is not None and not failed:
            self._flush()  # what it wrote before the failure, however the text was chunked
            if arguments.limit:
                self.markup.consumed(pos)  # its raw is its markup up to the limit
                self.calls.fail(call, arguments.error, limit=True)
            else:
                self.markup.fail(arguments.error, call)
            pos = arguments.feed(text, pos)  # on to the call's end, reading nothing
        status = arguments.status
        if status == READING:
            return pos
        self._flush()  # at the closing ")": the call completes here
        self._state = _AFTER_CALL  # (after a "]" or "}" that broke the call, at it)
        return pos

    def _flush(self) -> None:
        """Hand the JSON written so far to the call (its ToolCallDelta)."""
        pieces = self._json
        if pieces:
            call = self._call
            if call is not None and call.status == OPEN:
                self.calls.feed(call, "".join(pieces))
            pieces.clear()

    def finish(self, rest: str) -> str:
        self.status = DONE
        state = self._state
        call = self._call
        if state == _ARGUMENTS and call is not None and call.status == OPEN:
            arguments = self._arguments
            error = arguments.finish() if arguments is not None else None
            self.markup.fail(error or "the call was cut off (the text ended inside it)", call)
        elif state in (_NAME, _COMMIT):
            self.markup.fail("the text ended inside a tool call")
        elif state == _AFTER_CALL:
            return rest  # blanks: text
        elif state == _END_TOKEN:
            found = _END.match(rest)
            assert found is not None
            return rest[found.end() :]
        return ""

    steps = (_opened, _item, _read_name, _commit, _read_arguments, _after_call, _skip_item, _end_token)
