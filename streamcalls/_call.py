"""One tool call while it is assembled: its state, and the owner that ends a call found in text.

The :class:`~streamcalls._calls.CallAssembler` creates and drives each
:class:`Call` -- it is where the call protocol is kept; a :class:`Call` only
holds the state: its id, name and stream index, the argument fragments
(joined every ``JOIN_EVERY``), the JSON scanner that says when they close,
and its status.  Adapters and detectors hold calls and read their status.
"""

from __future__ import annotations

from typing import Any, Protocol

from ._jsonscan import COMPLETE, JsonScanner
from ._patchwriter import PatchWriter

__all__ = ("COMPLETED", "FAILED", "JOIN_EVERY", "OPEN", "Call", "CallOwner")

# Fragments are a few characters each and a str object costs ~50 bytes, so
# a call's emitted fragments are joined into one string every this many:
# memory stays ~1 byte per character, and each character is copied once more.
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
        "size",
        "source",
        "started",
        "status",
        "tentative",
    )

    def __init__(self, call_id: str, name: str, source: str, max_depth: int, deferred: bool) -> None:
        self.index = -1  # given when the call starts, so stream indices follow start order
        self.id = call_id
        self.name = name
        self.source = source
        self.parts: list[str] = []
        self.joined = 0  # parts[:joined] are blocks of JOIN_EVERY fragments joined
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
        self.owner: CallOwner | None = None  # the markup a call found in text was written in
        # A candidate not yet known to be a call (a bare JSON object whose name has
        # not come): a limit gives it up, silently, instead of failing it.
        self.tentative = False
        self.draining = False  # failed at a limit; its value is being counted to its end

    @property
    def closed_json(self) -> bool:
        """True once the arguments' JSON value has closed."""
        return self.scanner.state == COMPLETE

    def raw(self) -> str:
        parts = self.parts
        return parts[0] if len(parts) == 1 else "".join(parts)

    def join_tail(self) -> None:
        """Join the fragments after the last joined block into one block."""
        parts = self.parts
        parts[self.joined :] = ["".join(parts[self.joined :])]
        self.joined += 1
