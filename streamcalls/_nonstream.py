"""A body that is one JSON document, read as the events its stream would give.

What :class:`~.framing._document.DocumentFramer` hands on is one of:

- an error object in any provider's shape (:func:`.framing._error_bodies.error_in`):
  :class:`~streamcalls.ProviderError` ``(message, code)``, then
  ``StreamFinished("error")``;
- a complete response -- the caller forgot ``stream: true`` -- of any
  provider.  The readers :func:`~streamcalls.extract` uses
  (:mod:`._readers`) take it apart; its text goes through the text channel
  (so the text detectors see it), each block of its reasoning as a
  reasoning block (with its signature, redacted or encrypted content, id),
  each call as ``ToolCallStarted``, one ``ToolCallDelta`` and
  ``ToolCallCompleted``, all after the ``StreamStarted`` naming its model and id.
  Its finish reason and usage then go to the provider's own adapter as the
  last event of its stream would bring them (an Anthropic ``message_delta``
  and ``message_stop``, a Responses ``response.completed``, ...), so the
  adapter maps them with the very tables and rules it applies to a stream;
- anything else: a :class:`~streamcalls.ParseError` showing the start of the
  body, then ``StreamFinished("error")``.

The provider is told from the document's shape, also when one was named: a
body says what it is.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ._adapter import Adapter
from ._emitter import Emitter
from ._errors import UsageError
from ._found import BREAK, CALL, REASONING, SIGNATURE, TEXT, Found, Native
from ._readers import READERS, detect_provider
from .framing._error_bodies import error_in
from .providers import PROVIDERS

__all__ = ("DocumentReader", "Unreadable", "describe", "document_provider", "load", "read_document")


class Unreadable(Exception):
    """The body's JSON document cannot be decoded; the message says why."""


def load(data: bytes, complete: bool) -> tuple[Any, bool]:
    """The decoded document, and whether invalid UTF-8 in it was replaced by U+FFFD.

    :raises Unreadable: for a document cut off, not JSON, or nested too deeply.
    """
    if not complete:
        raise Unreadable("the body ended inside its JSON document (truncated)")
    try:
        try:
            return msgspec.json.decode(data), False
        except UnicodeDecodeError:
            return msgspec.json.decode(data.decode("utf-8", "replace")), True
    except msgspec.DecodeError as exc:
        raise Unreadable(f"the body is not valid JSON: {exc}") from None
    except RecursionError:
        raise Unreadable("the body's JSON document nests too deeply to decode") from None


class DocumentReader:
    """The :class:`~.framing._document.DocumentSink` of an explicitly named provider."""

    __slots__ = ("_adapter", "_emit")

    def __init__(self, emit: Emitter, adapter: Adapter | None) -> None:
        self._emit = emit
        self._adapter = adapter

    def on_document(self, data: bytes, complete: bool) -> None:
        emit = self._emit
        try:
            obj, replaced = load(data, complete)
        except Unreadable as exc:
            emit.parse_error(str(exc), data)
            emit.finish("error")
            return
        read_document(emit, self._adapter, obj, data, replaced)

    def is_whole_body(self, data: bytes) -> bool:
        """A one-line first value is the whole body if it is an error object,
        or another provider's complete response; else the stream's first record."""
        try:
            obj, _ = load(data, True)
        except Unreadable:
            return False
        if error_in(obj) is not None:
            return True
        adapter = self._adapter
        return adapter is not None and document_provider(obj) not in (None, adapter.name)


def describe(obj: Any) -> str:
    """A decoded JSON value in a few words, for an error message."""
    if isinstance(obj, dict):
        return "an object with keys " + ", ".join(sorted(map(str, obj))[:8])
    return f"a JSON {type(obj).__name__}"


def document_provider(obj: Any) -> str | None:
    """Whose complete response this decoded document is (None: no provider's)."""
    try:
        provider = detect_provider(obj)
    except UsageError:
        return None
    return None if provider == "text" else provider  # a bare call object is no response


def read_document(
    emit: Emitter, adapter: Adapter | None, obj: Any, data: bytes, replaced: bool = False
) -> Adapter | None:
    """Report one decoded body; returns the adapter that ended it, if one did.

    ``adapter`` is the named provider's (None under ``provider="auto"``); a
    body of another provider's shape is ended by an adapter of that one.
    """
    if replaced and emit.report_invalid_utf8:
        emit.parse_error("the body's JSON document is not valid UTF-8; invalid bytes read as U+FFFD")
    if isinstance(obj, list) and len(obj) == 1:
        obj = obj[0]  # Gemini's answer without ?alt=sse: an array of one response (or error)
    error = error_in(obj)
    if error is not None:
        emit.provider_error(*error)
        emit.finish("error")
        return None
    provider = document_provider(obj)
    try:
        found = READERS[provider](obj) if provider is not None else None
    except UsageError:  # a shape its reader rejects: a streamed chunk sent alone, say
        found = None
    if provider is None or found is None:
        what = describe(obj)
        emit.parse_error(
            f"the body is one JSON document, neither a response nor an error object: {what}", data
        )
        emit.finish("error")
        return None
    entry = PROVIDERS[provider]
    if adapter is None or adapter.name != provider:
        adapter = entry.adapter(emit)
    emit.start(provider, found.model, found.response_id)
    emit.opened()  # a response that failed is still a response
    _report(emit, found)
    for event in entry.stream_end(found, obj) if entry.stream_end is not None else ():
        adapter.on_object(event)
    if not emit.finished:
        adapter.on_done()  # the body is whole: its end is the stream's end
    return adapter


def _report(emit: Emitter, found: Found) -> None:
    for message, raw in found.problems:
        emit.parse_error(message, raw)
    for kind, value in found.steps:
        if kind == TEXT:
            emit.text(value)
        elif kind == REASONING:
            emit.reasoning_start(value.id, value.kind, value.format)
            if value.text:
                emit.reasoning(value.text, value.kind)
            emit.reasoning_note(value.signature, value.redacted, value.encrypted)
            emit.reasoning_end()
        elif kind == SIGNATURE:
            emit.text_signature(value)
        elif kind == BREAK:
            emit.text_end()
        elif kind == CALL:
            _call(emit, value)


def _call(emit: Emitter, native: Native) -> None:
    call_id = native.id if isinstance(native.id, str) and native.id else None
    name = native.name if isinstance(native.name, str) else None
    call = emit.open(call_id, name, "native")
    if call is None:
        return
    emit.sign(call, native.signature)
    arguments = native.arguments if native.has_arguments else None
    if arguments is None:
        emit.whole(call, {}, "")  # no arguments at all, as a stream without any reads
    else:
        emit.whole(call, arguments)
