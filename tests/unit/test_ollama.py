"""Ollama adapter: behaviour the recorded corpus does not pin."""

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
from tests.support import DATA, counter_ids, normalize, read_events
from tests.support import feed_content as feed_chunks

PROVIDER: Final = "ollama"
FIXTURES = DATA / PROVIDER


def line(message: dict[str, Any] | None = None, **fields: Any) -> bytes:
    obj: dict[str, Any] = {"model": "qwen3:8b", "created_at": "2025-10-14T09:12:01.402117Z"}
    if message is not None:
        obj["message"] = {"role": "assistant", "content": "", **message}
    obj.update(fields)
    obj.setdefault("done", False)
    return json.dumps(obj).encode() + b"\n"


def done(reason: str | None = "stop", **fields: Any) -> bytes:
    if reason is not None:
        fields["done_reason"] = reason
    return line({}, done=True, **fields)


def call(name: str, arguments: Any, call_id: str | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"function": {"index": 0, "name": name, "arguments": arguments}}
    if call_id is not None:
        entry["id"] = call_id
    return entry


def parse(data: bytes, provider: ProviderName = PROVIDER) -> list[Any]:
    return feed_chunks([data], provider)


# -- a call completes in the very feed that ends its line -------------------------


def test_call_completes_in_the_feed_that_ends_its_line() -> None:
    data = line({"tool_calls": [call("get_time", {"tz": "UTC"}, "call_abcd1234")]})
    parser = StreamParser(PROVIDER)
    assert parser.feed(data[:-1]) == []  # the line is not complete before its newline
    assert parser.feed(data[-1:]) == [
        StreamStarted("ollama", "qwen3:8b"),
        ToolCallStarted(0, "call_abcd1234", "get_time"),
        ToolCallDelta(0, '{"tz":"UTC"}'),
        ToolCallCompleted(ToolCall("call_abcd1234", "get_time", {"tz": "UTC"}, 0)),
    ]
    assert parser.feed(done(prompt_eval_count=5, eval_count=7)) == [
        StreamFinished("tool_calls", Usage(input_tokens=5, output_tokens=7, total_tokens=12), "stop")
    ]
    assert parser.close() == []


def test_calls_in_one_line_complete_together_in_that_feed() -> None:
    data = line({"tool_calls": [call("a", {"x": 1}), call("b", {"y": 2})]})
    parser = StreamParser(PROVIDER, id_factory=counter_ids())
    events = parser.feed(data)
    assert [e for e in events if type(e) is ToolCallCompleted] == [
        ToolCallCompleted(ToolCall("call_gen_0", "a", {"x": 1}, 0)),
        ToolCallCompleted(ToolCall("call_gen_1", "b", {"y": 2}, 1)),
    ]


# -- feed_event with decoded lines gives what the bytes give -----------------------

# Recordings with NAME.options.json expect events for those options (invalid_utf8="report" is about bytes).
PARITY_CASES = sorted(
    p
    for p in FIXTURES.glob("*.ndjson")
    if p.stem != "truncated" and not p.with_suffix(".options.json").exists()
)


@pytest.mark.parametrize("path", PARITY_CASES, ids=[p.stem for p in PARITY_CASES])
@pytest.mark.parametrize("provider", [PROVIDER, "auto"])
def test_feed_event_dicts_give_the_same_events_as_bytes(path: Path, provider: ProviderName) -> None:
    parser = StreamParser(provider, id_factory=counter_ids())
    events = []
    for text in path.read_text(encoding="utf-8").splitlines():
        events += parser.feed_event(json.loads(text))
    events += parser.close()
    assert parser.provider == PROVIDER
    assert normalize(events) == normalize(read_events(path.with_suffix(".events.jsonl")))


# -- detection -----------------------------------------------------------------------


def test_auto_detects_ollama_from_the_first_line() -> None:
    parser = StreamParser("auto")
    parser.feed(line({"content": "Hi"}))
    assert parser.provider == PROVIDER


def test_auto_takes_a_first_error_line_for_ollama() -> None:
    parser = StreamParser("auto")
    events = parser.feed(b'{"error":"model \\"nope\\" not found, try pulling it first"}\n') + parser.close()
    assert parser.provider == PROVIDER
    assert events == [
        ProviderError('model "nope" not found, try pulling it first'),
        StreamFinished("error"),
    ]


# -- finish reasons and usage ---------------------------------------------------------


@pytest.mark.parametrize(
    ("done_reason", "reason"),
    [
        ("stop", "stop"),
        ("length", "length"),
        ("load", "stop"),
        ("unload", "stop"),
        (None, "stop"),  # older servers, and a closed connection, send none
        ("something_new", "stop"),
    ],
)
def test_done_reasons(done_reason: str | None, reason: str) -> None:
    assert parse(line({"content": "Hi"}) + done(done_reason)) == [
        TextDelta("Hi"),
        StreamFinished(reason, None, done_reason),
    ]


def test_stop_after_calls_reads_tool_calls() -> None:
    data = line({"tool_calls": [call("f", {})]}) + done("stop", prompt_eval_count=10, eval_count=3)
    assert parse(data)[-1] == StreamFinished(
        "tool_calls", Usage(input_tokens=10, output_tokens=3, total_tokens=13), "stop"
    )


def test_length_after_a_call_keeps_length() -> None:
    data = line({"tool_calls": [call("f", {"a": 1})]}) + done("length")
    assert parse(data)[-1] == StreamFinished("length", None, "length")


def test_usage_with_only_one_count() -> None:
    assert parse(done("stop", eval_count=4)) == [
        StreamFinished("stop", Usage(output_tokens=4, total_tokens=4), "stop")
    ]


# -- errors and malformed input ---------------------------------------------------------


def test_error_line_keeps_earlier_calls_and_ends_in_error() -> None:
    data = line({"tool_calls": [call("f", {"a": 1}, "call_1")]}) + b'{"error":"out of memory"}\n'
    assert parse(data) == [
        ToolCallStarted(0, "call_1", "f"),
        ToolCallDelta(0, '{"a":1}'),
        ToolCallCompleted(ToolCall("call_1", "f", {"a": 1}, 0)),
        ProviderError("out of memory"),
        StreamFinished("error"),
    ]


def test_error_object_gives_message_and_code() -> None:
    data = line({"content": "x"}) + b'{"error":{"message":"upstream timeout","code":"502"}}\n'
    assert parse(data)[1:] == [ProviderError("upstream timeout", "502"), StreamFinished("error")]


def test_malformed_line_is_reported_and_later_calls_still_found() -> None:
    data = line({"content": "a"}) + b'{"model":"qwen3:8b","message":{"content":\n'
    data += line({"tool_calls": [call("f", {"k": "v"}, "call_9")]}) + done()
    events = parse(data)
    assert events[0] == TextDelta("a")
    assert type(events[1]) is ParseError
    assert events[1].message.startswith("Ollama line is not valid JSON")
    assert events[2:] == [
        ToolCallStarted(0, "call_9", "f"),
        ToolCallDelta(0, '{"k":"v"}'),
        ToolCallCompleted(ToolCall("call_9", "f", {"k": "v"}, 0)),
        StreamFinished("tool_calls", None, "stop"),
    ]


def test_wrongly_typed_value_is_a_parse_error_and_the_rest_of_its_line_is_read() -> None:
    data = b'{"message":{"content":["not","text"],"thinking":"hm"},"done":false}\n' + done()
    events = parse(data)
    assert type(events[0]) is ParseError
    assert "$.message.content" in events[0].message
    assert events[1:] == [
        ReasoningStarted(kind="thinking"),
        ReasoningDelta("hm"),
        ReasoningCompleted(),
        StreamFinished("stop", None, "stop"),
    ]


def test_a_line_of_the_wrong_shape_is_a_parse_error() -> None:
    data = b'["not", "a", "line"]\n' + done()
    events = parse(data)
    assert type(events[0]) is ParseError
    assert "unexpected shape" in events[0].message
    assert events[1:] == [StreamFinished("stop", None, "stop")]


def test_lines_after_done_are_reported_once() -> None:
    data = done() + line({"content": "late"}) + line({"content": "later"})
    events = parse(data)
    assert events[0] == StreamFinished("stop", None, "stop")
    assert [type(e) for e in events[1:]] == [ParseError]
    assert events[1].message == "data after the end of the stream; ignored"


# -- call shapes ------------------------------------------------------------------------


def test_arguments_as_a_json_string_are_decoded() -> None:
    data = line({"tool_calls": [call("f", '{"a": [1, 2]}', "call_s")]}) + done()
    assert parse(data)[:3] == [
        ToolCallStarted(0, "call_s", "f"),
        ToolCallDelta(0, '{"a": [1, 2]}'),
        ToolCallCompleted(ToolCall("call_s", "f", {"a": [1, 2]}, 0)),
    ]


def test_missing_arguments_are_an_empty_object() -> None:
    data = line({"tool_calls": [{"function": {"name": "now"}}]}) + done()
    assert parse(data)[2] == ToolCallCompleted(ToolCall("call_gen_0", "now", {}, 0))


def test_non_object_arguments_fail_the_call() -> None:
    data = line({"tool_calls": [call("f", [1, 2], "call_l")]}) + done()
    assert parse(data) == [
        ToolCallStarted(0, "call_l", "f"),
        ToolCallDelta(0, "[1,2]"),
        ToolCallFailed(0, "call_l", "f", "[1,2]", "arguments must be a JSON object, got an array"),
        StreamFinished("stop", None, "stop"),
    ]


def test_thinking_content_and_calls_in_one_line_keep_their_order() -> None:
    data = line({"thinking": "hmm", "content": "Let me check.", "tool_calls": [call("f", {}, "call_o")]})
    assert parse(data + done())[:5] == [
        ReasoningStarted(kind="thinking"),
        ReasoningDelta("hmm"),
        ReasoningCompleted(),
        TextDelta("Let me check."),
        ToolCallStarted(0, "call_o", "f"),
    ]


def test_generate_endpoint_lines_are_read_too() -> None:
    head = b'{"model":"qwen3:8b","created_at":"2025-10-26T17:15:24Z",'
    data = head + b'"thinking":"2+2","response":"","done":false}\n'
    data += head + b'"response":"4","done":false}\n'
    data += head + b'"response":"","done":true,"done_reason":"stop"}\n'
    assert parse(data, "auto") == [
        ReasoningStarted(kind="thinking"),
        ReasoningDelta("2+2"),
        ReasoningCompleted(),
        TextDelta("4"),
        StreamFinished("stop", None, "stop"),
    ]


def test_last_line_without_newline_is_read() -> None:
    data = line({"content": "Hi"}) + done()[:-1]
    assert parse(data) == [TextDelta("Hi"), StreamFinished("stop", None, "stop")]
