"""Gemini's history rules: the ``contents`` of a generateContent request.

Each content is ``{"role": "user" | "model", "parts": [...]}``.  A model
turn's ``functionCall`` parts are answered by the ``functionResponse`` parts
of the turn right after it, as many as there were calls, and a turn of calls
comes right after the user's turn or a turn of responses.  The API refuses
anything else with a 400 ``INVALID_ARGUMENT`` in these words, as its users
report them (google-gemini/gemini-cli#5443 and #11814,
langchain-ai/langchain#27799).

A content that is not an object is refused by Google's JSON-to-protobuf
reader, in its words: ``Invalid value at 'contents[1]' (<type URL>), "…"``
(the value as it renders one).  That reader (protobuf's
``ProtoStreamObjectWriter``) takes a list nested in a repeated field as more
items of that field, and one object where a list belongs as a list of one,
so here too a list of contents appended as one content is read as its
contents, and ``null`` is skipped.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .._rejected import Rejected

__all__ = ("gemini_turn", "items")

_TYPES = "type.googleapis.com/google.ai.generativelanguage.v1beta."
NOT_SPECIFIED = "* GenerateContentRequest.contents: contents is not specified\n"
BAD_ROLE = "Please use a valid role: user, model."
RESPONSE_PLACE = "Please ensure that function response turn comes immediately after a function call turn."
RESPONSE_COUNT = (
    "Please ensure that the number of function response parts is equal to the number of function call parts "
    "of the function call turn."
)
CALL_PLACE = "Please ensure that function call turn comes immediately after a user turn or after a function response turn."


def gemini_turn(request: Mapping[str, Any]) -> int:
    """The turn a Gemini request's ``contents`` ask for; :class:`Rejected` if Gemini would refuse them."""
    contents = request.get("contents")
    if contents is None:
        raise Rejected(NOT_SPECIFIED)
    turn = 1
    before = "start"  # what the content before was: start, user, responses, model or calls
    calls = 0  # how many functionCall parts it had
    for path, content in items(contents, "contents", "Content"):
        role = content.get("role", "user")
        if role not in ("user", "model"):
            raise Rejected(BAD_ROLE)
        parts = [part for _, part in items(content.get("parts", ()), f"{path}.parts", "Part")]
        responses = sum(1 for part in parts if "functionResponse" in part)
        if responses and before != "calls":
            raise Rejected(RESPONSE_PLACE)
        if before == "calls" and responses != calls:
            raise Rejected(RESPONSE_COUNT)
        calls = sum(1 for part in parts if "functionCall" in part)
        if role == "model":
            if calls and before not in ("user", "responses"):
                raise Rejected(CALL_PLACE)
            turn += 1
            before = "calls" if calls else "model"
        else:
            turn = turn if responses else 1
            before = "responses" if responses else "user"
    return turn


def items(value: object, path: str, message_type: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The objects of a repeated field, as the JSON reader takes them (see the module doc)."""
    if isinstance(value, dict):
        yield path, value
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if item is not None:
                yield from items(item, f"{path}[{index}]", message_type)
    elif value is not None:
        message = f"Invalid value at '{path}' ({_TYPES}{message_type}), {_render(value)}"
        raise Rejected(message, param=path)


def _render(value: object) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
