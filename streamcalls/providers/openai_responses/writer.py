"""The ``"openai-responses"`` target: events written as an OpenAI Responses stream.

Server-sent events with ``event:`` names, each payload's ``type`` the same
name and a ``sequence_number`` (0, 1, 2, ... over the stream), as the openai
SDK's ``ResponseStreamEvent`` types have them; no ``[DONE]``:

- the start: ``response.created`` and ``response.in_progress``, with the
  ``response`` (its ``id``, ``model``, ``status: "in_progress"``);
- each output item gets the next ``output_index``, and opens with
  ``response.output_item.added`` and closes with ``response.output_item.done``
  (the whole item): a text block is a ``message`` item (``msg_…``) with one
  ``output_text`` part (``response.content_part.added``, an
  ``response.output_text.delta`` per delta, ``.done``,
  ``response.content_part.done``); a call is a ``function_call`` item
  (``fc_…``, its ``call_id`` the call's id, ``call_…`` generated where the
  events had none) with a ``response.function_call_arguments.delta`` per
  fragment and ``.done``; a failed call's item closes ``status:
  "incomplete"``, its arguments as far as they came;
- reasoning is a ``reasoning`` item (``rs_…``): each block a summary part
  (``response.reasoning_summary_part.added``,
  ``response.reasoning_summary_text.delta`` per delta, ``.done``,
  ``response.reasoning_summary_part.done``).  A Responses stream's own blocks
  (``StreamStarted.provider``) go back as they came: the blocks of one item
  (the same ``id``) in one item, ``reasoning_text`` parts as reasoning text
  (``response.content_part.added``, ``response.reasoning_text.delta``, ...),
  the item's ``encrypted_content`` on its ``output_item.done``.  Another
  provider's reasoning goes as its text, an item per block: its signatures,
  redacted and encrypted content stay with it (the exact-turns rule).  An
  item stays open after its block ends, for the next block of the same item;
  anything else closes it;
- a provider error: an ``error`` event (``code``, ``message``), where it
  comes; the stream goes on;
- the finish: ``response.completed`` (``"stop"``, ``"tool_calls"``),
  ``response.incomplete`` (``"length"``: ``incomplete_details.reason``
  ``"max_output_tokens"``; ``"content_filter"``) or ``response.failed``
  (``"error"``: the last provider error, or else the last parse error's
  message, as its ``error``), holding the whole ``response``: every item in
  ``output``, the ``usage`` (``input_tokens_details.cached_tokens`` and
  ``cache_write_tokens``, ``output_tokens_details.reasoning_tokens``).

The items are kept until the finish, which repeats them whole, as the API
does: the target holds the text and arguments it wrote, once, as the JSON
its deltas wrote them in (escaped once, each ``.done`` event and the finish
insert it as it is: ``msgspec.Raw``).
"""

from __future__ import annotations

import time
from typing import Any

from msgspec import Raw

from ..._events import (
    ProviderError,
    ReasoningCompleted,
    ReasoningStarted,
    StreamFinished,
    ToolCall,
    ToolCallFailed,
)
from ...writing import Block, Call, Stream, Target, register
from ...writing._form import Counter, DeltaForm
from ...writing._sse import json
from .items import call_item, finish_response, message_item, reasoning_item, response_object

__all__ = ("OpenAIResponsesTarget",)

# The parts a reasoning item holds.
_PARTS = frozenset({"summary_text", "reasoning_text"})


def _written(text: bytearray) -> Raw:
    """A part's text as its deltas wrote it, for the events that repeat it: a JSON string."""
    return Raw(b'"%s"' % text)


class _Item:
    """An output item being written: its id, its place, and what it holds so far."""

    __slots__ = ("call", "content", "encrypted", "form", "id", "index", "open", "summary", "text")

    def __init__(self, item_id: str, index: int) -> None:
        self.id = item_id
        self.index = index
        # The open part's text (a message's, a call's arguments) as its deltas wrote it: the JSON of
        # each, without its quotes, one after the other (a JSON string's body: escapes are per
        # character, so this is the whole text's JSON).
        self.text = bytearray()
        self.summary: list[str | Raw] = []  # a reasoning item's parts, as they ended
        self.content: list[str | Raw] = []
        self.open = False  # a reasoning item's part is open
        self.encrypted: str | None = None
        self.call: Call | None = None  # a call's item: the call, whose form it keeps while reasoning is open
        self.form: DeltaForm | None = None


@register
class OpenAIResponsesTarget(Target):
    """OpenAI Responses' stream."""

    name = "openai-responses"
    response_id_prefix = "resp_"
    call_id_prefix = "call_"
    cannot_carry = frozenset(
        {
            "finish.tool_calls",
            "reasoning_signatures",
            "redacted_reasoning",
            "text_signatures",
            "call_signatures",
        }
    )

    __slots__ = ("_calls", "_created", "_error", "_message", "_output", "_own", "_reasoning", "_sequence")

    def __init__(self, stream: Stream) -> None:
        super().__init__(stream)
        self._sequence = Counter()  # the events' sequence_number
        self._output: list[dict[str, Any] | None] = []  # the items by output_index, once done
        self._own = False  # the stream is a Responses stream: its reasoning items go back as they came
        self._message: _Item | None = None  # the open text block's message item
        self._reasoning: _Item | None = None  # the reasoning item still open
        self._calls: dict[int, _Item] = {}  # the open calls' items, by the call's index
        self._error: ProviderError | None = None  # the last provider error
        self._created = 0  # the response's created_at

    def _event(self, record: dict[str, Any]) -> bytes:
        record["sequence_number"] = self._sequence.take()
        kind: str = record["type"]
        return b"event: " + kind.encode() + b"\ndata: " + json(record) + b"\n\n"

    def _delta(self, memo: bytes, item: _Item, text: str) -> bytes:
        """A delta event: the head its item's part formatted once, the text, the sequence number;
        the text's JSON kept in the item."""
        quoted = json(text)
        item.text += memoryview(quoted)[1:-1]
        seq = self._sequence.take()
        return memo + quoted + b',"sequence_number":' + str(seq).encode() + b"}\n\n"

    def _added(self, prefix: str, item_id: str | None, item: dict[str, Any]) -> tuple[_Item, bytes]:
        """A new output item, at the next output_index: its ``output_item.added``."""
        index = len(self._output)
        self._output.append(None)
        opened = _Item(item_id or self.stream.new_id(prefix), index)
        item["id"] = opened.id
        return opened, self._event(
            {"type": "response.output_item.added", "output_index": index, "item": item}
        )

    def _done(self, item: _Item, body: dict[str, Any]) -> bytes:
        self._output[item.index] = body
        return self._event({"type": "response.output_item.done", "output_index": item.index, "item": body})

    def _form(self, memo: bytes, item: _Item) -> DeltaForm:
        """How each delta of an item's open part writes: ``_delta``'s record, its text kept."""
        return DeltaForm(
            memo, b"}\n\n", counter=self._sequence, number_head=b',"sequence_number":', escaped=item.text
        )

    def _open_reasoning(self, item: _Item) -> None:
        """A reasoning item opens: an open call's next delta closes it first (no form till then)."""
        self._reasoning = item
        for call_item_ in self._calls.values():
            call_item_.call.form = None  # type: ignore[union-attr]  # (a call's item)

    @staticmethod
    def _memo(kind: str, item: _Item, **where: int) -> bytes:
        head = {"type": kind, "item_id": item.id, "output_index": item.index, **where}
        if kind == "response.output_text.delta":
            head["logprobs"] = []
        return b"event: " + kind.encode() + b"\ndata: " + json(head)[:-1] + b',"delta":'

    def start(self) -> bytes:
        stream = self.stream
        self._own = stream.provider == self.name
        self._created = int(time.time())
        response = response_object(stream.response_id, stream.model, [], self._created)
        return self._event({"type": "response.created", "response": response}) + self._event(
            {"type": "response.in_progress", "response": response}
        )

    # -- text --------------------------------------------------------------------------------

    def text_start(self, block: Block) -> bytes:
        out = self._close_reasoning() if self._reasoning is not None else b""
        item, added = self._added("msg_", None, message_item("", None))
        self._message = item
        block.memo = self._memo("response.output_text.delta", item, content_index=0)
        block.form = self._form(block.memo, item)
        part = {"type": "output_text", "text": "", "annotations": []}
        where = {"item_id": item.id, "output_index": item.index, "content_index": 0}
        return out + added + self._event({"type": "response.content_part.added", **where, "part": part})

    def text(self, block: Block, text: str) -> bytes:
        return self._delta(block.memo, self._message, text)  # type: ignore[arg-type]  # (text_start opened it)

    def text_end(self, block: Block, signature: str | None) -> bytes:
        item = self._message
        assert item is not None  # (text_start opened it)
        self._message = None
        text = _written(item.text)
        where = {"item_id": item.id, "output_index": item.index, "content_index": 0}
        part = {"type": "output_text", "text": text, "annotations": []}
        return (
            self._event({"type": "response.output_text.done", **where, "text": text, "logprobs": []})
            + self._event({"type": "response.content_part.done", **where, "part": part})
            + self._done(item, message_item(item.id, text))
        )

    # -- reasoning ---------------------------------------------------------------------------

    def reasoning_start(self, block: Block, started: ReasoningStarted) -> bytes:
        own = self._own
        item = self._reasoning
        out = b""
        if item is not None and not (own and started.id is not None and started.id == item.id):
            out = self._close_reasoning()
            item = None
        if item is None and own:  # its own item, even with no text: it may hold encrypted content
            item, added = self._added("rs_", started.id, {"type": "reasoning", "summary": []})
            self._open_reasoning(item)
            out += added
        if own and started.kind in _PARTS:
            block.id = started.kind
            out += self._open_part(block, item)  # type: ignore[arg-type]  # (made above)
        return out

    def _open_part(self, block: Block, item: _Item) -> bytes:
        """The block's part begins in the reasoning item: a summary part, or reasoning text."""
        item.open = True
        item.text = bytearray()
        where: dict[str, Any] = {"item_id": item.id, "output_index": item.index}
        if block.id == "reasoning_text":
            where["content_index"] = len(item.content)
            block.memo = self._memo("response.reasoning_text.delta", item, content_index=len(item.content))
            block.form = self._form(block.memo, item)
            part = {"type": "reasoning_text", "text": ""}
            return self._event({"type": "response.content_part.added", **where, "part": part})
        block.id = "summary_text"
        where["summary_index"] = len(item.summary)
        block.memo = self._memo(
            "response.reasoning_summary_text.delta", item, summary_index=len(item.summary)
        )
        block.form = self._form(block.memo, item)
        part = {"type": "summary_text", "text": ""}
        return self._event({"type": "response.reasoning_summary_part.added", **where, "part": part})

    def reasoning(self, block: Block, text: str) -> bytes:
        out = b""
        item = self._reasoning
        if not block.id:  # the block's first text: another provider's reasoning is a summary
            if item is None:
                item, out = self._added("rs_", None, {"type": "reasoning", "summary": []})
                self._open_reasoning(item)
            out += self._open_part(block, item)
        return out + self._delta(block.memo, item, text)  # type: ignore[arg-type]  # (opened above or at the start)

    def reasoning_end(self, block: Block, completed: ReasoningCompleted) -> bytes:
        item = self._reasoning
        if item is None:
            return b""  # another provider's block with no text: nothing of it is written
        if self._own and completed.encrypted is not None:
            item.encrypted = completed.encrypted
        if not item.open:
            return b""
        item.open = False
        text = _written(item.text)
        where: dict[str, Any] = {"item_id": item.id, "output_index": item.index}
        if block.id == "reasoning_text":
            where["content_index"] = len(item.content)
            item.content.append(text)
            part = {"type": "reasoning_text", "text": text}
            return self._event({"type": "response.reasoning_text.done", **where, "text": text}) + self._event(
                {"type": "response.content_part.done", **where, "part": part}
            )
        where["summary_index"] = len(item.summary)
        item.summary.append(text)
        part = {"type": "summary_text", "text": text}
        return self._event(
            {"type": "response.reasoning_summary_text.done", **where, "text": text}
        ) + self._event({"type": "response.reasoning_summary_part.done", **where, "part": part})

    def _close_reasoning(self) -> bytes:
        item = self._reasoning
        if item is None:
            return b""
        self._reasoning = None
        for call_item_ in self._calls.values():  # their deltas write at once again
            call_item_.call.form = call_item_.form  # type: ignore[union-attr]  # (a call's item)
        return self._done(item, reasoning_item(item.id, item.summary, item.content, item.encrypted))

    # -- calls -------------------------------------------------------------------------------

    def call_start(self, call: Call) -> bytes:
        out = self._close_reasoning() if self._reasoning is not None else b""
        item, added = self._added("fc_", None, call_item("", call.id, call.name, "", "in_progress"))
        self._calls[call.index] = item
        call.memo = self._memo("response.function_call_arguments.delta", item)
        item.call = call
        call.form = item.form = self._form(call.memo, item)
        return out + added

    def call_delta(self, call: Call, fragment: str) -> bytes:
        out = self._close_reasoning() if self._reasoning is not None else b""
        return out + self._delta(call.memo, self._calls[call.index], fragment)

    def call_end(self, call: Call, completed: ToolCall) -> bytes:
        out = self._close_reasoning() if self._reasoning is not None else b""
        if not call.streamed and completed.arguments:  # a call that came whole: its arguments at once
            out += self.call_delta(call, completed.arguments_json)
        item = self._calls.pop(call.index)
        arguments = _written(item.text)
        where = {"item_id": item.id, "output_index": item.index}
        done = {"type": "response.function_call_arguments.done", **where, "name": call.name}
        out += self._event({**done, "arguments": arguments})
        return out + self._done(item, call_item(item.id, call.id, call.name, arguments, "completed"))

    def call_failed(self, call: Call, failed: ToolCallFailed) -> bytes:
        out = self._close_reasoning() if self._reasoning is not None else b""
        item = self._calls.pop(call.index)
        return out + self._done(
            item, call_item(item.id, call.id, call.name, _written(item.text), "incomplete")
        )

    # -- errors and the end --------------------------------------------------------------------

    def error(self, error: ProviderError) -> bytes:
        out = self._close_reasoning() if self._reasoning is not None else b""
        self._error = error
        return out + self._event(
            {"type": "error", "code": error.code, "message": error.message, "param": None}
        )

    def finish(self, finished: StreamFinished) -> bytes:
        out = self._close_reasoning() if self._reasoning is not None else b""
        stream = self.stream
        output = [item for item in self._output if item is not None]
        response = response_object(stream.response_id, stream.model, output, self._created)
        error = self._error
        if error is None and finished.reason == "error" and stream.parse_error is not None:
            error = ProviderError(stream.parse_error.message)
        kind = finish_response(response, finished, error)
        return out + self._event({"type": kind, "response": response})
