"""AWS Bedrock ``InvokeModelWithResponseStream``: each model's own events, in event-stream frames.

Wire format (botocore's ``bedrock-runtime`` service model, its ``ResponseStream`` union; the
anthropic SDK's ``AnthropicBedrock`` decodes the same frames): binary
``application/vnd.amazon.eventstream`` messages (see :mod:`streamcalls.framing._eventstream`),
each an event named by its ``:event-type`` header:

- ``chunk``: a ``PayloadPart`` ``{"bytes": "<base64>"}`` -- a blob, so base64 text in the JSON
  payload (boto3 hands over the decoded bytes: ``{"chunk": {"bytes": b"..."}}``) -- holding one
  event of the model's own stream, as JSON;
- exceptions, members of the same union: ``internalServerException``,
  ``modelStreamErrorException`` (``message``, ``originalStatusCode``, ``originalMessage``),
  ``validationException``, ``throttlingException``, ``modelTimeoutException``,
  ``serviceUnavailableException``, each ``{"message"}``; and header-only error messages.  Each
  becomes a :class:`~streamcalls.ProviderError` (its code: the exception's name), which fails the
  calls still open.

What the bytes hold depends on the model.  The first chunk tells which reader takes them all:

- Anthropic Claude: the Messages stream's events (``message_start`` ... ``message_stop``, each
  with its ``type``), read by the Anthropic adapter -- text, thinking, calls, usage, errors;
  ``message_start`` names the model and id;
- Amazon Nova: ConverseStream's events as one-key objects (``{"contentBlockDelta": {...}}``),
  read by the ConverseStream adapter;
- OpenAI-shaped chat chunks (``choices[].delta``: OpenAI's gpt-oss, ...), read by the OpenAI
  Chat adapter (no ``[DONE]``: the chunk with ``finish_reason`` ends the stream);
- Meta Llama, Mistral, Amazon Titan Text, Cohere Command and Claude's legacy Text Completions:
  text and a stop reason (:mod:`.models`).

The stream's start (:class:`~streamcalls.StreamStarted`) names the wire format the model's events
are in, which is the one its next request takes and a :class:`~streamcalls.Turn` is written back
in: ``"anthropic"`` for Claude (signed thinking kept), ``"bedrock"`` for Nova, ``"openai"`` for the
chat chunks, ``"bedrock-invoke"`` for the others.

A first chunk in none of these shapes is one :class:`~streamcalls.ParseError` naming its keys
and the model families read; the stream then finishes as ``"error"``.  Every model's last chunk
may also carry ``amazon-bedrock-invocationMetrics`` (token counts, latencies), read as usage
where the model's own events give none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from ..._adapter import Adapter, as_mapping
from ..._emitter import Emitter
from ...framing._eventstream import ERROR_RECORD
from ..anthropic.reader import AnthropicAdapter
from ..bedrock.reader import EVENTS, BedrockAdapter, is_error
from ..openai_chat.reader import OpenAIChatAdapter
from .models import FAMILIES, model_family

__all__ = ("BedrockInvokeAdapter",)

NAME = "bedrock-invoke"


class _Part(msgspec.Struct):
    data: bytes | None = msgspec.field(default=None, name="bytes")  # base64 in JSON: msgspec decodes it


class _Error(msgspec.Struct):
    message: str | None = None
    code: str | None = None  # only in ":error" records
    original_message: str | None = msgspec.field(default=None, name="originalMessage")


_part = msgspec.json.Decoder(_Part)
_error = msgspec.json.Decoder(_Error)


# The readers of the model families whose events another provider's adapter already reads.  The
# stream's start names that wire format (a Turn of Claude's is written back as Anthropic's
# Messages, which is what InvokeModel takes for Claude, signed thinking included).
class _Claude(AnthropicAdapter):
    what = "Claude event in a Bedrock chunk"
    __slots__ = ()


class _Nova(BedrockAdapter):
    __slots__ = ()


class _Chat(OpenAIChatAdapter):
    what = "chat chunk in a Bedrock chunk"
    __slots__ = ()

    def close(self) -> None:
        if self._finish_reason is not None or self.emit.errored:
            super().close()
        else:
            self.emit.end_of_input("a chunk with a finish_reason")  # there is no [DONE] here


READ = "Claude's Messages events, Nova's Converse events, OpenAI-shaped chat chunks, " + ", ".join(
    family.family for family in FAMILIES
)


class BedrockInvokeAdapter(Adapter):
    name = NAME
    title = "Bedrock InvokeModel"
    framing = "eventstream"
    what = "Bedrock chunk"

    __slots__ = ("_feed", "_model", "_unread")

    def __init__(self, emit: Emitter) -> None:
        super().__init__(emit)
        self._model: Adapter | None = None  # the reader of the model's own events, once told
        self._feed: Callable[[bytes], None] = self._first_chunk
        self._unread = False  # the first chunk was in no shape read: the rest is ignored

    @classmethod
    def recognizes(cls, name: str | None, obj: Any) -> bool:
        if name is not None:  # an event-stream record: its name is the event type
            return name == "chunk" or is_error(name)
        return isinstance(obj, dict) and len(obj) == 1 and ("chunk" in obj or is_error(next(iter(obj))))

    # -- input -------------------------------------------------------------------------------

    def on_record(self, name: str | None, data: bytes) -> None:
        if name != "chunk" and not self.emit.started and name is not None and not is_error(name):
            self.foreign(name, data)  # ConverseStream's events, say: named, once
            return
        if name == "chunk":
            part = self.decode_view(_part, data, self.what)
            if part is not None and part.data is not None:
                self._feed(part.data)
        elif name is not None and is_error(name):
            error = self.decode_view(_error, data if data.strip() else b"{}", f"Bedrock {name} event")
            if error is not None:
                self._error(name, error, data)
        # other event types: none in the service's model; ignored

    def on_object(self, obj: Any) -> None:
        data = as_mapping(obj)
        if not isinstance(data, dict):
            self.emit.parse_error("a Bedrock event is a dict with one key, the event type", repr(obj)[:200])
            return
        if not self.emit.started and not self.recognizes(None, data) and self.foreign(None, data):
            return
        for name, body in data.items():
            if name == "chunk":
                payload = body.get("bytes") if isinstance(body, dict) else None
                if isinstance(payload, str):  # base64, as in the JSON payload
                    self.on_record(name, msgspec.json.encode({"bytes": payload}))
                elif isinstance(payload, (bytes, bytearray)):
                    self._feed(bytes(payload))
                else:
                    self.emit.parse_error("a Bedrock chunk without its bytes; ignored", repr(body)[:200])
            elif is_error(name):
                error = self.convert_view(body if body is not None else {}, _Error, f"Bedrock {name} event")
                if error is not None:
                    self._error(name, error, repr(body)[:200])

    def _error(self, name: str, error: _Error, raw: bytes | str) -> None:
        emit = self.emit
        if emit.finished:
            emit.after_end(raw)
            return
        code = error.code if name == ERROR_RECORD else name
        message = error.message or error.original_message or code or "unknown error"
        emit.provider_error(message, code)

    # -- the model's own events ---------------------------------------------------------------

    def _first_chunk(self, payload: bytes) -> None:
        """The first chunk tells the model family: its reader takes this chunk and every later one."""
        try:
            obj = msgspec.json.decode(payload)
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
            obj = None
        model: Adapter
        feed: Callable[[bytes], None]
        if isinstance(obj, dict) and isinstance(obj.get("type"), str):
            model = _Claude(self.emit)
            feed = self._records(model)
        elif isinstance(obj, dict) and any(key in EVENTS for key in obj):
            model = _Nova(self.emit)
            feed = self._objects(model)
        elif isinstance(obj, dict) and "choices" in obj:
            model = _Chat(self.emit)
            feed = self._records(model)
        else:
            family = model_family(obj)
            if family is None:
                self._unread = True
                self._feed = _ignore
                self.emit.parse_error(
                    f"a Bedrock chunk from a model whose events streamcalls does not read ({_keys(obj)}); "
                    f"it reads {READ}; the rest of the stream is ignored",
                    payload,
                )
                return
            model = family(self.emit)
            feed = self._records(model)
        self._model = model
        self._feed = feed
        feed(payload)

    @staticmethod
    def _records(model: Adapter) -> Callable[[bytes], None]:
        def feed(payload: bytes) -> None:
            model.on_record(None, payload)

        return feed

    def _objects(self, model: Adapter) -> Callable[[bytes], None]:
        """Nova's events are one-key objects, read as boto3's ConverseStream events are."""

        def feed(payload: bytes) -> None:
            try:
                obj = msgspec.json.decode(payload)
            except (msgspec.DecodeError, UnicodeDecodeError, RecursionError) as exc:
                self.emit.parse_error(f"a Bedrock chunk's bytes are not JSON: {exc}", payload)
                return
            if isinstance(obj, dict):
                obj.pop("amazon-bedrock-invocationMetrics", None)  # beside the last event: not one
            model.on_object(obj)

        return feed

    # -- end ------------------------------------------------------------------------------------

    def close(self) -> None:
        if self._model is not None:
            self._model.close()
        elif self._unread:
            self.emit.finish("error")
        else:
            self.emit.end_of_input("a chunk")


def _ignore(payload: bytes) -> None:
    return None


def _keys(obj: Any) -> str:
    if isinstance(obj, dict):
        keys = ", ".join(sorted(str(key) for key in obj)[:8]) or "none"
        return f"an object with keys {keys}"
    if obj is None:
        return "bytes that are not JSON"
    return f"a JSON {type(obj).__name__}"
