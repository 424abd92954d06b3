"""Events back into a wire's bytes: :class:`StreamWriter` and :func:`write_stream`; a turn as a provider's
complete response: :func:`write_response`.

Sans-IO like the parser, and its mirror: ``send(event)`` returns the bytes
that event writes, the moment it arrives (each text delta and argument
fragment as its own record), ``close()`` the rest.  The order of the events
is kept by :class:`~streamcalls.writing._order.EventOrder`; the bytes are the
target's (``streamcalls/writing/``, and each provider's package).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from ._errors import UsageError
from ._events import ReasoningDelta, TextDelta, ToolCallDelta
from ._names import CodecProviderName, maybe_meant_provider
from ._native import active, install_send
from ._turn import Turn
from .providers import ADAPTERS, ALIASES, PROVIDERS
from .writing import TARGETS, Block, Call, EventOrder, Target, Writable
from .writing._form import Counter, DeltaForm
from .writing._order import Phase

__all__ = ("StreamWriter", "TargetName", "target_class", "write_response", "write_stream")

TargetName = Literal[CodecProviderName, "ai-sdk", "ag-ui"]
"""Every name :class:`StreamWriter` takes: a provider (or an alias of OpenAI Chat's), or a chat UI
protocol: ``"ai-sdk"`` (the Vercel AI SDK's UI message stream) and ``"ag-ui"``."""

# Every wire format a provider answers in.  Not "text" (a model's raw text has no framing to write), nor
# "bedrock-invoke", whose frames carry another provider's events (Claude's, in base64 chunks).
_PROVIDERS = tuple(name for name in ADAPTERS if name not in ("text", "bedrock-invoke"))


def target_class(name: object) -> type[Target]:
    """The target class for a name (an alias of OpenAI Chat's is OpenAI Chat); :class:`UsageError` if none."""
    if not isinstance(name, str):
        raise UsageError(f"a target is a name such as 'ai-sdk' or 'anthropic', not {type(name).__name__}")
    canonical = ALIASES.get(name, name)
    found = TARGETS.get(canonical)
    if found is not None:
        return found
    if canonical in _PROVIDERS:
        # (Each provider's target comes with its provider's package.)
        raise UsageError(f"target {name!r} is not available yet: no writer for {canonical!r} is registered")
    known = tuple(dict.fromkeys((*TARGETS, *_PROVIDERS, *ALIASES)))  # a provider with a writer once
    listed = ", ".join(map(repr, known))
    if name in ("text", "auto"):
        raise UsageError(
            f"{name!r} is a parser setting, not a wire format to write; expected one of {listed}"
        )
    meant = maybe_meant_provider(name, known)
    hint = "" if meant is None else f" (did you mean {meant!r}?)"
    raise UsageError(f"unknown target {name!r:.100}{hint}; expected one of {listed}")


class StreamWriter(EventOrder):
    """Events in, a provider's stream or a chat UI's out: sans-IO, like :class:`~streamcalls.StreamParser`.

    ``send(event)`` returns the bytes that event writes -- often ``b""``
    while the target waits for more -- and ``close()`` the rest.  Every
    event kind is taken, and each :class:`~streamcalls.ToolResult` (written
    by the chat UI protocols, as the call's output; ignored by a provider's
    stream).  Text, reasoning and each call's argument fragments are written
    delta by delta, as they come.

    ``target``: ``"ai-sdk"`` (the Vercel AI SDK's UI message stream, what
    ``useChat`` reads) or ``"ag-ui"`` (AG-UI events); a provider's name
    once its writer is registered (until then :class:`~streamcalls.UsageError`
    says it is not available yet).
    ``model`` and ``response_id`` are written where the target names them,
    over what the stream's :class:`~streamcalls.StreamStarted` says (the
    ``messageId`` of ``"ai-sdk"``, the ``runId`` of ``"ag-ui"``, generated
    there if neither names one).
    ``thread_id`` is AG-UI's ``threadId``: the conversation the client
    named in its request (generated if None).

    The events must come in the order the parser emits them: a call's delta
    before its start or after its end, text inside a reasoning block or
    after the :class:`~streamcalls.StreamFinished`, a second start, a result
    for a call that has not ended -- each raises
    :class:`~streamcalls.UsageError` naming the event, and so does
    ``send()`` after ``close()``.  A stream that ends with no
    ``StreamFinished`` is finished by ``close()``: a call still open fails,
    and the reason is ``"error"`` if anything was cut off.
    """

    __slots__ = ("target",)

    def __init__(
        self,
        target: TargetName,
        *,
        model: str | None = None,
        response_id: str | None = None,
        thread_id: str | None = None,
    ) -> None:
        found = target_class(target)
        super().__init__(found, model=model, response_id=response_id, thread_id=thread_id)
        self.target: str = found.name
        """The target's name (an alias given is its provider's name here)."""
        self._native = active()

    @property
    def media_type(self) -> str:
        """The HTTP ``content-type`` of what it writes (``text/event-stream`` for both chat UI protocols)."""
        return self._target.media_type

    @property
    def headers(self) -> Mapping[str, str]:
        """The HTTP response headers to send with it: the content type, and for ``"ai-sdk"``
        ``x-vercel-ai-ui-message-stream: v1`` (and no caching or proxy buffering)."""
        return self._target.headers


# The native send (streamcalls/_native/writer.c): each delta whose block or call has a form, written
# without entering Python, for a writer made on the native path; the Python send for the rest.
install_send(
    EventOrder,
    {
        "TextDelta": TextDelta,
        "ReasoningDelta": ReasoningDelta,
        "ToolCallDelta": ToolCallDelta,
        "OPEN": Phase.OPEN,
        "Block": Block,
        "Call": Call,
        "DeltaForm": DeltaForm,
        "Counter": Counter,
    },
)


def write_stream(
    events: Iterable[Writable],
    target: TargetName,
    *,
    model: str | None = None,
    response_id: str | None = None,
    thread_id: str | None = None,
) -> bytes:
    """A finished list of events written as ``target``'s stream: :class:`StreamWriter`'s ``send`` of
    each, then its ``close()``.

    :raises UsageError: an event out of order, or an unknown target.
    """
    writer = StreamWriter(target, model=model, response_id=response_id, thread_id=thread_id)
    send = writer.send
    return b"".join([*map(send, events), writer.close()])


def write_response(turn: Turn, provider: CodecProviderName) -> dict[str, Any]:
    """The complete, non-streamed response body ``provider`` returns for ``turn`` (with ``stream: false``):
    a JSON object, as a dict, that the provider's SDK reads as its response type and
    :class:`~streamcalls.StreamParser` reads back as the same turn.

    ``turn`` is an :func:`~streamcalls.accumulate`'s (of any provider's stream).  What the body
    holds follows the exact-turns rules, as a stream writer's output does: signed, redacted or
    encrypted reasoning only for its own provider (``turn.provider``); a call with no id gets one
    in the provider's form.  Errors in the turn are not written: a turn that failed is not a
    response (a failed call is left out).

    :raises UsageError: ``turn`` is not a :class:`~streamcalls.Turn`, or ``provider`` is unknown
        or has no complete-response writer.
    """
    if not isinstance(turn, Turn):
        raise UsageError(
            f"write_response takes a streamcalls.Turn (see accumulate), not {type(turn).__name__}"
        )
    if not isinstance(provider, str):
        raise UsageError(f"a provider is a name such as 'openai', not {type(provider).__name__}")
    canonical = ALIASES.get(provider, provider)
    entry = PROVIDERS.get(canonical)
    if entry is None or canonical not in _PROVIDERS:
        known = (*_PROVIDERS, *ALIASES)
        meant = maybe_meant_provider(provider, known)
        hint = "" if meant is None else f" (did you mean {meant!r}?)"
        raise UsageError(
            f"unknown provider {provider!r:.100}{hint} for write_response; expected one of "
            f"{', '.join(map(repr, known))}"
        )
    if entry.response is None:
        raise UsageError(
            f"write_response for {canonical!r} is not available yet: no response writer is registered"
        )
    return entry.response(turn)
