"""Bedrock ConverseStream: bytes and boto3's decoded events, stop and usage tables, end rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcalls import (
    Event,
    ParseError,
    ProviderError,
    ProviderName,
    ReasoningCompleted,
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
from tests.support import after_start, bytewise, split_at
from tests.support import feed_content as feed_chunks
from tests.support.eventstream import BEDROCK, frame, message, sources


def specs(path: Path) -> list[dict[str, Any]]:
    return [msgspec.json.decode(line) for line in path.read_bytes().splitlines() if line.strip()]


def encode(*specs: dict[str, Any]) -> bytes:
    return b"".join(frame(spec) for spec in specs)


def ev(name: str, **payload: Any) -> dict[str, Any]:
    return {"event": name, "payload": payload}


def events(data: bytes, provider: ProviderName = "bedrock") -> list[Event]:
    return feed_chunks([data], provider)


START = ev("messageStart", role="assistant")
TOOL = ev("contentBlockStart", contentBlockIndex=0, start={"toolUse": {"toolUseId": "t1", "name": "f"}})
STOP = ev("messageStop", stopReason="end_turn")
META = ev("metadata", usage={"inputTokens": 3, "outputTokens": 4, "totalTokens": 7}, metrics={"latencyMs": 9})
USAGE = Usage(input_tokens=3, output_tokens=4, total_tokens=7)


def tool_input(text: Any, index: int = 0) -> dict[str, Any]:
    return ev("contentBlockDelta", contentBlockIndex=index, delta={"toolUse": {"input": text}})


def text(value: str, index: int = 0) -> dict[str, Any]:
    return ev("contentBlockDelta", contentBlockIndex=index, delta={"text": value})


# -- decoded events (boto3) ---------------------------------------------------------


def decoded(spec: dict[str, Any]) -> dict[str, Any]:
    """What boto3 yields for a message: {event type: payload}."""
    name = spec.get("event") or spec["exception"]
    return {name: spec["payload"]}


CLEAN = [s for s in sources() if not any({"corrupt", "cut", "error"} & set(x) for x in specs(s))]


@pytest.mark.parametrize("source", CLEAN, ids=[s.name for s in CLEAN])
@pytest.mark.parametrize("provider", ["bedrock", "auto"])
def test_feed_event_with_boto3_dicts_gives_the_same_events_as_bytes(
    source: Path, provider: ProviderName
) -> None:
    data = (BEDROCK / source.name.replace(".frames.jsonl", ".bin")).read_bytes()
    parser = StreamParser(provider, id_factory=lambda: "unused")
    got: list[Event] = []
    for spec in specs(source):
        got += parser.feed_event(decoded(spec))
    got += parser.close()
    assert parser.provider == "bedrock"
    assert after_start(got) == feed_chunks([data], "bedrock")
    if type(got[0]) is not ProviderError:  # a stream that opens with an error never started
        assert got[0] == StreamStarted("bedrock")


def test_clean_fixtures_cover_calls_text_reasoning_and_errors() -> None:
    assert len(CLEAN) >= 9


def test_a_decoded_event_that_is_not_a_dict() -> None:
    parser = StreamParser("bedrock")
    assert parser.feed_event(["messageStart"]) == [
        ParseError("a Bedrock event is a dict with one key, the event type", "['messageStart']")
    ]


# -- calls -----------------------------------------------------------------------


def test_a_call_completes_in_the_feed_of_the_frame_that_closes_its_json() -> None:
    frames = [frame(spec) for spec in specs(BEDROCK / "one_call.frames.jsonl")]
    closing = next(i for i, f in enumerate(frames) if b'heit\\"}' in f)
    last_byte = sum(len(f) for f in frames[: closing + 1]) - 1
    parser = StreamParser("bedrock")
    for i, byte in enumerate(bytewise(b"".join(frames))):
        if any(type(e) is ToolCallCompleted for e in parser.feed(byte)):
            assert i == last_byte
            return
    raise AssertionError("no call completed")


def test_input_as_an_object_and_a_call_without_stop() -> None:
    got = events(encode(START, TOOL, tool_input({"a": 1}), STOP, META))
    assert got == [
        ToolCallStarted(0, "t1", "f"),
        ToolCallDelta(0, '{"a":1}'),
        ToolCallCompleted(ToolCall("t1", "f", {"a": 1}, 0)),
        StreamFinished("tool_calls", USAGE, "end_turn"),
    ]


def test_calls_left_open_end_at_message_stop() -> None:
    got = events(encode(START, TOOL, tool_input('{"a": '), tool_input("1}  "), STOP, META))
    assert got[-2:] == [
        ToolCallCompleted(ToolCall("t1", "f", {"a": 1}, 0)),
        StreamFinished("tool_calls", USAGE, "end_turn"),
    ]
    got = events(encode(START, TOOL, STOP, META))  # no input at all: a tool without parameters
    assert got[-2:] == [
        ToolCallCompleted(ToolCall("t1", "f", {}, 0)),
        StreamFinished("tool_calls", USAGE, "end_turn"),
    ]


def test_input_for_a_block_that_started_no_tool() -> None:
    got = events(encode(START, tool_input('{"a": 1}', index=4), STOP, META))
    assert got == [
        ParseError("tool input for content block 4, which started no tool use; ignored"),
        StreamFinished("stop", USAGE, "end_turn"),
    ]


def test_redacted_content_that_is_not_base64_is_reported() -> None:
    """A blob's JSON form is base64: other text is no blob's (a writer could not send it back), so it
    is reported and left out -- in a stream and in a complete response alike."""

    def redacted(value: str, index: int) -> dict[str, Any]:
        delta = {"reasoningContent": {"redactedContent": value}}
        return ev("contentBlockDelta", contentBlockIndex=index, delta=delta)

    def stop(index: int) -> dict[str, Any]:
        return ev("contentBlockStop", contentBlockIndex=index)

    got = events(
        encode(START, redacted("AAEC", 0), stop(0), redacted("AAE", 1), stop(1), text("hi", 2), STOP, META)
    )
    assert got == [
        ReasoningStarted(kind="redactedContent"),
        ReasoningCompleted(redacted="AAEC"),
        ParseError("redactedContent of content block 1 is not base64; ignored", "AAE"),
        ReasoningStarted(kind="reasoningText"),
        ReasoningCompleted(),
        TextDelta("hi"),
        StreamFinished("stop", USAGE, "end_turn"),
    ]
    content = [{"reasoningContent": {"redactedContent": value}} for value in ("AAEC", "AAE")] + [
        {"text": "hi"}
    ]
    body = {"output": {"message": {"role": "assistant", "content": content}}, "stopReason": "end_turn"}
    parser = StreamParser("bedrock")
    got = parser.feed(msgspec.json.encode(body)) + parser.close()
    assert got[1:] == [
        ParseError("a reasoning block's redactedContent is not base64; ignored", "AAE"),
        ReasoningStarted(kind="redactedContent"),
        ReasoningCompleted(redacted="AAEC"),
        TextDelta("hi"),
        StreamFinished("stop", None, "end_turn"),
    ]


# -- the end --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reason", "normalized"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("tool_use", "tool_calls"),
        ("max_tokens", "length"),
        ("model_context_window_exceeded", "length"),
        ("guardrail_intervened", "content_filter"),
        ("content_filtered", "content_filter"),
        ("malformed_model_output", "error"),
        ("malformed_tool_use", "error"),
        ("something_new", "stop"),
    ],
)
def test_stop_reasons(reason: str, normalized: str) -> None:
    got = events(encode(START, text("x"), ev("messageStop", stopReason=reason), META))
    assert got[-1] == StreamFinished(normalized, USAGE, reason)


def test_usage_includes_cache_reads_and_writes_in_the_input() -> None:
    meta = ev(
        "metadata",
        usage={
            "inputTokens": 10,
            "outputTokens": 5,
            "totalTokens": 165,
            "cacheReadInputTokens": 100,
            "cacheWriteInputTokens": 50,
        },
    )
    assert events(encode(START, STOP, meta))[-1] == StreamFinished(
        "stop",
        Usage(
            input_tokens=160, output_tokens=5, total_tokens=165, cache_read_tokens=100, cache_write_tokens=50
        ),
        "end_turn",
    )


def test_metadata_before_or_after_message_stop_finishes_once_both_came() -> None:
    before = StreamParser("bedrock")
    assert before.feed(encode(START, META)) == [StreamStarted("bedrock")]
    assert before.feed(encode(STOP)) == [StreamFinished("stop", USAGE, "end_turn")]
    after = StreamParser("bedrock")
    assert after.feed(encode(START, STOP)) == [StreamStarted("bedrock")]
    assert after.feed(encode(META)) == [StreamFinished("stop", USAGE, "end_turn")]
    assert after.close() == []


def test_metadata_without_usage_still_counts_as_metadata() -> None:
    parser = StreamParser("bedrock")
    assert parser.feed(encode(START, ev("metadata", metrics={"latencyMs": 1}))) == [StreamStarted("bedrock")]
    assert parser.feed(encode(STOP)) == [StreamFinished("stop", None, "end_turn")]


def test_no_metadata_finishes_at_close_without_usage() -> None:
    parser = StreamParser("bedrock")
    assert parser.feed(encode(START, text("a"), STOP)) == [StreamStarted("bedrock"), TextDelta("a")]
    assert parser.close() == [StreamFinished("stop", None, "end_turn")]


def test_events_after_message_stop_are_reported_once() -> None:
    got = events(encode(START, STOP, text("late"), text("later"), META))
    assert got == [
        ParseError(
            "data after the end of the stream; ignored", '{"contentBlockIndex":0,"delta":{"text":"late"}}'
        ),
        StreamFinished("stop", USAGE, "end_turn"),
    ]
    got = events(encode(START, STOP, META, META))
    assert got[-1] == ParseError(
        "data after the end of the stream; ignored", msgspec.json.encode(META["payload"]).decode()
    )


def test_an_exception_after_message_stop_still_counts() -> None:
    boom = {"exception": "internalServerException", "payload": {"message": "late failure"}}
    assert events(encode(START, STOP, boom)) == [
        ProviderError("late failure", "internalServerException", 500),
        StreamFinished("error", None, "end_turn"),
    ]


@pytest.mark.parametrize(
    ("name", "status"),  # the HTTP status the API reference gives each exception of the stream
    [
        ("throttlingException", 429),
        ("modelStreamErrorException", 424),
        ("internalServerException", 500),
        ("serviceUnavailableException", 503),
        ("validationException", 400),
        ("modelTimeoutException", 408),
        ("someFutureException", None),
    ],
)
def test_exceptions_are_provider_errors(name: str, status: int | None) -> None:
    data = encode(START, TOOL, tool_input('{"a"'), {"exception": name, "payload": {"message": "no"}})
    assert events(data)[1:] == [
        ToolCallDelta(0, '{"a"'),
        ToolCallFailed(0, "t1", "f", '{"a"', "interrupted by a provider error: no"),
        ProviderError("no", name, status),
        StreamFinished("error"),
    ]


def test_an_exception_without_a_payload() -> None:
    bare = message([(":exception-type", 7, "throttlingException"), (":message-type", 7, "exception")], b"")
    data = encode(START) + bare
    assert events(data) == [
        ProviderError("throttlingException", "throttlingException", 429),
        StreamFinished("error"),
    ]


def test_unknown_events_are_ignored() -> None:
    extra = ev("citationDelta", contentBlockIndex=0, delta={"title": "x"})
    assert events(encode(START, extra, text("a"), STOP, META)) == [
        TextDelta("a"),
        StreamFinished("stop", USAGE, "end_turn"),
    ]


def test_a_payload_that_is_not_json() -> None:
    bad = message([(":event-type", 7, "contentBlockDelta"), (":message-type", 7, "event")], b"{nope")
    got = events(encode(START) + bad + encode(text("a"), STOP, META))
    assert type(got[0]) is ParseError
    assert got[0].message.startswith("Bedrock contentBlockDelta event is not valid JSON")
    assert got[1:] == [TextDelta("a"), StreamFinished("stop", USAGE, "end_turn")]


def test_bytes_that_are_not_an_event_stream() -> None:
    got = events(b'data: {"hello": 1}\n\n')
    assert got[0].message.startswith("event stream message at byte 0: ")  # type: ignore[union-attr]
    assert got[1:] == [ParseError("stream ended before messageStop (truncated)"), StreamFinished("error")]


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_mangled_streams_never_raise(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(p.name for p in BEDROCK.glob("*.bin"))))
    raw = bytearray((BEDROCK / name).read_bytes())
    for _ in range(data.draw(st.integers(1, 4))):
        raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=20))
    provider = data.draw(st.sampled_from(["bedrock", "auto"]))
    got = feed_chunks(split_at(bytes(raw), cuts), provider)
    ends = [i for i, e in enumerate(got) if type(e) is StreamFinished]
    assert len(ends) == 1
    assert all(type(e) is ParseError for e in got[ends[0] + 1 :])  # only "data after the end"
