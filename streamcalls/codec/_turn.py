"""One turn of a tool loop, kept as it streams: the next request's messages, for any provider.

:class:`Turn` takes the events and results of a run (``add``) and writes
what goes back to the model (``messages``): the assistant's turn -- its text
and its calls, as :func:`~streamcalls.encode_call` writes them -- then the
results in call order, grouped as :func:`~streamcalls.encode_result` groups
them for the provider (one ``user`` message holding every result for
Anthropic, Gemini and Bedrock; one message or item per result for OpenAI
Chat, Responses, Ollama and Cohere).

Every provider but Ollama refuses a history in which a call has no result
(OpenAI Chat and Cohere: each ``tool_call_id`` needs its ``tool`` message;
Responses: each ``function_call`` its ``function_call_output``; Anthropic:
each ``tool_use`` its ``tool_result`` in the next message; Gemini: as many
``functionResponse`` parts as ``functionCall`` parts; Bedrock: each
``toolUse`` its ``toolResult``), so the turn always pairs them, the same way
for all seven:

- a call whose tool has no result (the run was left, or broke off before the
  tool finished) gets an error result saying so;
- a call that failed to parse (``ToolCallFailed``) is written with empty
  arguments -- its raw text may not be JSON, and Anthropic, Gemini, Bedrock
  and Ollama take only objects -- and gets an error result quoting the
  parser's reason, so that the model can make the call again;
- a failed call without a name (text that was never a call) is left out:
  no provider takes a call without one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._events import TextDelta, ToolCall, ToolCallCompleted, ToolCallFailed
from .._results import ToolResult
from ._encode import Message, encode_call, encode_result
from ._names import resolve

__all__ = ("Turn",)

NO_RESULT = "the tool did not finish: the run ended before its result"
UNREADABLE = "the call could not be read ({error}), so the tool did not run; make the call again"


class Turn:
    """The text, calls and results of one response and its tool run."""

    __slots__ = ("_calls", "_results", "_text", "_unreadable")

    def __init__(self) -> None:
        self._text: list[str] = []
        self._calls: list[ToolCall] = []
        self._unreadable: dict[str, ToolResult] = {}  # a failed call's error result, by call id
        self._results: dict[str, ToolResult] = {}

    def add(self, item: Any) -> None:
        """Keep what the next request needs from an event or a result; ignore the rest."""
        kind = type(item)
        if kind is TextDelta:
            self._text.append(item.text)
        elif kind is ToolCallCompleted:
            self._calls.append(item.call)
        elif kind is ToolResult:
            self._results[item.call_id] = item
        elif kind is ToolCallFailed and item.name:
            self._calls.append(ToolCall(item.id, item.name, {}, item.index))
            self._unreadable[item.id] = ToolResult(
                item.id, item.name, UNREADABLE.format(error=item.error), True
            )

    @property
    def text(self) -> str:
        return "".join(self._text)

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        """The calls kept so far, in stream order (a failed one with empty arguments)."""
        return tuple(sorted(self._calls, key=lambda call: call.index))

    def messages(self, provider: str) -> list[Message]:
        """The messages to append to the conversation (see the module's docstring).

        :raises UsageError: for an unknown provider.
        """
        name = resolve(provider)
        text = self.text
        if not self._calls:
            return [_TEXT_ONLY[name](text)] if text else []
        calls = self.calls
        results = [self._result(call) for call in calls]
        turn = encode_call(calls, name, text=text or None)
        return [*(turn if isinstance(turn, list) else [turn]), *encode_result(results, name)]

    def _result(self, call: ToolCall) -> ToolResult:
        found = self._results.get(call.id) or self._unreadable.get(call.id)
        return found if found is not None else ToolResult(call.id, call.name, NO_RESULT, True)


# The assistant's answer without calls, in each provider's shape (encode_call's, minus the calls).
_TEXT_ONLY: dict[str, Callable[[str], Message]] = {
    "openai": lambda text: {"role": "assistant", "content": text},
    "openai-responses": lambda text: {"type": "message", "role": "assistant", "content": text},
    "anthropic": lambda text: {"role": "assistant", "content": [{"type": "text", "text": text}]},
    "ollama": lambda text: {"role": "assistant", "content": text},
    "gemini": lambda text: {"role": "model", "parts": [{"text": text}]},
    "bedrock": lambda text: {"role": "assistant", "content": [{"text": text}]},
    "cohere": lambda text: {"role": "assistant", "content": text},
}
