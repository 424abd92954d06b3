"""Any recording served as any provider: the replay server translates it, and each official SDK reads it.

A request naming another provider's recording by its key (``openai/plan_day``
on ``/v1/messages``) gets that recording written in the endpoint's wire
format by the provider's stream writer.  The oracle is the SDK: its own
stream helper's final message (:mod:`tests.support.sdk_readers`) must hold the
recording's text, calls (names, arguments, and the ids the recording gave
them) and reasoning where the SDK keeps it.  The pairs are every bundled
recording × every provider that has both an SDK reader here and a
registered stream writer (a writer's branch, once merged, joins by
registering); a provider's own recordings are served as recorded, which
checks the readers themselves.  Every test runs on asyncio and on trio.
"""

from __future__ import annotations

from typing import Any, cast
from urllib.parse import quote

import pytest

import streamcalls
from streamcalls import Turn
from streamcalls.replay._translate import writable_providers
from streamcalls.writing import TARGETS
from tests.support import counter_ids
from tests.support.replaying import BUNDLED, complete_text, replay, request
from tests.support.sdk_readers import READERS, Read, first_history

pytestmark = pytest.mark.anyio

GENERATED = "generated_"  # the ids the parser makes up for calls recorded without one
PAIRS = [
    (key, target)
    for target in READERS
    for key in sorted(BUNDLED)
    if BUNDLED[key].provider == target or target in writable_providers()
]
LOOPS = [
    (key, target)
    for key, target in PAIRS
    if key in ("openai/plan_day", "anthropic/plan_day", "gemini/plan_day", "bedrock/plan_day")
]
RESULTS = {"get_weather": "sunny, 21 °C", "get_opening_hours": "09:00-18:00"}


def source_turn(key: str, turn: int = 1) -> Turn:
    """The recorded turn as the parser reads it, with its calls in the text left in the text."""
    recording = BUNDLED[key].maybe_turn(turn)
    assert recording is not None
    provider = cast(streamcalls.ProviderName, recording.provider)
    return streamcalls.accumulate(
        streamcalls.parse(recording.body, provider, detect=(), id_factory=counter_ids(GENERATED))
    )


def assert_same(read: Read, turn: Turn, target: str) -> None:
    """The SDK's final message holds the recorded turn: text, calls, ids the recording gave, reasoning."""
    assert read.text == turn.text
    assert [(name, arguments) for _, name, arguments in read.calls] == [
        (call.name, call.arguments) for call in turn.calls
    ]
    for (read_id, _, _), call in zip(read.calls, turn.calls, strict=True):
        assert read_id, "every SDK call has an id"
        if not call.id.startswith(GENERATED):
            assert read_id == call.id
    carried = target == turn.provider or "reasoning" not in TARGETS[target].cannot_carry
    if READERS[target].reads_reasoning and carried:
        assert read.reasoning == turn.reasoning


def test_every_sdk_reader_has_pairs() -> None:
    """Each SDK reader reads its own provider's recordings at least (the writers add the others)."""
    assert {target for _, target in PAIRS} == set(READERS)
    assert ("openai/plan_day", "anthropic") in PAIRS  # the anthropic writer is registered


@pytest.mark.parametrize(("key", "target"), PAIRS, ids=[f"{k}->{t}" for k, t in PAIRS])
async def test_every_sdk_reads_every_recording(key: str, target: str) -> None:
    async with replay() as (app, _client, url):
        read = await READERS[target].read(url, key, first_history(target))
    assert len(app.requests) == 1
    assert_same(read, source_turn(key), target)


@pytest.mark.parametrize(("key", "target"), LOOPS, ids=[f"{k}->{t}" for k, t in LOOPS])
async def test_a_translated_conversation_runs_to_its_second_turn(key: str, target: str) -> None:
    """The SDK's turn, sent back with the tools' results, is accepted and answered with the recording's
    second turn: the ids the client saw are the ones the server checks the results against."""
    reader = READERS[target]
    async with replay() as (app, _client, url):
        history = first_history(target)
        first = await reader.read(url, key, history)
        results = [(id, RESULTS[name]) for id, name, _ in first.calls]
        second = await reader.read(url, key, reader.follow(history, first, results))
    assert first.calls
    assert len(app.requests) == 2
    assert_same(second, source_turn(key, 2), target)


@pytest.mark.parametrize("target", writable_providers())
@pytest.mark.parametrize("key", ["openai/plan_day", "gemini/thinking_plan_day"])
async def test_a_complete_response_of_another_provider_s_recording(key: str, target: str) -> None:
    """``stream: false`` gets the turn in the provider's complete shape: its text and calls."""
    if BUNDLED[key].provider == target:
        pytest.skip("the provider's own recording")
    async with replay() as (_, client, _url):
        named = quote(key, safe="") if target in ("gemini", "bedrock") else key  # in the path
        path, body = request(target, first_history(target), stream=False, model=named)
        response = await client.post(path, json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    turn = source_turn(key)
    assert complete_text(answer, target) == turn.text
    calls = streamcalls.extract(answer, provider=cast(streamcalls.ProviderName, target), detect=())
    assert [(c.name, c.arguments) for c in calls] == [(c.name, c.arguments) for c in turn.calls]


async def test_the_provider_s_own_recording_is_served_as_recorded() -> None:
    """By its key or its name, a recording of the endpoint's own provider is its recorded bytes."""
    recording = BUNDLED["anthropic/plan_day"]
    async with replay() as (_, client, _url):
        bodies = []
        for model in ("anthropic/plan_day", "plan_day"):
            path, body = request("anthropic", first_history("anthropic"), model=model)
            response = await client.post(path, json=body)
            assert response.headers["x-replay-recording"] == "anthropic/plan_day"
            bodies.append(response.content)
    assert bodies == [recording.body, recording.body]


async def test_a_translation_is_the_same_bytes_every_time() -> None:
    """Made once and kept: ids a writer makes up (a response's, a call's) do not change between requests."""
    async with replay() as (_, client, _url):
        path, body = request("anthropic", first_history("anthropic"), model="gemini/plan_day")
        first, second = [await client.post(path, json=body) for _ in range(2)]
    assert first.status_code == 200
    assert first.headers["x-replay-recording"] == "gemini/plan_day"
    assert first.headers["content-type"] == TARGETS["anthropic"].media_type
    assert b"event: message_start" in first.content
    assert first.content == second.content


async def test_a_provider_without_a_stream_writer_says_which_have_one() -> None:
    """InvokeModel carries another provider's events: no writer, and the 404 in Bedrock's shape says so."""
    async with replay() as (_, client, _url):
        path = "/model/openai%2Fplan_day/invoke-with-response-stream"
        body = {
            "anthropic_version": "bedrock-2023-05-31",
            "max_tokens": 9,
            "messages": first_history("anthropic"),
        }
        response = await client.post(path, json=body)
    assert response.status_code == 404
    message = response.json()["message"]
    assert message.startswith("recording 'openai/plan_day' is openai's, and the replay server translates")
    assert message.endswith(", ".join(writable_providers()))


async def test_an_unknown_key_is_the_provider_s_404() -> None:
    async with replay() as (_, client, _url):
        path, body = request("anthropic", first_history("anthropic"), model="openai/no_such_recording")
        response = await client.post(path, json=body)
    assert response.status_code == 404
    assert "plan_day" in response.json()["error"]["message"]  # it lists the recordings


async def test_the_index_lists_the_providers_a_recording_can_be_served_as() -> None:
    async with replay() as (_, client, _url):
        index: Any = (await client.get("/")).json()
    assert index["translates_to"] == list(writable_providers())
    assert "anthropic" in index["translates_to"]


def test_the_translated_bytes_are_the_writer_s() -> None:
    """The body is ``write_stream`` of the recording's events (the server adds nothing of its own)."""
    from streamcalls.replay._translate import Translations, source_events

    recording = BUNDLED["openai/parallel_calls"]
    made = Translations().of(recording, "anthropic")
    assert made.provider == "anthropic"
    assert made.translated_from is recording
    assert made.turns == recording.turns
    events = source_events(recording, "toolu_")
    assert made.body == streamcalls.write_stream(events, "anthropic")  # the recording names its response
