"""A delta's form: how a target writes each delta of an open block or call, declared for the native path.

A target that sets ``block.form`` (or ``call.form``) to a :class:`DeltaForm`
says that its ``text``/``reasoning`` step (or ``call_delta``) for that block
(or call), from then on and for any non-empty text, writes exactly
``head + json(text) + tail`` and changes nothing else but what the form names:
a sequence number taken from a :class:`Counter` (written after the text,
behind ``number_head``), the text's JSON (without its quotes) added to a
bytearray (``escaped``), the bytes
framed as one AWS event-stream message with the headers ``frame``.  A form
with ``writes=False`` writes nothing.  The native ``send``
(``streamcalls/_native/writer.c``) then writes such a delta itself, without
entering the target; every other delta, and every delta of a writer on the
pure path, goes through the target's step, which stays the reference (the
differential tests, ``tests/unit/test_native_writer.py``, hold the two to
the same bytes).  A target declares a form only where it holds -- where its
step would check or change anything else, it leaves it None, or sets it only
after the first delta has gone through the step.
"""

from __future__ import annotations

__all__ = ("NOTHING", "Counter", "DeltaForm")


class Counter:
    """A number a target's records carry, one more each (Responses' ``sequence_number``)."""

    __slots__ = ("next",)

    def __init__(self) -> None:
        self.next = 0
        """The next record's number."""

    def take(self) -> int:
        """The next number, counted."""
        number = self.next
        self.next = number + 1
        return number


class DeltaForm:
    """``head + json(text) + tail``: what each delta of a block or call writes (see the module doc)."""

    __slots__ = ("counter", "escaped", "frame", "head", "number_head", "tail", "writes")

    def __init__(
        self,
        head: bytes = b"",
        tail: bytes = b"",
        *,
        frame: bytes | None = None,
        counter: Counter | None = None,
        number_head: bytes = b"",
        escaped: bytearray | None = None,
        writes: bool = True,
    ) -> None:
        self.head = head
        """The record's bytes before the text's JSON."""
        self.tail = tail
        """Its bytes after it (after the sequence number, if it has one)."""
        self.frame = frame
        """An AWS event-stream message's headers: the record is that message's payload."""
        self.counter = counter
        """Where the record's sequence number comes from (written after ``number_head``)."""
        self.number_head = number_head
        """The bytes between the text's JSON and the sequence number."""
        self.escaped = escaped
        """A bytearray each text's JSON is added to, without its quotes."""
        self.writes = writes
        """False: the delta writes nothing (a target that sends a call whole)."""


NOTHING = DeltaForm(writes=False)
"""The form of a call whose fragments write nothing (the call is written whole at its end)."""
