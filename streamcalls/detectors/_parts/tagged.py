"""The scaffolding of the XML call detectors (``qwen3_coder``, ``glm``, ``minimax``).

Each format is a small state machine over tags; what they share lives here: reading a name or
key up to its terminator (at most :data:`~.xmlparams.MAX_NAME` characters), a value up to its
end (:func:`~.xmlparams.value_end`), skipping malformed markup to a closing tag, and looking past
a completed call without consuming what may be text.

How markup that goes wrong ends (rule 8: it fails visibly and loses nothing):

- an opener with no call after it (``<tool_call>`` then prose) fails, nameless, with the
  opener as its ``raw``, and the text resumes at the character that broke it;
- once a call's name tag has shown, the block is markup: malformed markup inside it fails the
  call, and everything up to its end tag (``</function>``, ``</invoke>``) or the block's
  (``</tool_call>``) goes into its ``raw``;
- a duplicate parameter fails the call, whose markup is then read to its end as usual;
- where the format names its call's end tag as a break of its values (:class:`~.xmlparams.Closer`),
  a value that meets it before its own closing tag was never closed: the call fails there and its
  markup is read on to its end;
- after a completed call, only what the format allows next (another call, the block's closing
  tag) is markup; anything else, blanks before it included, is text again;
- the text ending inside a call fails it (cut off), with everything after the opener as ``raw``.
"""

from __future__ import annotations

import re
from typing import ClassVar

from ..._calls import CallAssembler
from ..._events import Event
from .._engine.detector import Detector
from .._engine.tokens import Seen, Tokens, literal_prefix_at
from .._engine.tools import ToolTypes
from .xmlparams import MAX_GAP, MAX_NAME, Closer, ParamCall, valid_name, value_end

__all__ = ("TaggedDetector",)

_GAP = re.compile(f"[ \\t\\r\\n]{{0,{MAX_GAP + 1}}}")


class TaggedDetector(Detector):
    """A format whose calls are tags; subclasses declare the state machine (``State`` and its steps)."""

    closer: ClassVar[Closer]
    block_end: ClassVar[tuple[str, ...]]  # what ends malformed markup that is skipped
    python_values: ClassVar[bool] = False  # values also in Python's spellings (True, None, {'a': 1})

    _ends: ClassVar[Tokens]  # block_end, searched for (one per class)
    _pieces: list[str]

    __slots__ = ("_param", "_pieces", "_size")

    def __init__(
        self, calls: CallAssembler, tools: frozenset[str] | None, out: list[Event], types: ToolTypes
    ) -> None:
        super().__init__(calls, tools, out, types)
        cls = type(self)
        if "_ends" not in cls.__dict__:  # the first of its class (block_end may be set late)
            cls._ends = Tokens(cls.block_end)
        self._param: ParamCall | None = None
        self._size = 0  # (and _pieces, made by begin: most detectors never read a region)

    def begin(self, trigger: str) -> None:
        self._param = None
        self._pieces = []
        self._size = 0
        self.start(self.State(0))  # every format's first state

    # -- shared steps ------------------------------------------------------------------

    def read_up_to(self, text: str, pos: int, terminator: str) -> tuple[int, bool]:
        """Collect a name or key up to ``terminator`` (one character): (the terminator's position,
        True) once it shows -- the name is then :meth:`taken` --, else (where the collected text
        stopped, False), or (-1, False) past MAX_NAME characters."""
        room = MAX_NAME - self._size
        end = len(text)
        at = text.find(terminator, pos, min(end, pos + room + 1))
        if at >= 0:
            self._pieces.append(text[pos:at])
            return at, True
        if end - pos > room:
            self.taken()  # dropped: the next name starts from nothing, however this one was chunked
            return -1, False
        self._pieces.append(text[pos:end])
        self._size += end - pos
        return end, False

    def taken(self) -> str:
        name = "".join(self._pieces)
        self._pieces.clear()
        self._size = 0
        return name

    def open_call(self, name: str) -> bool:
        """A call's name arrived: it starts (False, failed nameless, if the name is not one)."""
        if not valid_name(name):
            self.markup.fail(f"{self.name} markup with an invalid tool name {name[:40]!r}")
            return False
        self._param = ParamCall(self.calls, self.markup, self.types, name, python=self.python_values)
        return True

    def value(self, text: str, pos: int, closer: Closer) -> tuple[int, bool]:
        """Stream a value: (where it stopped, whether the value ended there -- at its closing tag,
        consumed, or at a break of the closer, not consumed: the call has failed)."""
        param = self._param
        assert param is not None
        stop, close = value_end(text, pos, closer)
        param.value(text, pos, stop)
        if close < 0:
            return stop, False
        if closer.breaks and not text.startswith(closer.close, close):
            param.fail("a parameter's value was never closed (the call's end came first)")
            return close, True
        param.end_parameter(stop)
        return close + len(closer.close), True

    def skip(self, text: str, pos: int) -> tuple[int, int]:
        """Malformed markup: consume up to and through the first ``block_end``.

        Returns (where it stopped, which ``block_end`` was consumed or -1)."""
        cut, match = self._ends.find(text, pos)
        if match is None:
            return cut, -1
        return match.end(), self.block_end.index(match.group())

    def fail(self, error: str) -> None:
        """Fail the call (or, before it has one, the markup), when the markup ends."""
        param = self._param
        if param is not None and param.call is not None:
            param.fail(error)
        elif param is None:
            self.markup.fail(error)

    def look_past(self, text: str, pos: int, nexts: tuple[str, ...]) -> tuple[int, int]:
        """After a completed call: which of ``nexts`` follows (after blanks), without consuming.

        Returns (its index, its position); (Seen.WAIT, pos) to wait; (Seen.NONE, pos) if the text
        resumes.
        """
        gap = _GAP.match(text, pos)
        assert gap is not None
        at = gap.end()
        if at - pos > MAX_GAP:
            return Seen.NONE, pos
        if at == len(text):
            return Seen.WAIT, pos
        found = literal_prefix_at(text, at, nexts)
        return (found, at) if found >= 0 else (found, pos)

    def cut_off(self) -> None:
        """The text ended inside the markup."""
        self.fail("the tool call was cut off (the text ended inside it)")

    def done(self, pos: int) -> int:
        return self.stop(pos)
