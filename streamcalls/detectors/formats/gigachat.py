"""GigaChat 3 and 3.1 tool calls (``source="gigachat"``).

::

    <|message_sep|>

    function call<|role_sep|>
    {"name": "manage_user_memory", "arguments": {"action": "create"}}       GigaChat 3
    <|function_call|>{"name": "manage_user_memory", "arguments": {...}}    GigaChat 3.1

A call is one JSON object after its header (GigaChat 3's header is a new message in the
``function call`` role); it completes when the object closes.  Each header starts a call; an
end-of-sequence token after it is the server's (text, if it reaches the parser).
"""

from __future__ import annotations

from .._parts.jsoncalls import Body, JsonCalls

__all__ = ("GigaChatDetector",)


class GigaChatDetector(JsonCalls):
    name = "gigachat"
    openers = (("<|message_sep|>\n\nfunction call<|role_sep|>\n", ""), ("<|function_call|>", ""))
    body = Body.OBJECTS

    __slots__ = ()
