"""Python-style call lists: the machine behind ``pythonic`` and every format that writes its calls
as Python calls with literal keyword arguments.

A format declares where its calls stand (:class:`PythonCalls`' class attributes), and this
machine reads them::

    [get_weather(city="Paris", days=3), get_time()]                  a bare list (Llama 3.2 / 4)
    <|python_start|>[get_weather(city="Paris")]<|python_end|>        a list after an opening token
    <function_calls>get_weather(city="Paris")\\nget_time()</function_calls>   one call per line

Each call's arguments are Python literals (read by :mod:`.pyliteral`, never evaluated) and
stream as JSON written as its values arrive; the call completes at its closing ``)``.

A list is a call list only once it shows a call's shape: a name follows its ``[`` (or the
opening token) straight away, then ``(`` and then ``)`` or a keyword and ``=`` (not ``==``);
with ``tools=``, the name must be one of them.  Until then it is a candidate, given back as
text if it turns out not to be one.  A format whose opening token is explicit markup
(``opener_commits``: Olmo 3's ``<function_calls>``, LFM2's ``<|tool_call_start|>``) commits at
the first name and ``(`` after it, whatever the call holds and whatever its name.  From that first call on the list is committed: a later
element that is not a call, or a call that is not all literals, fails -- that element alone,
with its text as ``raw`` -- and the list goes on.  After the list (its ``]``, or for a list of
lines the last call), the format's closing token and end tokens are markup; a list left open
ends where its text stops being one.
"""

from __future__ import annotations

import re
from enum import IntEnum
from typing import Any, ClassVar

from ..._call import OPEN, Call
from .._engine.detector import Detector, Hold, Tier, Trigger, prefixes
from .._engine.machine import Machine, Status, fast
from .._engine.tokens import skip_blanks
from .pyliteral import PythonArguments
from .pytokens import Skipper

__all__ = ("PythonCalls",)

_NAME_CHARS = re.compile(r"[\w.]*")
_MAX_NAME = 256
_MAX_BLANK = 64  # blanks held after a call while a "," or "]" may follow
# The first call shows itself: "(" then ")" or a keyword and "=" that is not "==".
_COMMITS = re.compile(r"\(\s*(?:\)|[A-Za-z_]\w*\s*=[^=])")
_MAY_COMMIT = re.compile(r"\(\s*(?:[A-Za-z_]\w*\s*=?)?\Z")
_LINE_BLANKS = re.compile(r"[ \t\r\n]*")


class PythonCalls(Detector):
    """Python calls in text; subclasses declare where they stand (see the module docstring)."""

    class State(IntEnum):
        OPENED = 0  # after the opening token: the list's "[" should follow (lines: the first call)
        ITEM = 1  # an element of the list, or its "]"
        NAME = 2
        COMMIT = 3  # the first call's "(": does a call's shape follow?
        ARGUMENTS = 4
        AFTER_CALL = 5  # "," or "]" (lines: a line end and the next call, or the closing token)
        SKIP_ITEM = 6  # an element that is not a call, up to the next "," or "]"
        END_TOKEN = 7  # after the list

    # The declaration.
    opener: ClassVar[str] = ""  # a token before the calls ("<|python_start|>"), or none
    lines: ClassVar[bool] = False  # after the opener, one call per line, no brackets
    bare_lists: ClassVar[bool] = False  # "[name(" at a line start opens a list without a token
    closer: ClassVar[str] = ""  # a token after the list ("<|python_end|>"), markup if it comes
    end_tokens: ClassVar[tuple[str, ...]] = ()  # end-of-turn tokens after that, markup too
    opener_commits: ClassVar[bool] = False  # the opener's first "name(" commits the list
    json_literals: ClassVar[bool] = False  # true, false, null are read as True, False, None

    # Made from it (by __init_subclass__).
    _end: ClassVar[re.Pattern[str]]
    _may_end: ClassVar[re.Pattern[str]]

    __slots__ = ("_call", "_json", "_name_pieces", "_reader", "_skipper")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" not in cls.__dict__:
            return
        triggers: list[Trigger] = []
        holds: list[Hold] = []
        if cls.bare_lists:
            triggers.append(Trigger("[", r"[ \t]{0,64}[A-Za-z_]", line_start=True, tier=Tier.SHAPED))
            holds.append(Hold(r"\[[ \t]{0,64}", "[", line_start=True))
        if cls.opener:
            triggers.append(Trigger.literal(cls.opener))
            holds.append(Hold.literal(cls.opener))
        cls.triggers = tuple(triggers)
        cls.holds = tuple(holds)
        closer = rf"(?:[ \t]*{re.escape(cls.closer)})?" if cls.closer else ""
        if cls.lines and cls.closer:  # the closing token may stand on its own line
            closer = rf"(?:[ \t\r\n]*{re.escape(cls.closer)})?"
        ends = "|".join(map(re.escape, cls.end_tokens))
        cls._end = re.compile(closer + (rf"(?:[ \t]*(?:{ends}))?" if ends else ""))
        waiting = "|".join(prefixes(token) for token in (cls.closer, *cls.end_tokens) if token)
        blanks = r"[ \t\r\n]*" if cls.lines else r"[ \t]*"
        cls._may_end = re.compile(closer + blanks + (f"(?:{waiting})?" if waiting else "") + r"\Z")

    def begin(self, trigger: str) -> None:
        self._call: Call | None = None
        self._reader: PythonArguments | None = None
        self._skipper: Skipper | None = None
        self._json: list[str] = []  # the arguments' JSON written since the last flush
        if trigger == self.opener:
            self.start(_S.OPENED, committed=False)
            self._name_pieces: list[str] = []
        else:
            self.start(_S.NAME, committed=False)
            self._name_pieces = [trigger[-1]]  # the trigger took the name's first character

    def feed(self, text: str, pos: int) -> int:
        pos = Machine.feed(self, text, pos)
        self._flush()  # the JSON this text wrote: one ToolCallDelta
        return pos

    # -- the list ------------------------------------------------------------------------------

    def _opened(self, text: str, pos: int) -> int:
        pos = skip_blanks(text, pos)
        if pos == len(text):
            return pos
        if self.lines:
            self._state = _S.ITEM
            return pos
        if text[pos] != "[":
            self.status = _Status.REJECTED  # the token before something else: text, token and all
            return pos
        self._state = _S.ITEM
        return pos + 1

    def _item(self, text: str, pos: int) -> int:
        pos = skip_blanks(text, pos)
        if pos == len(text):
            return pos
        char = text[pos]
        if not self.committed:
            if not (char.isascii() and (char.isalpha() or char == "_")):
                self.status = _Status.REJECTED
                return pos
            self._name_pieces = []
            self._state = _S.NAME
            return pos
        if char == "]" and not self.lines:
            self._state = _S.END_TOKEN
            return pos + 1
        if char in ")}":
            return self.stop(pos)  # a closer that closes nothing: the list is over
        self.markup.next_call(pos)
        if char.isidentifier():
            self._name_pieces = []
            self._state = _S.NAME
            return pos
        return self._not_a_call(pos)

    def _not_a_call(self, pos: int) -> int:
        """A committed list's element that is not a call: it fails, up to the next "," or "]"."""
        self.markup.fail("an element of the call list that is not a call")
        self._skipper = Skipper(",]")
        self._state = _S.SKIP_ITEM
        return pos

    def _skip_item(self, text: str, pos: int) -> int:
        skipper = self._skipper
        assert skipper is not None
        pos = skipper.feed(text, pos)
        if skipper.stop == ",":
            self._state = _S.ITEM
            return pos + 1
        if skipper.stop == "]":
            self._state = _S.END_TOKEN
            return pos + 1
        if skipper.stop:
            return self.stop(pos)  # a closer that closes nothing: the list is over
        return pos

    def _after_call(self, text: str, pos: int) -> int:
        start = pos
        if self.lines:
            return self._after_line(text, pos)
        pos = skip_blanks(text, pos)
        if pos == len(text):
            if pos - start > _MAX_BLANK:
                self.status = _Status.DONE
            return start  # wait: a "," or "]" may follow
        char = text[pos]
        if char == ",":
            self._state = _S.ITEM
            return pos + 1
        if char == "]":
            self._state = _S.END_TOKEN
            return pos + 1
        return self.stop(start)  # the list was never closed: the text goes on

    def _after_line(self, text: str, pos: int) -> int:
        """A list of lines: the next call, or its end."""
        match = _LINE_BLANKS.match(text, pos)
        assert match is not None
        at = match.end()
        if at == len(text):
            if at - pos > _MAX_BLANK:
                self.status = _Status.DONE
            return pos  # wait: another call, or the closing token, may follow
        char = text[at]
        if "\n" in text[pos:at] and char.isascii() and (char.isalpha() or char == "_"):
            self.markup.next_call(at)
            self._name_pieces = []
            self._state = _S.NAME
            return at
        self._state = _S.END_TOKEN
        return pos

    def _end_token(self, text: str, pos: int) -> int:
        found = self._end.match(text, pos)
        assert found is not None
        complete = found.end() == len(text) and bool(self.end_tokens) and text.endswith(self.end_tokens)
        if not complete and len(text) - pos < 48 and self._may_end.match(text, pos) is not None:
            return pos  # blanks, or the start of an end token: wait
        return self.stop(found.end())

    # -- a call ---------------------------------------------------------------------------------

    def _name(self, text: str, pos: int) -> int:
        room = _MAX_NAME - sum(map(len, self._name_pieces))
        match = _NAME_CHARS.match(text, pos, pos + room + 1)
        assert match is not None
        if match.end() - pos > room:
            return self._no_call(pos + room)
        self._name_pieces.append(match.group())
        pos = match.end()
        if pos == len(text):
            return pos
        if text[pos] != "(":
            return self._no_call(pos)
        if not self.committed:
            self._state = _S.COMMIT
            return pos
        return self._open_call(pos)

    def _no_call(self, pos: int) -> int:
        if not self.committed:
            self.status = _Status.REJECTED
            return pos
        return self._not_a_call(pos)

    def _commit(self, text: str, pos: int) -> int:
        if self.opener_commits:
            self.committed = True  # after an explicit opener, a name and "(" are a call
            return self._open_call(pos)
        name = "".join(self._name_pieces)
        if self.tools is not None and name not in self.tools:
            self.status = _Status.REJECTED
            return pos
        if _COMMITS.match(text, pos) is None:
            if _MAY_COMMIT.match(text, pos) is None:
                self.status = _Status.REJECTED
            return pos
        self.committed = True
        return self._open_call(pos)

    def _open_call(self, pos: int) -> int:
        """The call's ``(`` is at ``pos``."""
        self._call = call = self.markup.open_call(None, "".join(self._name_pieces))
        self._state = _S.ARGUMENTS
        if call is None:  # past max_calls: followed to its end, and dropped
            self._reader = None
            self._skipper = Skipper(")")
            return pos + 1
        room, error = self.calls.room()
        self._reader = PythonArguments(
            self._json.append,
            max_depth=self.calls.limits.max_json_depth,
            room=room,
            room_error=error,
            json_names=self.json_literals,
        )
        return pos + 1

    def _arguments(self, text: str, pos: int) -> int:
        arguments = self._reader
        if arguments is None:  # a call past max_calls
            skipper = self._skipper
            assert skipper is not None
            pos = skipper.feed(text, pos)
            if skipper.stop:
                self._state = _S.AFTER_CALL
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
        if arguments.status is _Status.ACTIVE:
            return pos
        self._flush()  # at the closing ")": the call completes here
        self._state = _S.AFTER_CALL  # (after a "]" or "}" that broke the call, at it)
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
        self.status = _Status.DONE
        state = self._state
        call = self._call
        if state is _S.ARGUMENTS and call is not None and call.status == OPEN:
            arguments = self._reader
            error = arguments.finish() if arguments is not None else None
            self.markup.fail(error or "the call was cut off (the text ended inside it)", call)
        elif state is _S.NAME or state is _S.COMMIT:
            self.markup.fail("the text ended inside a tool call")
        elif state is _S.AFTER_CALL:
            return rest  # blanks: text
        elif state is _S.END_TOKEN:
            found = self._end.match(rest)
            assert found is not None
            return rest[found.end() :]
        return ""


_S = fast(PythonCalls.State)
_Status = fast(Status)
