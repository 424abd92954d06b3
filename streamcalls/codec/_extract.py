"""Tool calls out of a complete (non-streamed) response, with the fallback cascade.

1. the provider's structured (native) tool calls;
2. if there are none: calls written as explicit markup in the text
   (``~~~tool_call`` fences, and any other markup detector enabled);
3. if there are none either: bare JSON call objects in the text;
4. else ``[]``.

The text is read by the very detectors a :class:`~streamcalls.StreamParser`
runs on a stream (the whole text fed at once), so one grammar serves both;
where the stream reports a :class:`~streamcalls.ToolCallFailed`, ``extract``
raises :class:`~streamcalls.ToolCallError`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec

from .._adapter import as_mapping
from .._arguments import IdFactory, decode_arguments, random_call_id
from .._arguments import json_kind as kind_of
from .._errors import ToolCallError, UsageError
from .._events import ToolCall, ToolCallCompleted, ToolCallFailed
from .._names import ProviderName
from .._options import check_model
from .._parser import StreamParser
from .._readers import READERS, Native, detect_provider
from ..detectors import DETECTORS, default_detect
from ._names import resolve
from ._tool import Tool

__all__ = ("extract",)

_encode = msgspec.json.encode
_replace = msgspec.structs.replace


def extract(
    response: Any,
    native: bool | None = None,
    *,
    provider: ProviderName | None = None,
    detect: Sequence[str] | None = None,
    tools: Iterable[Any] | None = None,
    id_factory: IdFactory | None = None,
    model: str | None = None,
) -> list[ToolCall]:
    """The tool calls in a complete, non-streamed response, as a list (maybe empty).

    ``response`` is the response body -- a dict, JSON ``bytes``/``str``, or an
    SDK response object (``model_dump``) -- of any provider: OpenAI Chat
    (``chat.completion``), OpenAI Responses (``response``, or a list of
    items), Anthropic (``message``), Ollama ``/api/chat`` or
    ``/api/generate``, Gemini (``GenerateContentResponse``), Bedrock
    Converse, Cohere v2 chat; or the assistant message alone, as
    :func:`encode_call` writes it.  The provider is told from the shape
    (``provider=None`` or ``"auto"``), or forced with ``provider=``;
    ``provider="text"`` takes a model's raw text.

    The cascade: native calls first; if there are none, calls in the text
    written as markup (``~~~tool_call`` fences); if none, bare JSON call
    objects.  ``native`` chooses the policy, as for :class:`StreamParser`:

    - ``None`` (default) or ``True``: the cascade.  A complete response is
      seen whole, so "text calls are a fallback" means text calls count only
      when the response has no native call at all.
    - ``False``: the text is the protocol; native calls are skipped.

    ``detect`` names the text detectors (default ``("fence", "json")``, and
    the detectors of the model's family: ``model=``, else the response's own
    ``model`` field; ``()`` never reads the text), ``tools`` the tools as for
    :class:`StreamParser` (the names a bare JSON object must use to count, the
    schemas that type the XML formats' values), and typed functions too.  Calls keep the
    provider's ids; calls without one get ``id_factory()`` (default
    ``call_`` + random hex).  ``index`` numbers the returned calls from 0,
    ``source`` says where each was found (``"native"``, ``"fence"``, ``"json"``).

    :raises ToolCallError: for a call that cannot be decoded -- malformed JSON
        in a block or in a native arguments string, arguments that are not an
        object (a number, a list), a call without a name.  ``raw`` holds the
        offending text.
    :raises UsageError: for input that is not a response, an unknown
        provider or detector name.
    """
    wire = None if provider is None or provider == "auto" else resolve(provider, text=True)
    check_model(model)
    for name in detect or ():
        if name not in DETECTORS:
            known = ", ".join(map(repr, DETECTORS))
            raise UsageError(f"unknown detector {name!r}; expected some of {known}")
    obj, text = _load(response, wire)
    if detect is not None:
        detectors = tuple(detect)
    else:
        named = obj.get("model") if isinstance(obj, dict) else None
        detectors = default_detect(model or (named if isinstance(named, str) else None))
    if wire is None:
        wire = detect_provider(obj)
        if wire == "text":  # a bare call object: the text is its JSON
            obj = text if text is not None else _encode(obj).decode()
    found = READERS[wire](obj)
    new_id = id_factory or random_call_id

    if native is not False and found.natives:
        return [_native(entry, index, new_id) for index, entry in enumerate(found.natives)]
    markup = tuple(name for name in detectors if name != "json")
    for group in (markup, ("json",) if "json" in detectors else ()):
        if group and found.texts:
            calls = _from_text(found.texts, group, tools, new_id)
            if calls:
                return calls
    return []


def _load(response: Any, provider: str | None) -> tuple[Any, str | None]:
    """The decoded response, and its JSON text when it came as text."""
    if isinstance(response, (bytes, bytearray, memoryview)):
        response = bytes(response).decode("utf-8", "replace")
    if isinstance(response, str):
        if provider == "text":
            return response, response
        try:
            return msgspec.json.decode(response), response
        except (msgspec.DecodeError, RecursionError) as exc:
            hint = "; for a model's raw text pass provider='text'"
            raise UsageError(f"the response is not valid JSON ({exc}){hint}") from None
    if provider == "text":
        raise UsageError(f"provider='text' takes the text as str or bytes, not {type(response).__name__}")
    if isinstance(response, (dict, list)):
        return response, None
    return as_mapping(response), None


def _native(entry: Native, index: int, new_id: IdFactory) -> ToolCall:
    name = entry.name
    call_id = entry.id if isinstance(entry.id, str) and entry.id else None
    if not isinstance(name, str) or not name:
        raise ToolCallError(f"a native tool call has no name (id {call_id!r})", _encode(entry.entry).decode())
    arguments = entry.arguments
    if not entry.has_arguments or arguments is None:
        arguments = {}  # as the stream reads it: no arguments at all
    elif isinstance(arguments, str):
        try:
            arguments = decode_arguments(arguments)
        except ValueError as exc:
            raise ToolCallError(f"tool call {name!r}: {exc}", arguments) from None
    elif type(arguments) is not dict:
        error = f"tool call {name!r}: arguments must be a JSON object, got {kind_of(arguments)}"
        raise ToolCallError(error, _encode(arguments).decode())
    return ToolCall(call_id or new_id(), name, arguments, index, "native", entry.signature)


def _from_text(
    texts: list[str], detect: tuple[str, ...], tools: Iterable[Any] | None, new_id: IdFactory
) -> list[ToolCall]:
    calls: list[ToolCall] = []
    # A typed function is read as the codec reads it (the parser itself takes no functions).
    tool_list = None if tools is None else [_definition(tool) for tool in tools]
    for text in texts:
        parser = StreamParser("text", detect=detect, tools=tool_list, id_factory=new_id)
        for event in parser.feed(text) + parser.close():
            if type(event) is ToolCallCompleted:
                calls.append(_replace(event.call, index=len(calls)))
            elif type(event) is ToolCallFailed:
                named = f" {event.name!r}" if event.name else ""
                raise ToolCallError(f"malformed tool call{named} in the text: {event.error}", event.raw)
    return calls


def _definition(tool: object) -> object:
    """A tool as the parser takes it: a typed function becomes its :class:`Tool`."""
    if callable(tool) and not isinstance(tool, (Mapping, str)) and not hasattr(tool, "name"):
        return Tool.from_function(tool)
    return tool
