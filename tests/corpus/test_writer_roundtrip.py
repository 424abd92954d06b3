"""Every provider's target, read back by the parser: the round trip of issue 23 (``tests/support/writer_roundtrip.py``).

For every recording of the corpus and every registered provider target B,
the recording's events written as B's stream read back -- whole, one byte at a
time, at random splits -- to the same turn, but for what B's declaration says
it cannot carry; so do hypothesis-made event lists in the parser's order.
Each provider's complete response (``write_response``) reads back through the
parser's complete-body path to the same turn, but for what its body cannot
carry.  A new target joins by registering.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import streamcalls
from streamcalls import UsageError, write_response
from streamcalls.providers import PROVIDERS
from streamcalls.writing import CANNOT_CARRY, TARGETS, register
from tests.support import Case, corpus
from tests.support.ui_streams import Item, event_lists
from tests.support.writer_roundtrip import (
    check_round_trip,
    compare,
    first_stream,
    provider_targets,
    read_back,
)

CASES = corpus()
TARGET_NAMES = provider_targets()
RESPONDERS = tuple(name for name, entry in PROVIDERS.items() if entry.response is not None)
PAIRS = [(case, target) for case in CASES for target in TARGET_NAMES]


@pytest.mark.parametrize(("case", "target"), PAIRS, ids=[f"{c.id}->{t}" for c, t in PAIRS])
def test_every_recording_reads_back(case: Case, target: str) -> None:
    check_round_trip(case.expected(), target)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_recordings_at_random_splits(data: st.DataObject) -> None:
    if not TARGET_NAMES:
        return
    case = data.draw(st.sampled_from(CASES))
    target = data.draw(st.sampled_from(TARGET_NAMES))
    events = case.expected()
    body = streamcalls.write_stream(events, target)  # type: ignore[arg-type]
    cuts = data.draw(st.lists(st.integers(1, max(1, len(body) - 1)), max_size=12))
    check_round_trip(events, target, splits=[cuts], one_byte=False)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=event_lists(), data=st.data())
def test_event_lists_read_back(items: list[Item], data: st.DataObject) -> None:
    items = first_stream(items)
    for target in TARGET_NAMES:
        body = streamcalls.write_stream(items, target)  # type: ignore[arg-type]
        cuts = data.draw(st.lists(st.integers(1, max(1, len(body) - 1)), max_size=6))
        check_round_trip(items, target, splits=[cuts], one_byte=False)


RESPONSE_PAIRS = [(case, provider) for case in CASES for provider in RESPONDERS]


@pytest.mark.parametrize(
    ("case", "provider"), RESPONSE_PAIRS, ids=[f"{c.id}->{p}" for c, p in RESPONSE_PAIRS]
)
def test_every_recording_as_a_complete_response(case: Case, provider: str) -> None:
    """A turn with no errors, as the provider's complete body, reads back through the complete-body path."""
    events = case.expected()
    turn = streamcalls.accumulate(events)
    if turn.errors or turn.finish_reason == "error":
        pytest.skip("a turn with errors is not a response")
    body = write_response(turn, provider)  # type: ignore[arg-type]
    back = read_back(msgspec.json.encode(body), provider)
    target = TARGETS[provider]
    compare(events, back, target, dropped=target.response_cannot_carry, response=True)


def test_every_target_declares_known_words() -> None:
    for name in TARGET_NAMES:
        assert TARGETS[name].cannot_carry <= CANNOT_CARRY.keys()
        assert TARGETS[name].response_cannot_carry <= CANNOT_CARRY.keys()


def test_an_unknown_word_is_refused() -> None:
    class Fussy(TARGETS["ai-sdk"]):  # type: ignore[misc,valid-type]
        name = "fussy-target"
        cannot_carry = frozenset({"call_ids", "telepathy"})

    with pytest.raises(UsageError, match="'telepathy'"):
        register(Fussy)
    assert "fussy-target" not in TARGETS


def test_write_response_refuses_what_it_cannot_write(monkeypatch: Any) -> None:
    turn = streamcalls.accumulate([streamcalls.TextDelta("hi"), streamcalls.StreamFinished("stop")])
    with pytest.raises(UsageError, match=r"streamcalls\.Turn"):
        write_response({"parts": []}, "openai")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="did you mean 'openai'"):
        write_response(turn, "opanai")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="unknown provider 'text'"):
        write_response(turn, "text")  # type: ignore[arg-type]
    monkeypatch.setitem(PROVIDERS, "ollama", PROVIDERS["ollama"]._replace(response=None))
    with pytest.raises(UsageError, match="no response writer"):
        write_response(turn, "ollama")
