"""One tool call while it is assembled: its state, and the owner that ends a call found in text.

The :class:`~streamcalls._calls.CallAssembler` creates and drives each
:class:`Call` -- it is where the call protocol is kept; a :class:`Call` only
holds the state: its id, name and stream index, its arguments so far, the
JSON scanner that says when they close, and its status.  Adapters and
detectors hold calls and read their status.

*Memory.*  Thousands of parsers may each hold a call open (a gateway), so a
call keeps its arguments compactly: from its start as one ``bytearray`` of
UTF-8 -- about one byte per character, never the 50-odd bytes of a ``str``
per fragment, nor four bytes per character for a whole string because it
holds one emoji.  Only the fragments that came before the start are kept
apart, as strings (the start replays each as a delta).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ._jsonscan import COMPLETE, JsonScanner
from ._patchwriter import PatchWriter

__all__ = ("COMPLETED", "FAILED", "JOIN_EVERY", "OPEN", "Call", "CallOwner")

# A withheld call (see _copies) keeps its fragments until it comes out; they are
# joined into one string every this many, so that its replay comes in fewer,
# longer deltas and a long one holds no str object per fragment.
JOIN_EVERY = 64

# Call status.
OPEN = 0
COMPLETED = 1
FAILED = 2


class CallOwner(Protocol):
    """Who ends a call found in text: the markup it was written in."""

    def call_failed(self, call: Call, error: str, *, limit: bool) -> None:
        """The call failed (``limit``: at a size limit); the owner reports it."""

    def call_completed(self, call: Call) -> None:
        """The call completed: its markup is accounted for."""


class Call:
    """The state of one call while it is assembled."""

    __slots__ = (
        "deferred",
        "draining",
        "id",
        "index",
        "initial",
        "joined",
        "name",
        "owner",
        "parts",
        "patches",
        "scanner",
        "signature",
        "size",
        "source",
        "started",
        "status",
        "tentative",
        "text",
        "withheld",
    )

    def __init__(self, call_id: str, name: str, source: str, max_depth: int, deferred: bool) -> None:
        self.index = -1  # given when the call starts, so stream indices follow start order
        self.id = call_id
        self.name = name
        self.source = source
        # The arguments so far: before the call starts, the fragments as they came
        # (``parts[:joined]`` are blocks of JOIN_EVERY fragments joined; None: no
        # fragment yet); from its start (``begin``), all of them in ``text``, as
        # UTF-8 (lone surrogates, which a decoded object may hold, pass through).
        self.parts: list[str] | None = None
        self.joined = 0
        self.text: bytearray  # set by begin()
        self.size = 0
        self.scanner = JsonScanner(max_depth)
        self.started = False
        self.status = OPEN
        # A deferred call is not completed when its JSON closes: its owner (a
        # text detector) completes it at the markup's own end (a closing fence).
        self.deferred = deferred
        # Arguments an adapter received whole before any fragment (Anthropic
        # sends ``input: {}`` at the block's start); used if no fragment follows.
        self.initial: dict[str, Any] | None = None
        self.patches: PatchWriter | None = None  # partial_arguments=True: given when the call starts
        self.signature: str | None = None  # Gemini 3's thoughtSignature, carried to the ToolCall
        self.owner: CallOwner | None = None  # the markup a call found in text was written in
        # A candidate not yet known to be a call (a bare JSON object whose name has
        # not come): a limit gives it up, silently, instead of failing it.
        self.tentative = False
        self.draining = False  # failed at a limit; its value is being counted to its end
        self.withheld = False  # named, but held back while it may be a copy (see _copies)

    @property
    def closed_json(self) -> bool:
        """True once the arguments' JSON value has closed."""
        return self.scanner.state == COMPLETE

    def begin(self) -> Sequence[str]:
        """The call starts: from now on its argument text is kept in ``text``.

        Returns the fragments that came before, for the start to replay.
        """
        self.started = True
        parts = self.parts
        if parts is None:
            self.text = bytearray()
            return ()
        self.parts = None
        self.text = bytearray("".join(parts).encode("utf-8", "surrogatepass"))
        return parts

    @property
    def blank(self) -> bool:
        """True while no argument text came, or only blank space (as ``str.isspace`` says)."""
        if self.started:
            return not self.text or self.raw().isspace()
        return not self.parts or self.raw().isspace()

    def raw(self) -> str:
        """The argument text so far."""
        if self.started:
            return self.text.decode("utf-8", "surrogatepass")
        parts = self.parts
        return "" if parts is None else parts[0] if len(parts) == 1 else "".join(parts)

    def keep(self, fragment: str) -> None:
        """Add argument text (see ``begin``)."""
        if self.started:
            try:
                self.text += fragment.encode()  # (with no arguments: the fastest encode)
            except UnicodeEncodeError:  # a lone surrogate, from a decoded object
                self.text += fragment.encode("utf-8", "surrogatepass")
        elif self.parts is None:
            self.parts = [fragment]
        else:
            self.parts.append(fragment)

    def join_tail(self) -> None:
        """Join the fragments after the last joined block into one block (before the start)."""
        parts = self.parts
        if parts:
            parts[self.joined :] = ["".join(parts[self.joined :])]
            self.joined += 1
