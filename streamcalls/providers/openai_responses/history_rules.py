"""OpenAI Responses' history rules: the ``input`` items of a request.

``input`` is a string (a new prompt) or a list of items: messages
(``{"role", "content"}``, ``type: "message"`` optional), the model's
``function_call`` items (``call_id``, ``name``, ``arguments`` as a JSON
string) and the caller's ``function_call_output`` items (``call_id``,
``output``).  The API pairs them by ``call_id`` anywhere in ``input``, not
by position: an output needs its call before it, and a call its output.  The
sentences are the API's own 400 messages (``param: "input"``, no ``code``),
as its users report them (microsoft/vscode#320060 shows the whole body).

:func:`responses_reasoning` is the rule that needs the recording: a
reasoning model's ``function_call`` item, sent back by its ``id``, needs the
``reasoning`` item that came before it in the same output, unless the
request continues from ``previous_response_id`` (the API then has it):
"Item 'fc_...' of type 'function_call' was provided without its required
'reasoning' item: 'rs_...'." (``param: "input"``, ``code: null``;
continuedev/continue#10018, cline/cline#12242).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._rejected import Rejected, openai_kind
from ..openai_chat.history_rules import expect_openai

__all__ = ("responses_reasoning", "responses_turn")

_OUTPUT_ITEMS = frozenset({"function_call", "reasoning"})  # what the model wrote, besides its messages


def responses_turn(request: Mapping[str, Any]) -> int:
    """The turn a Responses request's ``input`` asks for; :class:`Rejected` if the API would refuse it."""
    items = request.get("input")
    if items is None or isinstance(items, str):
        return 1
    if not isinstance(items, list):
        message = (
            f"Invalid type for 'input': expected one of a string or array of input items, but got "
            f"{openai_kind(items)} instead."
        )
        raise Rejected(message, param="input", code="invalid_type")
    calls: list[str] = []  # call ids not answered yet, in order
    seen: set[str] = set()
    turn = 1
    in_turn = False  # the item before was the model's
    for index, item in enumerate(items):
        path = f"input[{index}]"
        if not isinstance(item, dict):
            message = (
                f"Invalid type for '{path}': expected an input item, but got {openai_kind(item)} instead."
            )
            raise Rejected(message, param=path, code="invalid_type")
        kind = item.get("type", "message")
        models = kind in _OUTPUT_ITEMS or (kind == "message" and item.get("role") == "assistant")
        if models and not in_turn:
            turn += 1
        in_turn = models
        if kind == "message" and item.get("role") == "user":
            turn = 1
        elif kind == "function_call":
            expect_openai(item.get("call_id"), str, "a string", f"{path}.call_id")
            expect_openai(item.get("name"), str, "a string", f"{path}.name")
            expect_openai(item.get("arguments"), str, "a string", f"{path}.arguments")
            calls.append(item["call_id"])
            seen.add(item["call_id"])
        elif kind == "function_call_output":
            call_id = item.get("call_id")
            expect_openai(call_id, str, "a string", f"{path}.call_id")
            if call_id not in seen:
                raise Rejected(
                    f"No tool call found for function call output with call_id {call_id}.", param="input"
                )
            if call_id in calls:
                calls.remove(call_id)
    if calls:
        raise Rejected(f"No tool output found for function call {calls[0]}.", param="input")
    return turn


def responses_reasoning(request: Mapping[str, Any], recorded: Sequence[Mapping[str, Any]] | None) -> None:
    """Refuse (:class:`Rejected`) a request whose recorded ``function_call`` item lost its ``reasoning`` item.

    ``recorded`` are the output items of the turn the request answers
    (:func:`streamcalls.replay._recorded.responses_items`).  The history rules have checked
    ``input``'s shape before.
    """
    items = request.get("input")
    if recorded is None or request.get("previous_response_id") or not isinstance(items, list):
        return
    needs: dict[str, str] = {}  # a recorded function_call item's id -> the reasoning item before it
    reasoning = None
    for item in recorded:
        if item.get("type") == "reasoning":
            reasoning = item.get("id")
        elif item.get("type") == "function_call" and isinstance(item.get("id"), str) and reasoning:
            needs[item["id"]] = reasoning
    sent: set[str] = set()
    for item in items:
        kind, name = item.get("type", "message"), item.get("id")
        if kind == "reasoning" and isinstance(name, str):
            sent.add(name)
        wanted = needs.get(name) if kind == "function_call" and isinstance(name, str) else None
        if wanted is not None and wanted not in sent:
            message = (
                f"Item '{name}' of type 'function_call' was provided without its required 'reasoning' "
                f"item: '{wanted}'."
            )
            raise Rejected(message, param="input")
