"""Call ids stay unique within a stream: a repeated id gets a ``#2`` (``#3``, ...) suffix.

A provider may give a second call the id of an earlier one (or a model may
write the same id twice in its text); the events name a call by its id, so
the :class:`~streamcalls._calls.CallAssembler` makes each one unique when the
call starts.  It keeps the first id alone (most streams have one call), and
the ids in use here from the second call on, so that an idle parser, or one
with a single call, holds no set.
"""

from __future__ import annotations

__all__ = ("IdsInUse",)


class IdsInUse:
    """The ids of the calls started so far, from the second call on."""

    __slots__ = ("_ids", "_next_suffix")

    def __init__(self, first: str) -> None:
        self._ids = {first}
        self._next_suffix: dict[str, int] | None = None  # per repeated id, the "#n" to try next

    def unique(self, call_id: str) -> str:
        """``call_id``, or with the first suffix not in use if it is; now in use."""
        ids = self._ids
        if call_id in ids:
            # Numbers below the one remembered are taken: an id repeated n times costs O(n), not O(n²).
            suffixes = self._next_suffix
            if suffixes is None:
                suffixes = self._next_suffix = {}
            number = suffixes.get(call_id, 2)
            while f"{call_id}#{number}" in ids:
                number += 1
            suffixes[call_id] = number + 1
            call_id = f"{call_id}#{number}"
        ids.add(call_id)
        return call_id
