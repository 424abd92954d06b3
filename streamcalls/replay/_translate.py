"""A recording served as another provider's: its stream parsed, then written in that provider's wire format.

A request to one provider's endpoint may name another provider's recording
by its key (``"model": "openai/plan_day"`` on ``/v1/messages``).  Each of
the recording's turns is parsed as its own provider's stream and the events
are written by the endpoint's provider's writer (:class:`~streamcalls.StreamWriter`,
whichever targets are registered), so that every SDK reads every
recording.  The translation is a :class:`~._recordings.Recording` of the
endpoint's provider, with ``translated_from`` the source: the server checks
requests against it and serves it as it would one recorded there.  A
complete response (``stream: false``) is the provider's
:func:`~streamcalls.write_response` of the source's turn, where the
provider has one, else the one the server builds from the translated
stream (:mod:`._complete`).

The parse is the one the provider's own stream gets on the server: no text
detectors for a provider's recording (a call the model wrote in its text
stays text, as the provider sends it), the default ones for a model's raw
text (``text/``, whose calls are found there).  A call recorded without an
id gets ``<prefix>replay_<n>`` in the target's form (``toolu_replay_0``).
A translation is made once per recording and provider and kept
(:class:`Translations`), so the ids a writer makes up -- a response's, an
item's -- are the same in every answer: the ones a client sends back.
"""

from __future__ import annotations

import itertools
from typing import Any, cast

import msgspec

from .._api import parse
from .._errors import UsageError
from .._events import Event, ProviderError
from .._names import CodecProviderName, ProviderName
from .._turn import accumulate
from .._writer import target_class, write_response, write_stream
from ..providers import PROVIDERS
from ..writing import TARGETS
from ._recordings import Recording

__all__ = ("Translations", "complete_translation", "source_events", "writable_providers")


def writable_providers() -> tuple[str, ...]:
    """The providers a recording can be translated to: each provider with a registered stream writer."""
    return tuple(name for name in TARGETS if name in PROVIDERS)


def source_events(recording: Recording, call_id_prefix: str = "call_") -> list[Event]:
    """A recorded turn's events, as the server translates them (see the module doc)."""
    numbers = itertools.count()
    return parse(
        recording.body,
        cast(ProviderName, recording.provider),  # a recording's folder is a provider's name
        detect=None if recording.provider == "text" else (),
        id_factory=lambda: f"{call_id_prefix}replay_{next(numbers)}",
    )


def _translated(recording: Recording, provider: str) -> Recording:
    """One turn of ``recording`` written as ``provider``'s stream."""
    target = target_class(provider)
    events = source_events(recording, target.call_id_prefix)
    body = write_stream(events, cast(CodecProviderName, provider))
    return Recording(
        provider, recording.name, body, target.media_type, recording.turn, translated_from=recording
    )


class Translations:
    """The translations made so far, by source recording and provider: each made once, then kept."""

    def __init__(self) -> None:
        self._made: dict[tuple[str, str], Recording] = {}

    def of(self, recording: Recording, provider: str) -> Recording:
        """``recording`` (every turn) as ``provider``'s stream.

        :raises UsageError: ``provider`` has no stream writer (the message says which have).
        """
        key = (recording.key, provider)
        made = self._made.get(key)
        if made is not None:
            return made
        if provider not in writable_providers():
            raise UsageError(
                f"recording {recording.key!r} is {recording.provider}'s, and the replay server translates a "
                f"recording only to a provider with a stream writer: {', '.join(writable_providers())}"
            )
        first = _translated(recording, provider)
        later = tuple(_translated(turn, provider) for turn in recording.next_turns)
        made = self._made[key] = msgspec.structs.replace(first, next_turns=later)
        return made


def complete_translation(answer: Recording, model: str) -> tuple[int, dict[str, Any]] | ProviderError | None:
    """The complete response to a request answered by a translated turn: the provider's
    :func:`~streamcalls.write_response` of the source's turn (``model`` the one asked for), the
    provider error the source holds, or None if the provider has no response writer."""
    source = answer.translated_from
    provider = answer.provider
    entry = PROVIDERS.get(provider)
    if source is None or entry is None or entry.response is None:
        return None
    events = source_events(source, target_class(provider).call_id_prefix)
    turn = accumulate(events)
    error = next((e for e in turn.errors if isinstance(e, ProviderError)), None)
    if error is not None:
        return error
    return 200, write_response(msgspec.structs.replace(turn, model=model), cast(CodecProviderName, provider))
