"""OpenAI Responses reasoning items, as reasoning blocks.

A reasoning item ``{type: "reasoning", id: "rs_...", summary: [], content?,
encrypted_content?}`` streams its summary parts
(``response.reasoning_summary_part.added{item_id, summary_index}``, then
``response.reasoning_summary_text.delta{item_id, summary_index, delta}``) and,
from open-weight models, its reasoning text
(``response.reasoning_text.delta{item_id, content_index, delta}``).  Each part
is one reasoning block (``kind`` ``"summary_text"`` or ``"reasoning_text"``)
with the item's id.  The item's ``encrypted_content`` is read from
``response.output_item.done`` -- the SDK's ``ResponseReasoningItem`` says the
one in ``output_item.added`` may be incomplete -- and ends its last block.  An
item without parts is one block without text; parts that only
``output_item.done`` holds (no part was streamed) are read from there.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..._emitter import Emitter

__all__ = ("ReasoningItems", "Summary")


class Summary(msgspec.Struct):
    """A summary (or reasoning text) part of a reasoning item."""

    type: str = ""
    text: str | None = None


def _texts(content: Any) -> list[Summary]:
    """A reasoning item's ``content`` parts (decoded as plain data: a message's differ)."""
    if not isinstance(content, list):
        return []
    return [
        Summary(str(part.get("type", "")), part["text"] if isinstance(part.get("text"), str) else None)
        for part in content
        if isinstance(part, dict)
    ]


class ReasoningItems:
    """The reasoning items of one Responses stream, written as reasoning blocks into the emitter."""

    __slots__ = ("_emit", "_part", "_parted")

    def __init__(self, emit: Emitter) -> None:
        self._emit = emit
        self._part: tuple[str | None, str, int | None] | None = None  # the open block's part
        self._parted: set[str | None] | None = None  # items that streamed a part (made on use)

    def part(self, item_id: str | None, kind: str, index: int | None, delta: Any) -> None:
        """A part of a reasoning item begins, or brings text: each part is a block."""
        emit = self._emit
        part = (item_id, kind, index)
        if part != self._part or not emit.reasoning_open:
            emit.reasoning_start(item_id, kind)
            self._part = part
            if self._parted is None:
                self._parted = set()
            self._parted.add(item_id)
        if isinstance(delta, str) and delta:
            emit.reasoning(delta, kind)

    def done(
        self, item_id: str | None, summary: list[Summary] | None, content: Any, encrypted: str | None
    ) -> None:
        """A reasoning item is done: its encrypted content ends its last block."""
        emit = self._emit
        parted = self._parted
        if parted is None or item_id not in parted or not emit.reasoning_open:
            self.end()
            parts = [("summary_text", part) for part in summary or ()]
            parts += [("reasoning_text", part) for part in _texts(content)]
            parts = [(kind, part) for kind, part in parts if part.type == kind]
            for kind, part in parts[:-1]:
                emit.reasoning_start(item_id, kind)
                if part.text:
                    emit.reasoning(part.text, kind)
                emit.reasoning_end()
            last_kind, last_text = (parts[-1][0], parts[-1][1].text) if parts else (None, None)
            emit.reasoning_start(item_id, last_kind)
            if last_text:
                emit.reasoning(last_text, last_kind)
        emit.reasoning_note(encrypted=encrypted)
        self.end()
        if parted is not None:
            parted.discard(item_id)

    def end(self) -> None:
        """The open block, if any, ends (another item begins, a call's events come, the stream ends)."""
        self._part = None
        self._emit.reasoning_end()
