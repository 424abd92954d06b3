# The SDK overloads return the SDKs' TypedDicts, the plain-str one dict[str, Any];
# mypy calls that an unsafe overlap, but at run time both are the same dict.
# mypy: disable-error-code="overload-overlap"
"""A :class:`~streamcalls.Turn` written back for the next request: :func:`encode_turn`.

Same provider (the turn's ``provider`` is the target's wire format, or is
not known): every part goes back as the provider sent it, in order, with
everything the provider requires back unchanged -- see
each provider's ``encoding`` module (``providers/<name>/encoding.py``) for
its reasoning.  Another provider:
reasoning that carries a signature, redacted or encrypted content is
dropped (only its own provider can verify it); plain reasoning text goes
where the target has a field for it (DeepSeek's ``reasoning_content``,
Ollama's ``thinking``); text and calls are kept.

Call ids the target refuses are rewritten (:mod:`._ids`), the same way in a
call and in its result.  Arguments go back as the model wrote them: the
raw argument text (:attr:`Turn.raw_arguments <streamcalls.Turn.raw_arguments>`)
where the provider takes a string, the decoded object where it takes one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, overload

from .._errors import UsageError
from .._events import ToolCall, ToolCallFailed
from .._names import CodecProviderName, OpenAIChatName
from .._results import ToolResult
from .._turn import Part, ReasoningPart, TextPart, Turn
from ..providers._encoding import Message, Written
from ._ids import id_rewriter
from ._names import encoding_of, resolve
from ._params import AnthropicMessage, OpenAIMessage, ResponsesItem

__all__ = ("NO_RESULT", "UNREADABLE", "encode_turn", "failed_call")

NO_RESULT = "the tool did not finish: the run ended before its result"
UNREADABLE = "the call could not be read ({error}), so the tool did not run; make the call again"

# Targets that take reasoning text with no signature in an assistant message.
_PLAIN_REASONING = frozenset({"deepseek", "ollama"})


Results = Iterable[ToolResult] | None


@overload
def encode_turn(turn: Turn, provider: OpenAIChatName, results: Results = None) -> list[OpenAIMessage]: ...
@overload
def encode_turn(
    turn: Turn, provider: Literal["openai-responses"], results: Results = None
) -> list[ResponsesItem]: ...
@overload
def encode_turn(
    turn: Turn, provider: Literal["anthropic"], results: Results = None
) -> list[AnthropicMessage]: ...
@overload
def encode_turn(turn: Turn, provider: CodecProviderName, results: Results = None) -> list[Message]: ...
def encode_turn(turn: Turn, provider: CodecProviderName, results: Results = None) -> Any:
    """The messages that carry ``turn`` into the next request: the assistant's turn, then the results.

    ``provider`` is any codec name (:data:`~streamcalls.codec.CodecProviderName`):
    ``"deepseek"`` writes every reasoning text as ``reasoning_content`` (DeepSeek's
    thinking mode refuses a tool loop without it), ``"mistral"`` rewrites call ids
    to Mistral's nine characters.  The result is a list to ``.extend`` the
    conversation with, as :meth:`ToolRun.messages <streamcalls.ToolRun.messages>` gives it; with
    the provider written as a literal, typed as the official SDK's message params (openai:
    ``ChatCompletionMessageParam``, Responses: ``ResponseInputItemParam``, anthropic:
    ``MessageParam``), any other name gives ``list[dict[str, Any]]``.

    ``results``: the tools' results for the turn's calls, in any order.  Given,
    every call gets one -- a call without a result gets an error result saying its
    tool did not finish, and a call that failed to parse (a named
    :class:`~streamcalls.ToolCallFailed` in ``turn.errors``) goes in with empty
    arguments and an error result quoting why, so that the model can call again
    -- since every provider but Ollama refuses a call without its result.  ``None``
    (the default): the assistant's turn alone, its completed calls only, for code
    that writes the results itself.

    A turn with nothing to write (no text, no calls, no reasoning the target keeps)
    gives ``[]``.

    :raises UsageError: for an unknown provider, or ``turn`` that is not a :class:`~streamcalls.Turn`.
    """
    if not isinstance(turn, Turn):
        raise UsageError(f"encode_turn() takes a Turn (streamcalls.accumulate), not {type(turn).__name__}")
    target = resolve(provider)
    same = turn.provider is None or turn.provider == target
    plain = provider if provider in _PLAIN_REASONING else target
    parts = [part for part in turn.parts if _kept(part, same, plain)]
    failures: dict[str, ToolResult] = {}
    if results is not None:
        parts, failures = _with_failed_calls(parts, turn.errors)
    calls = [part for part in parts if type(part) is ToolCall]
    paired = _paired(calls, results, failures) if results is not None else []
    ids = id_rewriter(_id_rules(provider, target), [call.id for call in calls])
    written = Written(parts, same, provider, ids, turn.raw_arguments)
    encoding = encoding_of(target)
    messages = encoding.assistant(written)
    if paired:
        results_encoder = encoding.results
        messages += results_encoder([_renamed(result, ids(result.call_id)) for result in paired])
    return messages


def _kept(part: Part, same: bool, target: str) -> bool:
    if type(part) is ReasoningPart:
        if same:
            return True
        return not part.signed and bool(part.text) and target in _PLAIN_REASONING
    if type(part) is TextPart and part.signature is not None and not same:
        return bool(part.text)  # the signature is dropped when written (see Written.signed_text)
    return True


def failed_call(event: ToolCallFailed) -> tuple[ToolCall, ToolResult]:
    """A call that failed to parse, as it is written back: empty arguments, and an error result."""
    call = ToolCall(event.id, event.name, {}, event.index)
    return call, ToolResult(event.id, event.name, UNREADABLE.format(error=event.error), True)


def _with_failed_calls(parts: list[Part], errors: Iterable[Any]) -> tuple[list[Part], dict[str, ToolResult]]:
    """The parts with each named failed call at its place in stream order, and their results."""
    failures: dict[str, ToolResult] = {}
    for error in errors:
        if type(error) is not ToolCallFailed or not error.name:
            continue  # a failed call without a name (text that was never a call) is left out
        call, result = failed_call(error)
        failures[call.id] = result
        place = len(parts)
        for number, part in enumerate(parts):
            if type(part) is ToolCall and part.index > call.index:
                place = number
                break
        parts.insert(place, call)
    return parts, failures


def _paired(
    calls: list[ToolCall], results: Iterable[ToolResult], failures: dict[str, ToolResult]
) -> list[ToolResult]:
    given: dict[str, ToolResult] = {}
    for result in results:
        if not isinstance(result, ToolResult):
            raise UsageError(f"encode_turn() takes ToolResult objects, not {type(result).__name__}")
        given[result.call_id] = result
    paired = []
    for call in calls:
        found = given.get(call.id) or failures.get(call.id)
        paired.append(found if found is not None else ToolResult(call.id, call.name, NO_RESULT, True))
    return paired


def _renamed(result: ToolResult, call_id: str) -> ToolResult:
    if call_id == result.call_id:
        return result
    return ToolResult(call_id, result.name, result.content, result.is_error)


def _id_rules(provider: str, target: str) -> str:
    """Which id rule applies: Mistral's own, else the wire format's."""
    return "mistral" if provider == "mistral" else target
