"""A call written as a tool's name, then its JSON object: what the functionary formats share.

functionary v3.1 writes ``<function=NAME>{...}``, v3.2 a recipient line ``NAME\\n{...}``.  Both
read the name in pieces (a chunk's end may cut it) up to a character of their own, then, after
blanks, the call's object, which completes when it closes.  :class:`NamedObject` holds the name
and the call and does those steps; each format keeps its own states and what ends its name.
"""

from __future__ import annotations

import re
from enum import IntEnum

from ..._call import Call
from .._engine.detector import Detector
from .._engine.machine import Status, fast
from .arguments import feed_arguments

__all__ = ("NamedObject",)


class NamedObject(Detector):
    """A detector whose calls are a name read in pieces, then a JSON object (see the module)."""

    __slots__ = ("_call", "_name_pieces")

    _call: Call | None
    _name_pieces: list[str]

    def _begin_call(self) -> None:
        self._call = None
        self._name_pieces = []

    def _take_name(self, chars: re.Pattern[str], limit: int, text: str, pos: int) -> int:
        """Add the name's ``chars`` from ``pos``: where they stop, or -1 past ``limit`` characters."""
        room = limit - sum(map(len, self._name_pieces))
        match = chars.match(text, pos, pos + room + 1)
        assert match is not None
        if match.end() - pos > room:
            return -1
        self._name_pieces.append(match.group())
        return match.end()

    def _open_object(self, at: int, arguments: IntEnum) -> int:
        """The call's ``{`` is at ``at``: the markup is a call, read in state ``arguments``."""
        self.committed = True
        self._call = self.markup.open_call(None, "".join(self._name_pieces))
        if self._call is None:  # past max_calls
            return self.stop(at)
        self.markup.arguments(self._call, at)
        self._state = arguments
        return at

    def _feed_object(self, text: str, pos: int) -> int:
        """Feed the call's object from ``pos``: where it closed, or -1 while it goes on."""
        assert self._call is not None
        stop = feed_arguments(self.calls, self._call, text, pos)
        if stop >= 0:
            self.markup.after_arguments(stop)
        return stop

    def _reject(self, pos: int) -> int:
        self.status = _Status.REJECTED
        return pos


_Status = fast(Status)
