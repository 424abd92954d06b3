"""OpenAI Responses adapter: behaviour the recorded corpus does not pin.

Exact-event checks for: when a call completes, feed_event parity with the
bytes, detection, the finish/usage table, and error handling.
"""

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

PROVIDER: Final = "openai-responses"
FIXTURES = DATA / PROVIDER


def sse(*events: dict[str, Any]) -> bytes:
    """An SSE body with ``event:`` names, as the Responses API sends it."""
    out = []
    for number, event in enumerate(events):
        payload = {"sequence_number": number, **event}
        out.append(f"event: {event['type']}\ndata: {json.dumps(payload)}\n\n")
    return "".join(out).encode()


def added(index: int, item_id: str, call_id: str, name: str) -> dict[str, Any]:
    item = {"id": item_id, "type": "function_call", "status": "in_progress", "arguments": ""}
    return {
        "type": "response.output_item.added",
        "output_index": index,
        "item": {**item, "call_id": call_id, "name": name},
    }


def delta(index: int, item_id: str, text: str) -> dict[str, Any]:
    return {
        "type": "response.function_call_arguments.delta",
        "item_id": item_id,
        "output_index": index,
        "delta": text,
    }


def args_done(index: int, item_id: str, arguments: str) -> dict[str, Any]:
    return {
        "type": "response.function_call_arguments.done",
        "item_id": item_id,
        "output_index": index,
        "arguments": arguments,
    }


def completed(**response: Any) -> dict[str, Any]:
    return {"type": "response.completed", "response": {"status": "completed", **response}}


def parse(data: bytes, provider: ProviderName = PROVIDER) -> list[Any]:
    return feed_chunks([data], provider)


# -- a call completes in the very feed that closes its arguments ---------------


def record_end(data: bytes, needle: bytes) -> int:
    """Offset just past the blank line ending the SSE event that holds ``needle``."""
    return data.index(b"\n\n", data.index(needle)) + 2


def test_call_completes_in_the_feed_of_its_closing_delta() -> None:
    data = (FIXTURES / "one_call.sse").read_bytes()
    end = record_end(data, b'"sequence_number":8')  # the delta that sends the last "}"
    parser = StreamParser(PROVIDER)
    before = parser.feed(data[: end - 1])
    at = parser.feed(data[end - 1 : end])
    assert not [e for e in before if type(e) is ToolCallCompleted]
    assert at == [
        ToolCallDelta(0, "}"),
        ToolCallCompleted(
            ToolCall("call_Xk2mQ9vLr7TfWp3sNc8Yh1Ad", "get_weather", {"city": "São Paulo", "unit": "c"})
        ),
    ]
    # .done, output_item.done and response.completed add only the end.
    rest = parser.feed(data[end:]) + parser.close()
    assert [type(e) for e in rest] == [StreamFinished]


def test_interleaved_parallel_calls_complete_separately() -> None:
    data = (FIXTURES / "parallel_interleaved.sse").read_bytes()
    paris_end = record_end(data, b'"sequence_number":5')
    tokyo_end = record_end(data, b'"sequence_number":6')
    parser = StreamParser(PROVIDER)
    first = parser.feed(data[:paris_end])
    second = parser.feed(data[paris_end:tokyo_end])
    assert first[-1] == ToolCallCompleted(
        ToolCall("call_Paris0fR9qLmZ2", "get_weather", {"city": "Paris"}, 0)
    )
    assert second == [
        ToolCallDelta(1, 'Tokyo"}'),
        ToolCallCompleted(ToolCall("call_Tokyo1gS0rMnA3", "get_time", {"tz": "Asia/Tokyo"}, 1)),
    ]


# -- feed_event with decoded events gives what the bytes give ------------------

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


class _SdkEvent:
    """Stands in for an openai SDK pydantic event: only ``model_dump`` is used."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def model_dump(self, mode: str = "python", exclude_unset: bool = False) -> dict[str, Any]:
        return self._data


def test_feed_event_takes_sdk_objects() -> None:
    path = FIXTURES / "parallel_interleaved.sse"
    parser = StreamParser("auto")
    events = []
    for payload in sse_payloads(path):
        events += parser.feed_event(_SdkEvent(payload))
    events += parser.close()
    assert events == read_events(path.with_suffix(".events.jsonl"))


# -- detection -----------------------------------------------------------------


def test_auto_detects_from_the_first_event() -> None:
    parser = StreamParser("auto")
    parser.feed(sse({"type": "response.created", "response": {"status": "in_progress"}}))
    assert parser.provider == PROVIDER


def test_auto_detects_a_stream_that_starts_with_an_error_event() -> None:
    data = sse({"type": "error", "code": "rate_limit_exceeded", "message": "Slow down", "param": None})
    parser = StreamParser("auto")
    events = parser.feed(data) + parser.close()
    assert parser.provider == PROVIDER
    assert events == [  # a stream that opens with an error never started: no StreamStarted
        ProviderError("Slow down", "rate_limit_exceeded"),
        StreamFinished("error"),
    ]


# -- finish reasons and usage ---------------------------------------------------

USAGE = {
    "input_tokens": 100,
    "input_tokens_details": {"cached_tokens": 60},
    "output_tokens": 40,
    "output_tokens_details": {"reasoning_tokens": 25},
    "total_tokens": 140,
}


@pytest.mark.parametrize(
    ("terminal", "reason", "provider_reason"),
    [
        (completed(), "stop", "completed"),
        (
            {
                "type": "response.incomplete",
                "response": {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}},
            },
            "length",
            "max_output_tokens",
        ),
        (
            {
                "type": "response.incomplete",
                "response": {"status": "incomplete", "incomplete_details": {"reason": "content_filter"}},
            },
            "content_filter",
            "content_filter",
        ),
        (
            {"type": "response.incomplete", "response": {"status": "incomplete", "incomplete_details": None}},
            "length",
            "incomplete",
        ),
    ],
)
def test_finish_reasons(terminal: dict[str, Any], reason: str, provider_reason: str) -> None:
    assert parse(sse(terminal)) == [StreamFinished(reason, None, provider_reason)]


def test_completed_after_a_call_reads_tool_calls_with_usage() -> None:
    data = sse(
        added(0, "fc_1", "call_1", "ping"),
        delta(0, "fc_1", "{}"),
        completed(usage=USAGE),
    )
    assert parse(data)[-1] == StreamFinished(
        "tool_calls",
        Usage(
            input_tokens=100,
            output_tokens=40,
            total_tokens=140,
            reasoning_tokens=25,
            cache_read_tokens=60,
        ),
        "completed",
    )


def test_failed_response_is_a_provider_error() -> None:
    failed = {
        "type": "response.failed",
        "response": {"status": "failed", "error": {"code": "server_error", "message": "Boom"}},
    }
    assert parse(sse(failed)) == [
        ProviderError("Boom", "server_error"),
        StreamFinished("error", None, "failed"),
    ]


def test_error_event_then_failed_reports_the_error_once() -> None:
    error = {"type": "error", "code": "server_error", "message": "Boom", "param": None}
    failed = {
        "type": "response.failed",
        "response": {"status": "failed", "error": {"code": "server_error", "message": "Boom"}},
    }
    assert parse(sse(error, failed)) == [
        ProviderError("Boom", "server_error"),
        StreamFinished("error", None, "failed"),
    ]


def test_error_keeps_completed_calls_and_fails_open_ones() -> None:
    data = sse(
        added(0, "fc_a", "call_a", "f"),
        delta(0, "fc_a", '{"x": 1}'),
        added(1, "fc_b", "call_b", "g"),
        delta(1, "fc_b", '{"y": '),
        {"type": "error", "error": {"type": "server_error", "message": "Overloaded", "param": None}},
    )
    assert parse(data) == [
        ToolCallStarted(0, "call_a", "f"),
        ToolCallDelta(0, '{"x": 1}'),
        ToolCallCompleted(ToolCall("call_a", "f", {"x": 1}, 0)),
        ToolCallStarted(1, "call_b", "g"),
        ToolCallDelta(1, '{"y": '),
        ToolCallFailed(1, "call_b", "g", '{"y": ', "interrupted by a provider error: Overloaded"),
        ProviderError("Overloaded", "server_error"),
        StreamFinished("error"),
    ]


# -- malformed input -------------------------------------------------------------


def test_malformed_payload_is_reported_and_later_calls_still_found() -> None:
    good = sse(added(0, "fc_1", "call_1", "f"), delta(0, "fc_1", '{"a": 1}'), completed())
    bad = b"event: response.output_text.delta\ndata: {not json\n\n"
    first, rest = good.split(b"event: response.function_call_arguments.delta")
    events = parse(first + bad + b"event: response.function_call_arguments.delta" + rest)
    assert type(events[1]) is ParseError
    assert events[1].message.startswith("OpenAI Responses event is not valid JSON")
    assert events[0] == ToolCallStarted(0, "call_1", "f")
    assert events[2:] == [
        ToolCallDelta(0, '{"a": 1}'),
        ToolCallCompleted(ToolCall("call_1", "f", {"a": 1}, 0)),
        StreamFinished("tool_calls", None, "completed"),
    ]


def test_deltas_disagreeing_with_done_fail_the_call() -> None:
    data = sse(
        added(0, "fc_1", "call_1", "f"),
        delta(0, "fc_1", '{"a": '),
        args_done(0, "fc_1", '{"b": 2}'),
        completed(),
    )
    assert parse(data)[2:] == [
        ToolCallFailed(
            0, "call_1", "f", '{"a": ', "streamed arguments differ from the arguments in the done event"
        ),
        StreamFinished("stop", None, "completed"),
    ]


def test_text_after_closed_arguments_is_reported_not_a_second_call() -> None:
    data = sse(added(0, "fc_1", "call_1", "f"), delta(0, "fc_1", '{"a": 1} {"b": 2}'), completed())
    assert parse(data) == [
        ToolCallStarted(0, "call_1", "f"),
        ToolCallDelta(0, '{"a": 1}'),
        ToolCallCompleted(ToolCall("call_1", "f", {"a": 1}, 0)),
        ParseError("text after the closed arguments of call 0 (id call_1); ignored", ' {"b": 2}'),
        StreamFinished("tool_calls", None, "completed"),
    ]


def test_deltas_of_an_item_never_named_fail_at_the_end() -> None:
    data = sse(delta(0, "fc_x", '{"a": 1}'), completed())
    assert parse(data) == [
        ToolCallStarted(0, "fc_x", ""),
        ToolCallDelta(0, '{"a": 1}'),
        ToolCallFailed(0, "fc_x", "", '{"a": 1}', "call has no name"),
        StreamFinished("stop", None, "completed"),
    ]


def test_done_sentinel_before_the_end_is_truncation() -> None:
    data = sse(added(0, "fc_1", "call_1", "f"), delta(0, "fc_1", '{"a": ')) + b"data: [DONE]\n\n"
    assert parse(data)[2:] == [
        ToolCallFailed(0, "call_1", "f", '{"a": ', "stream ended before the call completed"),
        ParseError("stream ended before response.completed (truncated)"),
        StreamFinished("error"),
    ]


def test_text_and_refusal_deltas_are_text() -> None:
    data = sse(
        {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "delta": "No: "},
        {"type": "response.refusal.delta", "item_id": "msg_1", "output_index": 0, "delta": "I can't."},
        completed(),
    )
    assert parse(data) == [
        TextDelta("No: "),
        TextDelta("I can't."),
        StreamFinished("stop", None, "completed"),
    ]


def test_reasoning_while_a_call_is_open_is_one_block_ended_by_the_calls_next_event() -> None:
    """A summary part that streams while a call's arguments are still coming (not what OpenAI sends,
    but what a writer may: the events' order allows it) is one block, ended where the call goes on;
    its item's done event brings its encrypted content, not its text again."""
    summary = {"type": "reasoning", "id": "rs_1", "summary": []}
    part = {"item_id": "rs_1", "output_index": 1, "summary_index": 0}
    text = {"type": "summary_text", "text": "ab"}
    data = sse(
        added(0, "fc_1", "call_1", "f"),
        {"type": "response.output_item.added", "output_index": 1, "item": summary},
        {
            "type": "response.reasoning_summary_part.added",
            **part,
            "part": {"type": "summary_text", "text": ""},
        },
        {"type": "response.reasoning_summary_text.delta", **part, "delta": "a"},
        {"type": "response.reasoning_summary_text.delta", **part, "delta": "b"},
        {
            "type": "response.output_item.done",
            "output_index": 1,
            "item": {**summary, "summary": [text], "encrypted_content": "E"},
        },
        delta(0, "fc_1", "{}"),
        args_done(0, "fc_1", "{}"),
        completed(),
    )
    events = parse(data)
    assert events == [
        ToolCallStarted(0, "call_1", "f"),
        ReasoningStarted("rs_1", "summary_text"),
        ReasoningDelta("a"),
        ReasoningDelta("b"),
        ReasoningCompleted(encrypted="E"),
        ToolCallDelta(0, "{}"),
        ToolCallCompleted(ToolCall("call_1", "f", {}, 0)),
        StreamFinished("tool_calls", None, "completed"),
    ]
