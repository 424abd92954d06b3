"""StreamParser behaviour: when calls come out, bad input as events, limits, misuse."""

from __future__ import annotations

import json

import msgspec
import pytest

import streamcalls
from streamcalls import (
    Limits,
    MalformedStreamError,
    ParseError,
    ProviderError,
    StreamFinished,
    StreamParser,
    StreamStarted,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallStarted,
    UsageError,
)
from tests.support import counter_ids
from tests.support import feed_content as feed_chunks
from tests.support.streams import (
    ANTHROPIC_END,
    ANTHROPIC_START,
    anthropic_json,
    anthropic_stop,
    anthropic_tool_start,
    openai_args,
    openai_call_start,
    openai_chunk,
    openai_finish,
    sse,
)


def completed(events: list[streamcalls.Event]) -> list[ToolCall]:
    return [e.call for e in events if isinstance(e, ToolCallCompleted)]


def failed(events: list[streamcalls.Event]) -> list[ToolCallFailed]:
    return [e for e in events if isinstance(e, ToolCallFailed)]


# -- when a call comes out ----------------------------------------------------------------------


def test_openai_call_completes_in_the_feed_that_closes_its_arguments() -> None:
    parser = StreamParser("openai")
    assert [type(e) for e in parser.feed(openai_call_start(0, "c1", "f"))] == [StreamStarted, ToolCallStarted]
    assert [type(e) for e in parser.feed(openai_args(0, '{"a": [1, {"b"'))] == [ToolCallDelta]
    assert [type(e) for e in parser.feed(openai_args(0, ': "}"}'))] == [ToolCallDelta]
    events = parser.feed(openai_args(0, "]}"))
    assert [type(e) for e in events] == [ToolCallDelta, ToolCallCompleted]
    assert completed(events) == [ToolCall("c1", "f", {"a": [1, {"b": "}"}]}, 0, "native")]


def test_completion_waits_only_for_the_event_boundary() -> None:
    parser = StreamParser("openai")
    parser.feed(openai_call_start(0, "c1", "f"))
    closing = openai_args(0, '{"x": 1}')
    # The data line has arrived, but an SSE event may still get more data lines.
    assert parser.feed(closing[:-1]) == []
    assert completed(parser.feed(closing[-1:])) == [ToolCall("c1", "f", {"x": 1})]


def test_anthropic_call_completes_when_json_closes_before_block_stop() -> None:
    parser = StreamParser("anthropic")
    parser.feed(ANTHROPIC_START + anthropic_tool_start(0, "toolu_1", "f") + anthropic_json(0, '{"k": '))
    assert completed(parser.feed(anthropic_json(0, '"v"}'))) == [ToolCall("toolu_1", "f", {"k": "v"})]
    assert parser.feed(anthropic_stop(0)) == []


def test_a_number_is_never_complete_early() -> None:
    # A top-level scalar could still grow: only the end-of-call signal ends it (and it is no object).
    parser = StreamParser("openai")
    parser.feed(openai_call_start(0, "c1", "f", "12"))
    events = parser.feed(openai_finish())
    assert failed(events)[0].error == "arguments must be a JSON object, got a number"


def test_a_new_index_leaves_the_previous_call_open() -> None:
    # Parallel calls' fragments may interleave: a call without arguments yet may still get them.
    parser = StreamParser("openai")
    parser.feed(openai_call_start(0, "c1", "no_args"))
    assert completed(parser.feed(openai_call_start(1, "c2", "g"))) == []
    assert completed(parser.feed(openai_finish())) == [
        ToolCall("c1", "no_args", {}, 0),
        ToolCall("c2", "g", {}, 1),
    ]


# -- arguments ---------------------------------------------------------------------------------


def test_deltas_carry_raw_fragments_unchanged() -> None:
    fragments = ['{"city": "Z\\u00fcrich", ', '"note": "\u2028caf\u00e9 \\ud83d\\ude00"}']
    stream = openai_call_start(0, "c", "f") + b"".join(openai_args(0, f) for f in fragments) + openai_finish()
    events = feed_chunks([stream], "openai")
    assert [e.arguments_delta for e in events if isinstance(e, ToolCallDelta)] == fragments
    assert completed(events)[0].arguments == {"city": "Zürich", "note": "\u2028café 😀"}


def test_double_encoded_arguments_are_unwrapped() -> None:
    events = feed_chunks([openai_call_start(0, "c", "f", json.dumps('{"a": 1}')) + openai_finish()], "openai")
    assert completed(events)[0].arguments == {"a": 1}


def test_arguments_that_are_not_an_object_fail() -> None:
    events = feed_chunks([openai_call_start(0, "c", "f", "[1, 2]") + openai_finish()], "openai")
    assert failed(events)[0].error == "arguments must be a JSON object, got an array"
    assert failed(events)[0].raw == "[1, 2]"


def test_malformed_arguments_fail_with_the_raw_text() -> None:
    events = feed_chunks([openai_call_start(0, "c", "f", '{"a" 1}') + openai_finish()], "openai")
    failure = failed(events)[0]
    assert failure.raw == '{"a" 1}'
    assert failure.error.startswith("arguments are not valid JSON")
    assert events[-1] == StreamFinished("tool_calls", None, "tool_calls")


def test_arguments_as_an_object() -> None:
    chunk = openai_chunk({"tool_calls": [{"id": "m1", "function": {"name": "f", "arguments": {"a": [1]}}}]})
    events = feed_chunks([chunk + openai_finish()], "openai")
    assert completed(events) == [ToolCall("m1", "f", {"a": [1]})]


def test_generated_ids_use_the_factory() -> None:
    chunk = openai_chunk({"tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]})
    events = feed_chunks([chunk + openai_finish()], "openai", id_factory=lambda: "fixed")
    assert completed(events)[0].id == "fixed"
    default = feed_chunks([chunk + openai_finish()], "openai", id_factory=None)
    assert completed(default)[0].id.startswith("call_")
    assert len(completed(default)[0].id) == len("call_") + 24


def test_name_arriving_after_the_first_fragment() -> None:
    stream = (
        openai_chunk({"tool_calls": [{"index": 0, "id": "c", "function": {"arguments": '{"a":'}}]})
        + openai_chunk({"tool_calls": [{"index": 0, "function": {"name": "late", "arguments": " 1}"}}]})
        + openai_finish()
    )
    events = feed_chunks([stream], "openai")
    assert events[:3] == [ToolCallStarted(0, "c", "late"), ToolCallDelta(0, '{"a":'), ToolCallDelta(0, " 1}")]
    assert completed(events) == [ToolCall("c", "late", {"a": 1})]


def test_a_call_that_never_gets_a_name_fails() -> None:
    stream = (
        openai_chunk({"tool_calls": [{"index": 0, "id": "c", "function": {"arguments": "{}"}}]})
        + openai_finish()
    )
    events = feed_chunks([stream], "openai")
    assert events[0] == ToolCallStarted(0, "c", "")
    assert failed(events)[0].error == "call has no name"


# -- bad input is an event, and parsing goes on ---------------------------------------------


def test_malformed_payload_then_later_calls_are_still_found() -> None:
    stream = b"data: {not json\n\n" + openai_call_start(0, "c", "f", "{}") + openai_finish()
    events = feed_chunks([stream], "openai")
    assert isinstance(events[0], ParseError)
    assert "not valid JSON" in events[0].message
    assert events[0].raw == "{not json"
    assert completed(events) == [ToolCall("c", "f", {})]


def test_payload_of_the_wrong_shape_is_a_parse_error() -> None:
    events = feed_chunks([sse(["choices", "nope"]) + openai_finish("stop")], "openai")
    assert isinstance(events[0], ParseError)
    assert "unexpected shape" in events[0].message


def test_unknown_event_types_are_ignored() -> None:
    stream = ANTHROPIC_START + sse({"type": "future_event", "x": 1}, "future_event") + ANTHROPIC_END
    usage = streamcalls.Usage(1, 5, 6)
    assert feed_chunks([stream], "anthropic") == [StreamFinished("tool_calls", usage, "tool_use")]


def test_invalid_utf8_option_is_checked() -> None:
    with pytest.raises(UsageError, match="invalid_utf8"):
        StreamParser("text", invalid_utf8="ignore")


def test_nul_bytes_are_text_or_reported_never_a_crash() -> None:
    text = feed_chunks([b"a\x00b"], "text", detect=())
    assert text[0] == TextDelta("a\x00b")
    events = feed_chunks([b"data: {\x00}\n\n" + openai_finish("stop")], "openai")
    assert isinstance(events[0], ParseError)
    assert events[-1] == StreamFinished("stop", None, "stop")


def test_deeply_nested_arguments_fail_fast_without_recursion_error() -> None:
    deep = "[" * 100_000
    stream = (
        openai_call_start(0, "c", "f", '{"a": ')
        + openai_args(0, deep)
        + openai_args(0, "]" * 100_000 + "}")
        + openai_call_start(1, "d", "g", '{"ok": true}')
        + openai_finish()
    )
    events = feed_chunks([stream], "openai")
    assert failed(events)[0].error == "arguments nest deeper than max_json_depth=512"
    assert completed(events) == [ToolCall("d", "g", {"ok": True}, 1)]


def test_deep_nesting_inside_a_payload_is_a_parse_error() -> None:
    payload = b'{"choices": [], "junk": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    events = feed_chunks([b"data: " + payload + b"\n\n" + openai_finish("stop")], "openai")
    assert isinstance(events[0], ParseError)
    assert "nests too deeply" in events[0].message


def test_tens_of_megabytes_of_arguments_complete() -> None:
    body = "x" * (24 * 1024 * 1024)
    text = json.dumps({"path": "big.bin", "body": body})
    pieces = [text[i : i + 65536] for i in range(0, len(text), 65536)]
    stream = [ANTHROPIC_START, anthropic_tool_start(0, "toolu_big", "write")]
    stream += [anthropic_json(0, piece) for piece in pieces]
    stream += [anthropic_stop(0), ANTHROPIC_END]
    calls = completed(feed_chunks(stream, "anthropic"))
    assert len(calls) == 1
    assert len(calls[0].arguments["body"]) == len(body)


def test_the_arguments_limit_fails_the_call_by_name() -> None:
    stream = openai_call_start(0, "c", "f", '{"a": "' + "x" * 200) + openai_args(0, '"}') + openai_finish()
    events = feed_chunks([stream], "openai", limits=Limits(max_arguments_bytes=100))
    assert failed(events)[0].error == "arguments exceed max_arguments_bytes=100"
    assert not completed(events)


def test_the_stream_wide_limit_on_open_calls_arguments() -> None:
    # Two calls open at once (blocks interleaved): each is under max_arguments_bytes,
    # together they pass max_buffered_bytes, and the call that breaks it fails by name.
    stream = [
        ANTHROPIC_START,
        anthropic_tool_start(0, "toolu_a", "f"),
        anthropic_tool_start(1, "toolu_b", "g"),
        anthropic_json(0, '{"x": "' + "a" * 60),
        anthropic_json(1, '{"y": "' + "b" * 60),
        anthropic_json(0, '"}'),
        anthropic_stop(0),
        anthropic_stop(1),
        ANTHROPIC_END,
    ]
    limits = Limits(max_arguments_bytes=100, max_buffered_bytes=100)
    events = feed_chunks(stream, "anthropic", limits=limits)
    assert failed(events)[0].name == "g"
    assert failed(events)[0].error == "the open calls' arguments together exceed max_buffered_bytes=100"
    assert [c.name for c in completed(events)] == ["f"]


def test_the_call_count_limit() -> None:
    stream = b"".join(openai_call_start(i, f"c{i}", "f", "{}") for i in range(5)) + openai_finish()
    events = feed_chunks([stream], "openai", limits=Limits(max_calls=3))
    assert len(completed(events)) == 3
    assert len(failed(events)) == 1
    assert "max_calls=3" in failed(events)[0].error


def test_data_after_the_end_is_reported_once() -> None:
    events = feed_chunks([openai_finish("stop") + openai_chunk({"content": "late"}) * 2], "openai")
    assert events[0] == StreamFinished("stop", None, "stop")
    assert [type(e) for e in events[1:]] == [ParseError]


def test_provider_error_keeps_completed_calls() -> None:
    stream = openai_call_start(0, "c", "f", "{}") + sse({"error": {"message": "boom", "code": 500}})
    events = feed_chunks([stream], "openai")
    assert completed(events) == [ToolCall("c", "f", {})]
    assert ProviderError("boom", "500") in events
    assert events[-1] == StreamFinished("error", None, None)


def test_stream_without_done_but_with_a_finish_reason_ends_normally() -> None:
    stream = openai_call_start(0, "c", "f", "{}") + openai_chunk({}, "tool_calls")
    events = feed_chunks([stream], "openai")
    assert events[-1] == StreamFinished("tool_calls", None, "tool_calls")
    assert not any(isinstance(e, ParseError) for e in events)


# -- misuse raises; strict mode --------------------------------------------------------------


def test_unknown_provider_raises() -> None:
    with pytest.raises(UsageError, match="unknown provider 'nope'"):
        StreamParser("nope")  # type: ignore[arg-type]  # the run-time check, which mypy pre-empts


def test_feed_after_close_raises_and_close_is_idempotent() -> None:
    parser = StreamParser("openai")
    parser.feed(openai_finish("stop"))
    assert parser.close() == []
    assert parser.close() == []
    assert parser.state is streamcalls.ParserState.CLOSED
    with pytest.raises(UsageError, match="after close"):
        parser.feed(b"data: x\n\n")


def test_feed_takes_only_bytes_or_str() -> None:
    with pytest.raises(UsageError, match="not int"):
        StreamParser("openai").feed(3)  # type: ignore[arg-type]


def test_str_chunks_equal_bytes_chunks() -> None:
    stream = openai_chunk({"content": "héllo"}) + openai_finish("stop")
    assert feed_chunks([stream.decode()], "openai") == feed_chunks([stream], "openai")  # type: ignore[list-item]


def test_strict_mode_raises_with_the_events_before() -> None:
    parser = StreamParser("openai", strict=True)
    with pytest.raises(MalformedStreamError) as info:
        parser.feed(openai_chunk({"content": "ok"}) + b"data: {bad\n\n")
    assert info.value.events == [StreamStarted("openai", "m", "chatcmpl-t"), TextDelta("ok")]
    assert "not valid JSON" in info.value.error.message


def test_parse_accepts_bytes_str_and_iterables() -> None:
    stream = openai_chunk({"content": "hi"}) + openai_finish("stop")
    expected = [
        StreamStarted("openai", "m", "chatcmpl-t"),
        TextDelta("hi"),
        StreamFinished("stop", None, "stop"),
    ]
    assert streamcalls.parse(stream) == expected
    assert streamcalls.parse(stream.decode()) == expected
    assert streamcalls.parse([stream[:7], stream[7:]]) == expected
    assert list(streamcalls.parse_iter(iter([stream]), "openai")) == expected


# -- events ------------------------------------------------------------------------------------


def test_events_encode_as_tagged_json_lines_and_decode_back() -> None:
    events = feed_chunks([openai_call_start(0, "c", "f", '{"a": 1}') + openai_finish()], "openai")
    lines = [msgspec.json.encode(e) for e in events]
    assert json.loads(lines[0]) == {"type": "tool_call_started", "index": 0, "id": "c", "name": "f"}
    assert [msgspec.json.decode(line, type=streamcalls.Event) for line in lines] == events


def test_arguments_json_is_canonical_compact_json() -> None:
    assert ToolCall("c", "f", {"b": [1, 2], "a": "é"}).arguments_json == '{"b":[1,2],"a":"é"}'


def test_events_are_frozen() -> None:
    with pytest.raises(AttributeError):
        TextDelta("x").text = "y"  # type: ignore[misc]


def test_ids_are_deterministic_with_a_counter() -> None:
    factory = counter_ids()
    assert [factory(), factory()] == ["call_gen_0", "call_gen_1"]
