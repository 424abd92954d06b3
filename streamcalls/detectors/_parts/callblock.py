"""A block of tagged calls: the state machine of the XML-parameter formats (``qwen3_coder``,
``minimax``, ``dsml``, and any format of the same shape).

They write, after their opener, one or more calls of the same shape, then the block's end::

    <tool_call>               <function=NAME>      <parameter=KEY>VALUE</parameter> ...       </function>      </tool_call>
    <minimax:tool_call>       <invoke name=N>      <parameter name=K>VALUE</parameter> ...    </invoke>        </minimax:tool_call>
    <｜DSML｜function_calls>  <｜DSML｜invoke name="N">  <｜DSML｜parameter name="K" string="true">V</｜DSML｜parameter>  </｜DSML｜invoke>  </｜DSML｜function_calls>

so a format is its tags (:class:`CallBlock`'s class attributes) and a few small choices: whether
one line end right after a parameter's tag is markup (Qwen), whether names may be quoted
(MiniMax, DSML), whether a parameter's tag carries a ``string`` attribute that types its value
(DSML: ``"true"`` a string, ``"false"`` JSON; without it the schema types it), and which openers
open a block (each with its own end) or a call without a block (an opener that is the call's own
tag: DeepSeek-V4 often drops the wrapper; a format with no block at all, MiniCPM 5, reads each
call as a region of its own, and what follows it is text).  Blanks between tags are markup.  A call completes at
its end tag (or at the block's, when its own is missing); after a completed call only another
call or the block's end is markup, anything else is text again.  Malformed markup inside a call
fails it and is skipped to the call's end tag (the block goes on) or the block's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import IntEnum
from typing import Any, ClassVar

from .._engine.detector import Hold, Trigger
from .._engine.machine import Status, fast
from .._engine.tokens import Seen, literal_prefix_at, skip_blanks
from .tagged import TaggedDetector
from .xmlparams import As

__all__ = ("CallBlock",)

_QUOTES = ('"', "'")
# A tag's name (quoted or not), then attributes: key="value".
_NAME_AND_REST = re.compile(r"""("[^"]*"|'[^']*'|[^\s"']*)\s*(.*)""", re.DOTALL)
_ATTRIBUTE = re.compile(r"""([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_TYPED_AS = {"true": As.STRING, "false": As.JSON}


class CallBlock(TaggedDetector):
    """Subclasses set the tags; ``block_end`` is ``(call_end, end)``."""

    class State(IntEnum):
        OPEN = 0  # after the opener: a call must come
        NAME = 1  # inside the call's tag, up to ">"
        BODY = 2  # a parameter, the call's end or the block's
        KEY = 3  # inside a parameter's tag, up to ">"
        VALUE_START = 4  # Qwen: the line end after the parameter's tag is markup
        VALUE = 5
        AFTER = 6  # a call ended: another, or the block's end
        SKIP = 7  # malformed: up to the call's end tag or the block's

    # The declaration: each opener and the block's end it takes ("" for an opener that is the
    # call's own tag: a call without a block), then the tags.
    openers: ClassVar[tuple[tuple[str, str], ...]]  # (("<tool_call>", "</tool_call>"),)
    call_open: ClassVar[str]  # "<function="
    parameter_open: ClassVar[str]  # "<parameter="
    call_end: ClassVar[str]  # "</function>"
    newline_after_tag: ClassVar[bool] = False
    quoted_names: ClassVar[bool] = False
    string_attribute: ClassVar[bool] = False  # a parameter's string="true|false" types its value

    # Made from it (by __init_subclass__): the first opener and its end, for messages.
    opener: ClassVar[str]
    end: ClassVar[str]
    _block_ends: ClassVar[Mapping[str, str]]

    __slots__ = ("_end",)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        openers = cls.__dict__.get("openers")
        if openers is None:
            return
        cls.opener, cls.end = openers[0]
        cls._block_ends = dict(openers)
        if "triggers" not in cls.__dict__:
            cls.triggers = tuple(Trigger.literal(token) for token, _ in openers)
            cls.holds = tuple(Hold.literal(token) for token, _ in openers)
        if "block_end" not in cls.__dict__:
            cls.block_end = (cls.call_end, *dict.fromkeys(end for _, end in openers if end))

    def begin(self, trigger: str) -> None:
        super().begin(trigger)
        self._end = self._block_ends.get(trigger, "")
        if not self._end:  # the opener is the call's own tag: a call without a block
            self._param = None
            self._state = _S.NAME

    def _value(self, text: str, pos: int) -> int:
        stop, ended = self.value(text, pos, self.closer)
        if ended:
            self._state = _S.BODY
        return stop

    def _value_start(self, text: str, pos: int) -> int:
        self._state = _S.VALUE
        return pos + 1 if text[pos] == "\n" else pos

    def _skip(self, text: str, pos: int) -> int:
        stop, closed = self.skip(text, pos)
        if closed == 0:  # the call's end tag: the block goes on
            self._state = _S.AFTER
        elif closed > 0:  # a block's end
            return self.done(stop)
        return stop

    def _open(self, text: str, pos: int) -> int:
        end = self._end or self.end
        if not end:  # a format without blocks (MiniCPM 5): each call is a region of its own
            return self.done(pos)
        found, at = self.look_past(text, pos, (self.call_open, end))
        if found == Seen.WAIT:
            return pos
        if found == 0:
            if self._state is _S.AFTER:
                self.markup.next_call(at)
            self._param = None
            self._state = _S.NAME
            return at + len(self.call_open)
        if found == 1:  # the block's end (after an empty block: markup that holds no call)
            return self.done(at + len(end))
        if self._state is _S.OPEN:
            self.markup.fail(f"{self.opener} with no {self.call_open}...> after it")
        return self.done(pos)  # the text resumes

    _after = _open

    def _name(self, text: str, pos: int) -> int:
        at, found = self.read_up_to(text, pos, ">")
        if at < 0:
            self.fail("a tool name longer than the limit")
            self._state = _S.SKIP
            return pos
        if not found:
            return at
        self._state = _S.BODY if self.open_call(self._unquoted(self.taken().strip())) else _S.SKIP
        return at + 1

    def _key(self, text: str, pos: int) -> int:
        at, found = self.read_up_to(text, pos, ">")
        if at < 0:
            self.fail("a parameter name longer than the limit")
            self._state = _S.SKIP
            return pos
        if not found:
            return at
        name, typed = self._tag(self.taken().strip())
        if name:
            assert self._param is not None
            self._param.parameter(name, at + 1, typed)
            self._state = _S.VALUE_START if self.newline_after_tag else _S.VALUE
        else:
            self.fail(f"a {self.parameter_open}...> without a name")
            self._state = _S.SKIP
        return at + 1

    def _unquoted(self, name: str) -> str:
        if self.quoted_names and len(name) >= 2 and name[0] == name[-1] and name[0] in _QUOTES:
            return name[1:-1]
        return name

    def _tag(self, inside: str) -> tuple[str, As]:
        """A parameter's name, and how its value is typed, from what its tag holds after its opener."""
        if not self.string_attribute:
            return self._unquoted(inside), As.SCHEMA
        match = _NAME_AND_REST.fullmatch(inside)
        assert match is not None
        typed = As.SCHEMA
        for found in _ATTRIBUTE.finditer(match.group(2)):
            if found.group(1) == "string":
                typed = _TYPED_AS.get(found.group(2) or found.group(3) or "", As.SCHEMA)
        return self._unquoted(match.group(1)), typed

    def _body(self, text: str, pos: int) -> int:
        at = skip_blanks(text, pos)
        if at == len(text):
            return at
        param = self._param
        assert param is not None
        end = self._end or self.end
        found = literal_prefix_at(
            text,
            at,
            (self.parameter_open, self.call_end, end) if end else (self.parameter_open, self.call_end),
        )
        if found == Seen.WAIT:
            return at
        if found == 0:
            self._state = _S.KEY
            return at + len(self.parameter_open)
        if found == 1:
            param.end(at)
            self._state = _S.AFTER
            return at + len(self.call_end)
        if found == 2:
            param.end(at)
            return self.done(at + len(end))
        self.fail(f"expected {self.parameter_open}...> or {self.call_end} in the tool call")
        self._state = _S.SKIP
        return at

    def finish(self, rest: str) -> str:
        state = self._state
        self.status = _Status.DONE
        if state is _S.AFTER:
            return rest  # after a completed call: text
        if state is not _S.SKIP:
            self.cut_off()
        return ""


_S = fast(CallBlock.State)
_Status = fast(Status)
