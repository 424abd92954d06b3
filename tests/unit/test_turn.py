"""accumulate and TurnBuilder: every recording's turn, the same at any chunking, holding what its events say.

The oracles: a small reader written here (``said``) that collects text, reasoning, calls and errors from
the events by hand; the turns of the reasoning recordings, written out part by part and checked by eye
against their bodies; and, in test_turn_sdk.py, what the official SDKs accumulate from the same bytes.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import streamcalls
from streamcalls import (
    Event,
    ParseError,
    ProviderError,
    ReasoningCompleted,
    ReasoningDelta,
    ReasoningPart,
    ReasoningStarted,
    StreamFinished,
    StreamStarted,
    TextDelta,
    TextPart,
    TextSignature,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallStarted,
    Turn,
    TurnBuilder,
    accumulate,
)
from tests.support import (
    DATA,
    Case,
    bytewise,
    check_reasoning_blocks,
    corpus,
    counter_ids,
    feed_chunks,
    split_at,
)

CASES = corpus()
IDS = [case.id for case in CASES]


def said(events: list[Event]) -> tuple[str, str, list[ToolCall], list[Any], str | None]:
    """What the events say, read by hand: text, reasoning, completed calls, errors, finish reason."""
    text = "".join(e.text for e in events if type(e) is TextDelta)
    reasoning = "".join(e.text for e in events if type(e) is ReasoningDelta)
    calls = [e.call for e in events if type(e) is ToolCallCompleted]
    errors = [e for e in events if type(e) in (ProviderError, ParseError, ToolCallFailed)]
    finish = [e.reason for e in events if type(e) is StreamFinished]
    return text, reasoning, calls, errors, finish[0] if finish else None


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_turn_holds_what_the_events_say(case: Case) -> None:
    events = feed_chunks([case.data()], case.provider, **case.options())
    turn = accumulate(events)
    text, reasoning, calls, errors, finish = said(events)
    assert (turn.text, turn.reasoning, list(turn.calls), list(turn.errors), turn.finish_reason) == (
        text,
        reasoning,
        sorted(calls, key=lambda call: call.index),  # in the order the calls started
        errors,
        finish,
    )
    started = [e for e in events if type(e) is StreamStarted]
    if started:
        assert (turn.provider, turn.model, turn.response_id) == (
            started[0].provider,
            started[0].model,
            started[0].response_id,
        )
    for call in turn.calls:
        fragments = [e.arguments_delta for e in events if type(e) is ToolCallDelta and e.index == call.index]
        assert turn.raw_arguments[call.id] == "".join(fragments)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_one_byte_chunks_and_auto_give_the_same_turn(case: Case) -> None:
    whole = accumulate(feed_chunks([case.data()], case.provider, **case.options()))
    assert accumulate(feed_chunks(bytewise(case.data()), case.provider, **case.options())) == whole
    assert accumulate(feed_chunks(bytewise(case.data()), "auto", **case.options())) == whole


@pytest.mark.parametrize("case", CASES, ids=IDS)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_chunking_gives_the_same_turn(case: Case, data: st.DataObject) -> None:
    raw = case.data()
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=40))
    provider = data.draw(st.sampled_from([case.provider, "auto"]))
    whole = accumulate(feed_chunks([raw], case.provider, **case.options()))
    assert accumulate(feed_chunks(split_at(raw, cuts), provider, **case.options())) == whole


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_builder_holds_the_turn_so_far_at_every_event(case: Case) -> None:
    events = feed_chunks([case.data()], case.provider, **case.options())
    builder = TurnBuilder()
    for number, event in enumerate(events, 1):
        builder.add(event)
        if number % 3 == 0:  # read now and then: reading changes nothing
            assert builder.turn == accumulate(events[:number])
    assert builder.turn == builder.turn == accumulate(events)


# -- the turns of the reasoning recordings, part by part -------------------------------------------


def turn_of(path: str, provider: str | None = None) -> Turn:
    name = provider or path.split("/", maxsplit=1)[0]
    return accumulate(feed_chunks([(DATA / path).read_bytes()], name, id_factory=counter_ids()))


def test_anthropic_interleaved_thinking_stays_between_the_calls() -> None:
    turn = turn_of("anthropic/interleaved_thinking.sse")
    assert [type(part).__name__ for part in turn.parts] == [
        "ReasoningPart",
        "ToolCall",
        "ReasoningPart",
        "ReasoningPart",
        "ToolCall",
    ]
    first, weather, second, redacted, calendar = turn.parts
    assert isinstance(second, ReasoningPart)
    assert isinstance(weather, ToolCall)
    assert isinstance(calendar, ToolCall)
    assert first == ReasoningPart(
        "The user wants the weather in Paris and a packing list. First the forecast.",
        signature="EuYBCkQIBxgCIkDwY2hlY2stcGFyaXMtZm9yZWNhc3QtZmlyc3QSDHRoaW5raW5nLTAwMRoM",
        kind="thinking",
    )
    assert second.signature == "EpQCCkQIBxgCIkBzZWNvbmQtYmxvY2stYmV0d2Vlbi10b29sLXVzZXMSDHRoaW5raW5nLTAwMhoM"
    assert redacted == ReasoningPart(
        redacted="EmwKAhgBEgy3va3pzixRZWRhY3RlZC1ibG9jay1iZXR3ZWVuLWNhbGxz", kind="redacted_thinking"
    )
    assert (weather.name, calendar.name) == ("get_weather", "read_calendar")
    assert turn.raw_arguments[calendar.id] == '{"from": "2026-05-01",\n "to": "2026-05-03"}'
    assert (turn.provider, turn.model, turn.response_id) == (
        "anthropic",
        "claude-sonnet-4-5",
        "msg_01Inter1eaved7hink",
    )
    assert turn.finish_reason == "tool_calls"
    assert turn.errors == ()


def test_responses_summary_parts_share_their_item_and_the_last_carries_the_encrypted_content() -> None:
    turn = turn_of("openai-responses/reasoning_summaries_then_calls.sse")
    rs1, rs2 = "rs_68c1f0a3c4d5e6f70818293a4b5c6d7e", "rs_68c1f0a5e6f708190a18293a4b5c6d7e"
    thoughts = [part for part in turn.parts if type(part) is ReasoningPart]
    assert [(p.id, p.kind, p.text[:20], p.encrypted is not None) for p in thoughts] == [
        (rs1, "summary_text", "**Planning the trip*", False),
        (rs1, "summary_text", "**Choosing tools**\n\n", True),
        (rs2, None, "", True),
    ]
    assert [type(part).__name__ for part in turn.parts] == [
        "ReasoningPart",
        "ReasoningPart",
        "ToolCall",
        "ReasoningPart",
        "ToolCall",
    ]
    assert turn.raw_arguments["call_WxPar1s3Day5"] == '{"city": "Paris", "days": 3}'


def test_openrouter_details_keep_their_signature_format_and_encrypted_data() -> None:
    turn = turn_of("openai/openrouter_reasoning_details.sse")
    signed, encrypted, text, call = turn.parts
    assert isinstance(call, ToolCall)
    assert signed == ReasoningPart(
        "The user wants Paris weather; one call will do.",
        signature="EqQBCkgIBxgCKkAxb3BlbnJvdXRlci1jbGF1ZGUtdGhpbmtpbmctc2lnbmF0dXJlEgxvcC0wMDEaDA==",
        kind="reasoning.text",
        format="anthropic-claude-v1",
    )
    assert encrypted == ReasoningPart(
        encrypted="EmwKAhgBEgyRZWRhY3RlZC10aGlua2luZy12aWEtb3BlbnJvdXRlcg==",
        kind="reasoning.encrypted",
        format="anthropic-claude-v1",
    )
    assert text == TextPart("I'll check the forecast.")
    assert call.name == "get_weather"


def test_gemini_signatures_stay_on_their_parts() -> None:
    turn = turn_of("gemini/thought_signatures.sse")
    thought, text, weather, time, end = turn.parts
    assert isinstance(thought, ReasoningPart)
    assert isinstance(weather, ToolCall)
    assert isinstance(time, ToolCall)
    assert thought.kind == "thought"
    assert thought.signature == "CrIBAdHtim9Lbm8tdGhvdWdodC1ydW4tc2lnbmF0dXJlLW9uZQ=="
    assert text == TextPart("Checking both.")
    assert weather.thought_signature == "CpwCAdHtim9mdW5jdGlvbi1jYWxsLXNpZ25hdHVyZS1maXJzdA=="
    assert time.thought_signature is None
    assert end == TextPart("", "EtQBAdHtim90ZXh0LXBhcnQtc2lnbmF0dXJlLWF0LXRoZS1lbmQ=")
    assert turn.text == "Checking both."


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("openai/deepseek_reasoning_then_call.sse", "reasoning_content"),
        ("openai/groq_reasoning_then_call.sse", "reasoning"),
        ("ollama/thinking_then_call.ndjson", "thinking"),
        ("cohere/one_call.sse", "tool_plan"),
        ("bedrock/reasoning_then_call.bin", "reasoningText"),
    ],
)
def test_the_reasoning_comes_before_the_call_with_its_kind(path: str, kind: str) -> None:
    turn = turn_of(path)
    assert type(turn.parts[0]) is ReasoningPart
    assert turn.parts[0].kind == kind
    assert turn.parts[0].text
    assert type(turn.parts[-1]) is ToolCall


# -- errors, unfinished turns, events a turn does not hold -------------------------------------------


def test_an_error_turn_never_passes_for_an_answer() -> None:
    turn = turn_of("anthropic/error_midstream.sse")
    assert turn.errors
    assert any(type(error) is ProviderError for error in turn.errors)
    assert turn.finish_reason == "error"


def test_a_truncated_turn_has_its_failed_call_and_the_parse_error() -> None:
    turn = turn_of("openai/truncated.sse")
    assert [type(error) for error in turn.errors] == [ParseError, ToolCallFailed, ParseError]
    assert turn.calls == ()  # the cut call is in errors only
    assert turn.parts == (TextPart("Writing the file."),)
    assert turn.finish_reason == "error"


def test_a_stream_that_never_finished_has_no_finish_reason() -> None:
    data = (DATA / "anthropic/interleaved_thinking.sse").read_bytes()
    parser = streamcalls.StreamParser("anthropic")
    turn = accumulate(parser.feed(data[: len(data) // 2]))  # not closed: the stream goes on
    assert turn.finish_reason is None
    assert turn.usage is None
    assert turn.provider == "anthropic"


def test_events_a_turn_does_not_hold_are_ignored() -> None:
    builder = TurnBuilder()
    for item in (
        StreamStarted("openai"),
        TextDelta("Hi"),
        streamcalls.ToolCallPatch(0, "add", (), {}),
        streamcalls.ToolResult("c", "f", "x"),
        "not an event",
    ):
        builder.add(item)
    assert builder.turn == Turn((TextPart("Hi"),), provider="openai")


def test_bare_reasoning_deltas_are_one_block_and_blocks_do_not_merge() -> None:
    events: list[Any] = [
        ReasoningDelta("a"),
        ReasoningDelta("b"),  # bare (a text detector's): one block, up to the next other event
        TextDelta("t"),
        ReasoningDelta("c"),
        ReasoningStarted(kind="thinking"),  # an explicit block right after: a block of its own
        ReasoningDelta("d"),
        ReasoningCompleted(signature="s"),
        ReasoningStarted(kind="redacted_thinking"),
        ReasoningCompleted(redacted="r"),
        TextSignature("g"),  # a signature with no text before it: an empty signed text part
        ToolCallStarted(0, "c1", "f"),
        ToolCallDelta(0, "{}"),
        ToolCallCompleted(ToolCall("c1", "f", {}, 0)),
    ]
    assert accumulate(events).parts == (
        ReasoningPart("ab"),
        TextPart("t"),
        ReasoningPart("c"),
        ReasoningPart("d", signature="s", kind="thinking"),
        ReasoningPart(redacted="r", kind="redacted_thinking"),
        TextPart("", "g"),
        ToolCall("c1", "f", {}, 0),
    )


def test_a_call_keeps_the_place_where_it_started() -> None:
    events: list[Any] = [
        ToolCallStarted(0, "a", "f"),
        ToolCallStarted(1, "b", "g"),
        ToolCallDelta(1, "{}"),
        ToolCallCompleted(ToolCall("b", "g", {}, 1)),
        ToolCallDelta(0, '{"x": 1}'),
        ToolCallCompleted(ToolCall("a", "f", {"x": 1}, 0)),
    ]
    turn = accumulate(events)
    assert [call.id for call in turn.calls] == ["a", "b"]
    assert turn.raw_arguments == {"a": '{"x": 1}', "b": "{}"}


def test_the_reasoning_block_check_has_teeth() -> None:
    for bad in (
        [ReasoningStarted(), TextDelta("x"), ReasoningCompleted()],
        [ReasoningCompleted()],
        [ReasoningStarted(), ReasoningStarted()],
        [ReasoningStarted(), ReasoningDelta("x")],
        [TextDelta("x"), StreamStarted("openai")],
        [StreamStarted("openai"), StreamStarted("openai")],
    ):
        with pytest.raises(AssertionError):
            check_reasoning_blocks(bad)  # type: ignore[arg-type]
