"""Cohere v2 chat adapter: behaviour the recorded corpus does not pin."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import pytest

from streamcalls import (
    ParseError,
    ProviderError,
    ProviderName,
    ReasoningCompleted,
    ReasoningDelta,
    ReasoningStarted,
    StreamFinished,
    StreamParser,
    StreamStarted,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallStarted,
    Usage,
)
from tests.support import DATA, counter_ids, normalize, read_events, sse_payloads
from tests.support import feed_content as feed_chunks

PROVIDER: Final = "cohere"
FIXTURES = DATA / PROVIDER

MESSAGE_START = {
    "id": "5e0c3f1a-9b7d-4e21-8c55-2f1d0a6b7c90",
    "type": "message-start",
    "delta": {
        "message": {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}
    },
}


def sse(*events: dict[str, Any], names: bool = True) -> bytes:
    out = []
    for event in events:
        name = f"event: {event['type']}\n" if names and "type" in event else ""
        out.append(f"{name}data: {json.dumps(event)}\n\n")
    return "".join(out).encode()


def start(index: int, call_id: str, name: str, arguments: str = "") -> dict[str, Any]:
    function = {"name": name, "arguments": arguments}
    tool_call = {"id": call_id, "type": "function", "function": function}
    return {"type": "tool-call-start", "index": index, "delta": {"message": {"tool_calls": tool_call}}}


def delta(index: int, arguments: str) -> dict[str, Any]:
    tool_call = {"function": {"arguments": arguments}}
    return {"type": "tool-call-delta", "index": index, "delta": {"message": {"tool_calls": tool_call}}}


def end(index: int) -> dict[str, Any]:
    return {"type": "tool-call-end", "index": index}


def message_end(finish_reason: str | None, **fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {**fields}
    if finish_reason is not None:
        body["finish_reason"] = finish_reason
    return {"type": "message-end", "delta": body}


def text(chunk: str) -> dict[str, Any]:
    return {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": chunk}}}}


def parse(data: bytes, provider: ProviderName = PROVIDER) -> list[Any]:
    return feed_chunks([data], provider)


# -- a call completes in the very feed that closes its arguments ------------------


def test_call_completes_in_the_feed_of_its_closing_delta_not_at_tool_call_end() -> None:
    data = (FIXTURES / "one_call.sse").read_bytes()
    closing = data.index(b'"arguments":"\\"}"')
    end_of_record = data.index(b"\n\n", closing) + 2
    parser = StreamParser(PROVIDER)
    before = parser.feed(data[: end_of_record - 1])
    at = parser.feed(data[end_of_record - 1 : end_of_record])
    assert not [e for e in before if type(e) is ToolCallCompleted]
    assert at == [
        ToolCallDelta(0, '"}'),
        ToolCallCompleted(ToolCall("weather_e8p4pn45zt0t", "weather", {"location": "San Francisco"}, 0)),
    ]
    rest = parser.feed(data[end_of_record:]) + parser.close()
    assert [type(e) for e in rest] == [StreamFinished]


def test_no_argument_tool_completes_at_tool_call_end() -> None:
    parser = StreamParser(PROVIDER)
    assert parser.feed(sse(MESSAGE_START, start(0, "now_1", "now"))) == [
        StreamStarted("cohere", None, "5e0c3f1a-9b7d-4e21-8c55-2f1d0a6b7c90"),
        ToolCallStarted(0, "now_1", "now"),
    ]
    assert parser.feed(sse(end(0))) == [ToolCallCompleted(ToolCall("now_1", "now", {}, 0))]


# -- feed_event with decoded events gives what the bytes give ----------------------

PARITY_CASES = sorted(p for p in FIXTURES.glob("*.sse") if p.stem != "truncated")


@pytest.mark.parametrize("path", PARITY_CASES, ids=[p.stem for p in PARITY_CASES])
@pytest.mark.parametrize("provider", [PROVIDER, "auto"])
def test_feed_event_dicts_give_the_same_events_as_bytes(path: Path, provider: ProviderName) -> None:
    parser = StreamParser(provider, id_factory=counter_ids())
    events = []
    for payload in sse_payloads(path):
        events += parser.feed_event(payload)
    events += parser.close()
    assert parser.provider == PROVIDER
    assert normalize(events) == normalize(read_events(path.with_suffix(".events.jsonl")))


# -- detection --------------------------------------------------------------------------


@pytest.mark.parametrize("names", [True, False])
def test_auto_detects_with_and_without_event_names(names: bool) -> None:
    parser = StreamParser("auto")
    parser.feed(sse(MESSAGE_START, names=names))
    assert parser.provider == PROVIDER


def test_event_name_stands_in_for_a_missing_type() -> None:
    data = b'event: content-delta\ndata: {"index":0,"delta":{"message":{"content":{"text":"hi"}}}}\n\n'
    data += sse(message_end("COMPLETE"))
    assert parse(data) == [TextDelta("hi"), StreamFinished("stop", None, "COMPLETE")]


# -- finish reasons and usage -------------------------------------------------------------


@pytest.mark.parametrize(
    ("finish_reason", "reason"),
    [
        ("COMPLETE", "stop"),
        ("STOP_SEQUENCE", "stop"),
        ("MAX_TOKENS", "length"),
        ("TOOL_CALL", "tool_calls"),
        ("SOMETHING_NEW", "stop"),
        (None, "stop"),
    ],
)
def test_finish_reasons(finish_reason: str | None, reason: str) -> None:
    assert parse(sse(MESSAGE_START, text("Hi"), message_end(finish_reason))) == [
        TextDelta("Hi"),
        StreamFinished(reason, None, finish_reason),
    ]


@pytest.mark.parametrize(
    ("finish_reason", "message"),
    [("ERROR", "the generation failed"), ("TIMEOUT", "the generation timed out")],
)
def test_error_finish_reasons_are_provider_errors(finish_reason: str, message: str) -> None:
    assert parse(sse(MESSAGE_START, message_end(finish_reason))) == [
        ProviderError(message, finish_reason),
        StreamFinished("error", None, finish_reason),
    ]


def test_complete_after_calls_reads_tool_calls() -> None:
    data = sse(MESSAGE_START, start(0, "f_1", "f"), end(0), message_end("COMPLETE"))
    assert parse(data)[-1] == StreamFinished("tool_calls", None, "COMPLETE")


def test_usage_prefers_tokens_and_keeps_cached_tokens() -> None:
    usage = {
        "billed_units": {"input_tokens": 8, "output_tokens": 12},
        "tokens": {"input_tokens": 1394, "output_tokens": 14},
        "cached_tokens": 1360,
    }
    assert parse(sse(message_end("COMPLETE", usage=usage))) == [
        StreamFinished(
            "stop",
            Usage(input_tokens=1394, output_tokens=14, total_tokens=1408, cache_read_tokens=1360),
            "COMPLETE",
        )
    ]


def test_usage_falls_back_to_billed_units() -> None:
    usage = {"billed_units": {"input_tokens": 8.0, "output_tokens": 12.0, "search_units": 1}}
    assert parse(sse(message_end("COMPLETE", usage=usage))) == [
        StreamFinished("stop", Usage(input_tokens=8, output_tokens=12, total_tokens=20), "COMPLETE")
    ]


# -- errors and malformed input -------------------------------------------------------------


def test_error_keeps_completed_calls_and_fails_open_ones() -> None:
    data = sse(
        MESSAGE_START,
        start(0, "a_1", "a"),
        delta(0, '{"x": 1}'),
        end(0),
        start(1, "b_2", "b"),
        delta(1, '{"y": '),
        message_end("ERROR", error="internal server error"),
    )
    assert parse(data) == [
        ToolCallStarted(0, "a_1", "a"),
        ToolCallDelta(0, '{"x": 1}'),
        ToolCallCompleted(ToolCall("a_1", "a", {"x": 1}, 0)),
        ToolCallStarted(1, "b_2", "b"),
        ToolCallDelta(1, '{"y": '),
        ToolCallFailed(1, "b_2", "b", '{"y": ', "interrupted by a provider error: internal server error"),
        ProviderError("internal server error", "ERROR"),
        StreamFinished("error", None, "ERROR"),
    ]


def test_error_body_in_the_stream_is_a_provider_error() -> None:
    data = sse(MESSAGE_START, text("Hi")) + b'data: {"message":"too many tokens: size limit exceeded"}\n\n'
    assert parse(data) == [
        TextDelta("Hi"),
        ProviderError("too many tokens: size limit exceeded"),
        StreamFinished("error"),
    ]


def test_malformed_payload_is_reported_and_later_calls_still_found() -> None:
    data = sse(MESSAGE_START) + b'event: content-delta\ndata: {"type":"content-delta",\n\n'
    data += sse(start(0, "f_1", "f"), delta(0, '{"k": "v"}'), end(0), message_end("TOOL_CALL"))
    events = parse(data)
    assert type(events[0]) is ParseError
    assert events[0].message.startswith("Cohere event is not valid JSON")
    assert events[1:] == [
        ToolCallStarted(0, "f_1", "f"),
        ToolCallDelta(0, '{"k": "v"}'),
        ToolCallCompleted(ToolCall("f_1", "f", {"k": "v"}, 0)),
        StreamFinished("tool_calls", None, "TOOL_CALL"),
    ]


def test_done_sentinel_before_message_end_is_truncation() -> None:
    data = sse(MESSAGE_START, start(0, "f_1", "f"), delta(0, '{"a": ')) + b"data: [DONE]\n\n"
    assert parse(data)[2:] == [
        ToolCallFailed(0, "f_1", "f", '{"a": ', "stream ended before the call completed"),
        ParseError("stream ended before message-end (truncated)"),
        StreamFinished("error"),
    ]


def test_events_after_message_end_are_reported_once() -> None:
    data = sse(MESSAGE_START, message_end("COMPLETE"), text("late"), text("later"))
    events = parse(data)
    assert events[0] == StreamFinished("stop", None, "COMPLETE")
    assert [type(e) for e in events[1:]] == [ParseError]


# -- call shapes --------------------------------------------------------------------------


def test_arguments_sent_with_tool_call_start_are_used() -> None:
    data = sse(MESSAGE_START, start(0, "f_1", "f", '{"whole": true}'), end(0), message_end("TOOL_CALL"))
    assert parse(data)[:3] == [
        ToolCallStarted(0, "f_1", "f"),
        ToolCallDelta(0, '{"whole": true}'),
        ToolCallCompleted(ToolCall("f_1", "f", {"whole": True}, 0)),
    ]


def test_parallel_calls_are_routed_by_index() -> None:
    data = sse(
        MESSAGE_START,
        start(0, "a_1", "a"),
        start(1, "b_2", "b"),
        delta(1, '{"b": '),
        delta(0, '{"a": 1}'),
        delta(1, "2}"),
        end(0),
        end(1),
        message_end("TOOL_CALL"),
    )
    completed = [e.call for e in parse(data) if type(e) is ToolCallCompleted]
    assert completed == [ToolCall("a_1", "a", {"a": 1}, 0), ToolCall("b_2", "b", {"b": 2}, 1)]


def test_tool_plan_and_thinking_are_reasoning() -> None:
    thinking = {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"thinking": "hmm"}}}}
    plan = {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "I will search."}}}
    assert parse(sse(MESSAGE_START, thinking, plan, text("ok"), message_end("COMPLETE"))) == [
        ReasoningStarted(kind="thinking"),
        ReasoningDelta("hmm"),
        ReasoningCompleted(),
        ReasoningStarted(kind="tool_plan"),
        ReasoningDelta("I will search."),
        ReasoningCompleted(),
        TextDelta("ok"),
        StreamFinished("stop", None, "COMPLETE"),
    ]


def test_delta_without_a_start_is_reported() -> None:
    data = sse(MESSAGE_START, delta(3, '{"a": 1}'), message_end("COMPLETE"))
    assert parse(data) == [
        ParseError("tool-call-delta for index 3, which has no open call; ignored", '{"a": 1}'),
        StreamFinished("stop", None, "COMPLETE"),
    ]
