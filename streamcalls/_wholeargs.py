"""Arguments that arrive whole: a call's arguments as one decoded value, not as fragments.

Some providers send a call whole (Ollama, Gemini, a Bedrock tool use's
``input``), or its arguments as one JSON text; the
:class:`~streamcalls._calls.CallAssembler`'s ``whole`` completes such a call
at once.  A JSON text goes the fragments' way (fed, then ended); a decoded
value is encoded once, for the call's raw text and its one
``ToolCallDelta``, and must be an object; no arguments at all are ``{}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from ._arguments import json_kind
from ._call import OPEN, Call
from ._events import ToolCallDelta

if TYPE_CHECKING:
    from ._calls import CallAssembler

__all__ = ("whole_arguments",)

_encode = msgspec.json.encode


def whole_arguments(calls: CallAssembler, call: Call, arguments: Any, raw: str | None) -> None:
    """Complete ``call`` with ``arguments`` (an object or a JSON string; ``raw``: its text as sent)."""
    if call.status != OPEN:
        return
    if isinstance(arguments, str):
        calls.feed(call, arguments)
        calls.end(call)
        return
    if arguments is None:  # no arguments at all: {}
        arguments = {}
        raw = ""
    if raw is None:
        encoded = _encode(arguments)
        text = encoded.decode()
        if call.started:
            call.text += encoded  # what keep() would encode the text to again
        else:
            call.keep(text)
    else:
        text = raw
        call.keep(text)
    if call.started and text:
        calls.put(ToolCallDelta(call.index, text))
        if call.patches is not None:
            call.patches.whole(arguments, text)
    if type(arguments) is not dict:
        calls.fail(call, f"arguments must be a JSON object, got {json_kind(arguments)}")
        return
    calls._complete(call, arguments)
