"""OpenAI Responses API streams (``POST /v1/responses`` with ``stream: true``).

Wire format: SSE with ``event:`` names, and the same name as ``type`` in
each payload, which also carries a ``sequence_number``:
``response.created`` / ``response.in_progress``, then per output item
``response.output_item.added{output_index, item}``, the item's deltas, and
``response.output_item.done{output_index, item}``; the stream ends with
``response.completed``, ``response.incomplete`` or ``response.failed``
(each holding the whole ``response`` with ``status``, ``usage``,
``incomplete_details``, ``error``).  There is no ``[DONE]``.  The
``response`` names its ``model``: the first one adds its family's text
detectors (unless ``detect=`` or ``model=`` was given).

- A function call is an item ``{type: "function_call", id: "fc_...",
  call_id: "call_...", name, arguments: ""}``; its arguments stream as
  ``response.function_call_arguments.delta{item_id, output_index, delta}``
  and end with ``.done{item_id, arguments}``.  ``call_id`` is the id a
  result is sent back with, so it is the call's id here.
- ``response.output_text.delta`` (and ``refusal.delta``) is text.
- A reasoning item streams its summary parts and reasoning text: each part
  is a reasoning block, see :mod:`.reasoning_items`.
- ``error{code, message, param}`` (some servers nest these in an
  ``error`` object) is an in-stream error.

Calls are told apart by ``item_id`` (else ``output_index``), never by a
"current item", so parallel calls with interleaved deltas stay apart; the
name is taken from ``output_item.added`` (deltas carry none).  A call
completes the moment its arguments' JSON closes, and at the latest at
``.done`` / ``output_item.done``: arguments there that no delta brought
(all of them, or a missing tail) are fed then.  One item is one call: text
after its closed arguments is reported on it (a ParseError), never a call.  Deltas for an item never
announced wait until ``.done`` or ``output_item.done`` names it.  If no
function call was streamed at all, ``function_call`` items in
``response.completed``'s ``output`` are reported as whole calls.

Only ``function_call`` items are calls.  Every other item type in the
SDK's ``ResponseOutputItem`` union is a built-in tool and never completes as
a :class:`~streamcalls.ToolCall`, whatever its events carry (``mcp_call``
and ``mcp_approval_request`` have a name and JSON arguments too): OpenAI runs
``web_search_call``, ``file_search_call``, ``code_interpreter_call``,
``image_generation_call``, ``mcp_call``, ``tool_search_call`` and
``program`` itself; ``computer_call``, ``local_shell_call``, ``shell_call``
and ``apply_patch_call`` are actions in the built-in tools' own protocols
(answered with their ``*_output`` items, not a function result); and a
``custom_tool_call`` takes free-form text, not a JSON object.  The text
around them is read as usual.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..._adapter import Adapter
from ..._call import OPEN, Call
from ..._emitter import Emitter
from ..._events import Usage
from .reasoning_items import ReasoningItems, Summary

__all__ = ("OpenAIResponsesAdapter",)


class _Item(msgspec.Struct):
    type: str = ""
    id: str | None = None
    call_id: str | None = None
    name: str | None = None
    arguments: Any = None  # a JSON string for function calls
    status: str | None = None
    summary: list[Summary] | None = None  # reasoning items
    content: Any = None  # a reasoning item's reasoning_text parts (a message's parts are not read)
    encrypted_content: str | None = None


class _InputDetails(msgspec.Struct):
    cached_tokens: int | None = None
    cache_write_tokens: int | None = None


class _OutputDetails(msgspec.Struct):
    reasoning_tokens: int | None = None


class _Usage(msgspec.Struct):
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    input_tokens_details: _InputDetails | None = None
    output_tokens_details: _OutputDetails | None = None


class _Incomplete(msgspec.Struct):
    reason: str | None = None


class _Response(msgspec.Struct):
    id: Any = None
    model: Any = None
    status: str | None = None
    error: Any = None
    incomplete_details: _Incomplete | None = None
    usage: _Usage | None = None
    output: list[_Item] | None = None


class _Event(msgspec.Struct):
    type: str = ""
    item_id: str | None = None
    output_index: int | None = None
    summary_index: int | None = None
    content_index: int | None = None
    # ``Any``: events this adapter ignores may give these fields other types.
    delta: Any = None
    arguments: Any = None
    name: Any = None
    item: _Item | None = None
    response: _Response | None = None
    code: Any = None
    message: Any = None
    error: Any = None


INCOMPLETE_REASONS = {
    "max_output_tokens": "length",
    "content_filter": "content_filter",
}

_TEXT_EVENTS = frozenset({"response.output_text.delta", "response.refusal.delta"})
# A reasoning part's events: the part's kind, and the event field holding its index.
_REASONING_EVENTS = {
    "response.reasoning_summary_part.added": "summary_text",
    "response.reasoning_summary_text.delta": "summary_text",
    "response.reasoning_text.delta": "reasoning_text",
}


def _usage(raw: _Usage | None) -> Usage | None:
    if raw is None:
        return None
    cached = raw.input_tokens_details
    reasoning = raw.output_tokens_details
    return Usage(
        input_tokens=raw.input_tokens,
        output_tokens=raw.output_tokens,
        total_tokens=raw.total_tokens,
        reasoning_tokens=reasoning.reasoning_tokens if reasoning else None,
        cache_read_tokens=cached.cached_tokens if cached else None,
        cache_write_tokens=cached.cache_write_tokens if cached else None,
    )


def _error_fields(error: Any) -> tuple[str | None, str | None]:
    """The message and code of an error object, if it is one."""
    if not isinstance(error, dict):
        return None, None
    message = error.get("message")
    code = error.get("code") or error.get("type")
    return (None if message is None else str(message)), (None if code is None else str(code))


class OpenAIResponsesAdapter(Adapter):
    name = "openai-responses"
    title = "OpenAI Responses"
    framing = "sse"
    view = _Event
    what = "OpenAI Responses event"

    __slots__ = ("_by_index", "_by_item", "_pending", "_reasoning", "_saw_call")

    def __init__(self, emit: Emitter) -> None:
        super().__init__(emit)
        self._by_item: dict[str, Call] = {}  # item id ("fc_...") -> call
        self._by_index: dict[int, Call] = {}  # output_index -> call
        # Argument deltas of items not announced yet, by item id (or "#index").
        self._pending: dict[str, list[str]] = {}
        self._saw_call = False
        self._reasoning = ReasoningItems(emit)

    def claims(self, view: _Event, name: str | None) -> bool:
        kind = view.type or name or ""
        return kind.startswith("response.") or kind == "error"

    def head(self, view: _Event, raw: Any) -> tuple[object, object]:
        response = view.response
        return (response.model, response.id) if response is not None else (None, None)

    @classmethod
    def recognizes(cls, name: str | None, obj: Any) -> bool:
        if not isinstance(obj, dict):
            return False
        kind = obj.get("type")
        if isinstance(kind, str) and kind.startswith("response."):
            return True
        # A Responses error event carries a sequence_number; other providers' don't.
        return kind == "error" and "sequence_number" in obj

    # -- input -----------------------------------------------------------------

    def handle(self, event: _Event, name: str | None) -> None:
        kind = event.type or name or ""
        emit = self.emit
        if emit.on_model is not None and event.response is not None and isinstance(event.response.model, str):
            emit.model(event.response.model)  # response.created names it, before any text
        if kind == "response.function_call_arguments.delta":
            if isinstance(event.delta, str) and event.delta:
                if emit.reasoning_open:  # a call's events never come inside a reasoning block
                    self._reasoning.end()
                self._arguments_delta(event, event.delta)
        elif kind in _TEXT_EVENTS:
            if isinstance(event.delta, str) and event.delta:
                emit.text(event.delta)  # (an open reasoning block ends: see Emitter.text)
        elif kind in _REASONING_EVENTS:
            kind = _REASONING_EVENTS[kind]
            index = event.summary_index if kind == "summary_text" else event.content_index
            self._reasoning.part(event.item_id, kind, index, event.delta)
        elif kind == "response.output_item.added":
            self._item_added(event)
        elif kind == "response.function_call_arguments.done":
            self._arguments_done(event)
        elif kind == "response.output_item.done":
            self._item_done(event)
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            self._finish(kind, event.response or _Response())
        elif kind == "error":
            nested_message, nested_code = _error_fields(event.error)
            message = event.message if isinstance(event.message, str) else nested_message
            code = event.code if event.code is not None else nested_code
            emit.provider_error(message or "unknown error", None if code is None else str(code))
        # response.created / in_progress / queued, content parts, text .done
        # events, other tools' events and unknown types are ignored.

    # -- calls -------------------------------------------------------------------

    def _item_added(self, event: _Event) -> None:
        item = event.item
        if item is not None and item.type != "reasoning":
            self._reasoning.end()  # the reasoning item before never said it was done
        if item is not None and item.type == "function_call":
            self._open(item, event.output_index)

    def _open(self, item: _Item, output_index: int | None) -> Call | None:
        self._saw_call = True
        call = self.emit.open(item.call_id or item.id, item.name, "native")
        if call is None:
            return None
        if item.id:
            self._by_item[item.id] = call
        if output_index is not None:
            self._by_index[output_index] = call
        # Arguments sent with the item itself (servers that send a call
        # whole), or deltas that came before the item was announced.
        parts = self._take_pending(item.id, output_index)
        if isinstance(item.arguments, str) and item.arguments:
            self.feed_arguments(call, item.arguments)
        elif parts:
            self.feed_arguments(call, "".join(parts))
        return call

    def _find(self, item_id: str | None, output_index: int | None) -> Call | None:
        if item_id:
            call = self._by_item.get(item_id)
            if call is not None:
                return call
        if output_index is not None:
            return self._by_index.get(output_index)
        return None

    def _take_pending(self, item_id: str | None, output_index: int | None) -> list[str] | None:
        parts = self._pending.pop(item_id, None) if item_id else None
        if parts is None and output_index is not None:
            parts = self._pending.pop(f"#{output_index}", None)
        return parts

    def _arguments_delta(self, event: _Event, delta: str) -> None:
        call = self._find(event.item_id, event.output_index)
        if call is not None:
            self.feed_arguments(call, delta)
            return
        # An item never announced (a proxy dropped output_item.added): its
        # name comes later, with .done or output_item.done.
        self._saw_call = True
        key = event.item_id or f"#{event.output_index}"
        self._pending.setdefault(key, []).append(delta)

    def _arguments_done(self, event: _Event) -> None:
        self._reasoning.end()
        arguments = event.arguments if isinstance(event.arguments, str) else None
        call = self._find(event.item_id, event.output_index)
        if call is None:
            name = event.name if isinstance(event.name, str) else None
            if not name:
                # Still unnamed: keep the arguments for output_item.done.
                if arguments is not None:
                    key = event.item_id or f"#{event.output_index}"
                    self._pending[key] = [arguments]
                return
            call = self._open(_Item("function_call", event.item_id, None, name), event.output_index)
            if call is None:
                return
        self._settle(call, arguments)

    def _item_done(self, event: _Event) -> None:
        item = event.item
        if item is None:
            return
        if item.type != "reasoning":
            self._reasoning.end()
        if item.type != "function_call":
            if item.type == "message":
                self.emit.text_end()
            elif item.type == "reasoning":
                self._reasoning.done(item.id, item.summary, item.content, item.encrypted_content)
            return
        arguments = item.arguments if isinstance(item.arguments, str) else None
        call = self._find(item.id, event.output_index)
        if call is None:
            pending = self._take_pending(item.id, event.output_index)
            call = self._open(item, event.output_index)
            if call is None:
                return
            if pending and arguments is None:
                arguments = "".join(pending)
        else:
            if item.call_id:
                self.emit.set_id(call, item.call_id)  # only while nothing was emitted
            if item.name:
                self.emit.set_name(call, item.name)
        self._settle(call, arguments)

    def _settle(self, call: Call, final: str | None) -> None:
        """The provider says the call's arguments are all there: end it.

        ``final`` is the whole arguments text as the provider sums it up.
        What the deltas brought must be its prefix; the rest (everything,
        when no delta came) is fed now.
        """
        if call.status != OPEN:
            return
        if final:
            raw = call.raw()
            if final.startswith(raw):
                if len(final) > len(raw):
                    self.feed_arguments(call, final[len(raw) :])
            else:
                self.emit.fail(call, "streamed arguments differ from the arguments in the done event")
                return
        self.emit.end(call)

    # -- end ---------------------------------------------------------------------

    def _flush_pending(self) -> None:
        """At the end: arguments of items that were never named fail as calls."""
        self._reasoning.end()
        emit = self.emit
        for key, parts in self._pending.items():
            call = emit.open(None if key.startswith("#") else key, None, "native")
            if call is not None:
                self.feed_arguments(call, "".join(parts))
                emit.fail(call, "arguments for an output item that was never announced (no name)")
        self._pending.clear()

    def _finish(self, kind: str, response: _Response) -> None:
        emit = self.emit
        self._flush_pending()
        if not self._saw_call and response.output:
            # Nothing was streamed per item: take the calls from the summary.
            for item in response.output:
                if item.type == "function_call":
                    call = emit.open(item.call_id or item.id, item.name, "native")
                    if call is not None:
                        emit.whole(call, item.arguments if item.arguments is not None else "")
        details = response.incomplete_details
        detail = details.reason if details is not None else None
        provider_reason = detail or response.status
        if kind == "response.failed":
            message, code = _error_fields(response.error)
            if not emit.errored:  # an ``error`` event may have said it already
                emit.provider_error(message or "the response failed", code)
            reason = "error"
        elif kind == "response.incomplete":
            reason = INCOMPLETE_REASONS.get(detail or "", "length")
        else:
            reason = "stop"
        emit.finish(reason, provider_reason, _usage(response.usage))

    def on_done(self) -> None:
        # Not part of the Responses API; some compatible servers add it.
        self.close()

    def close(self) -> None:
        if not self.emit.finished:
            self._flush_pending()
            self.emit.end_of_input("response.completed")
