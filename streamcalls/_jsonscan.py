"""A resumable scanner that finds where one JSON value ends.

Tool-call arguments arrive as fragments of one JSON text.  To know that a
call is complete the moment its arguments close, :class:`JsonScanner` keeps
the little state that matters between fragments -- nesting depth, whether it
is inside a string, whether the fragment ended on a backslash -- and looks
only at the new fragment's bytes.  Work per character is O(1): the scanner
never revisits text it has seen, and it lets C-level ``re`` searches skip
over the runs of ordinary characters in between.

It checks structure only.  Whether the value is valid JSON is decided once,
by msgspec, when the value has closed (a closed object cannot be extended,
so decoding it then is safe; a number or an unclosed string could still
grow, so the scanner never declares those complete).

Past ``max_depth`` it stops (``TOO_DEEP``); :meth:`JsonScanner.unlimit`
lets it go on counting to the value's end -- a depth is one integer, so a
value that broke a limit can be followed to its end in constant memory.
"""

from __future__ import annotations

import re
import sys

__all__ = ("JsonScanner",)

# Inside a string only a quote or a backslash matters; outside, only quotes
# and brackets do.  Everything else (digits, literals, colons, commas,
# whitespace) is skipped by the regex engine.
_IN_STRING = re.compile(r'["\\]')
_OUTSIDE = re.compile(r'["{}\[\]]')

_WHITESPACE = " \t\r\n"

# Scanner states.
BEFORE = 0  # only whitespace seen so far
SCANNING = 1  # inside a container or a top-level string
SCALAR = 2  # a top-level number or literal: its end cannot be seen
COMPLETE = 3  # the value closed
TOO_DEEP = 4  # nesting went past the limit


class JsonScanner:
    """Tracks one JSON value across fragments and reports where it ends."""

    __slots__ = ("deep_at", "depth", "escape", "in_string", "max_depth", "state")

    def __init__(self, max_depth: int) -> None:
        self.max_depth = max_depth
        self.state = BEFORE
        self.depth = 0
        self.in_string = False
        self.escape = False
        self.deep_at = -1  # offset just past the bracket that went too deep

    def feed(self, text: str) -> int:
        """Scan the next fragment.

        Returns the offset just past the value's last character when the
        value closed inside ``text``, else -1.  After the value closed (or
        ``state`` became ``TOO_DEEP``) the scanner must not be fed again.
        """
        state = self.state
        pos = 0
        if state != SCANNING:
            if state != BEFORE:
                return -1
            stripped = text.lstrip(_WHITESPACE)
            if not stripped:
                return -1
            pos = len(text) - len(stripped)
            first = stripped[0]
            if first == '"':
                self.in_string = True
                pos += 1
            elif first in "{[":
                self.depth = 1
                pos += 1
            else:
                self.state = SCALAR
                return -1
            self.state = SCANNING
        in_string = self.in_string
        if self.escape:
            # The previous fragment ended on a backslash inside a string:
            # this fragment's first character is the escaped one.
            if not text:
                return -1
            self.escape = False
            pos += 1
        elif in_string and '"' not in text and "\\" not in text:
            return -1  # the common case: the middle of a long string value
        depth = self.depth
        end = len(text)
        while pos < end:
            if in_string:
                match = _IN_STRING.search(text, pos)
                if match is None:
                    break
                at = match.start()
                if text[at] == '"':
                    in_string = False
                    pos = at + 1
                    if depth == 0:  # a top-level string closed
                        self.in_string = False
                        self.state = COMPLETE
                        return pos
                else:
                    pos = at + 2  # skip the escaped character
                    if pos > end:
                        self.escape = True
            else:
                match = _OUTSIDE.search(text, pos)
                if match is None:
                    break
                at = match.start()
                char = text[at]
                pos = at + 1
                if char == '"':
                    in_string = True
                elif char in "{[":
                    depth += 1
                    if depth > self.max_depth:
                        self.state = TOO_DEEP
                        self.deep_at = pos
                        self.depth = depth
                        self.in_string = False
                        return -1
                else:
                    depth -= 1
                    if depth == 0:
                        self.depth = 0
                        self.in_string = False
                        self.state = COMPLETE
                        return pos
        self.depth = depth
        self.in_string = in_string
        return -1

    def unlimit(self) -> None:
        """Go on past ``TOO_DEEP`` without a depth limit (feed the text after ``deep_at``)."""
        self.max_depth = sys.maxsize
        if self.state == TOO_DEEP:
            self.state = SCANNING
