"""The ``"bedrock"`` target and its complete response, read by botocore.

- botocore's ``EventStream`` (its event-stream decoder, CRCs checked, and the
  ``ConverseStream`` output shape of its bedrock-runtime service model) reads
  the written frames -- whole, a byte at a time, in random pieces -- to the
  events a boto3 client gets; a small reader here builds the message from
  them, as a client does, and it holds what the events hold
  (``tests/support/writer_blocks.py``); at a provider error botocore raises
  ``EventStreamError`` with its code and message, after the events before it;
- the parser takes boto3's events (``feed_event``) to the same turn as the
  bytes;
- ``write_response`` is a ``ConverseResponse`` by botocore: its REST-JSON
  parser reads it, and the service model's validator finds nothing wrong;
  its content is the message of the same events' stream;
- the bytes of a small stream, written exactly (reviewed by eye).

The parser's reading of the bytes (and of the complete response) is the
shared round trip's (``tests/corpus/test_writer_roundtrip.py``).
"""

from __future__ import annotations

import base64
import json
import struct
import zlib
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import streamcalls
from streamcalls import (
    ProviderError,
    ReasoningCompleted,
    ReasoningDelta,
    ReasoningStarted,
    StreamFinished,
    StreamParser,
    StreamStarted,
    StreamWriter,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallStarted,
    ToolResult,
    Usage,
    write_response,
    write_stream,
)
from tests.support import Case, bytewise, corpus, split_at
from tests.support.ui_streams import Item, event_lists
from tests.support.writer_blocks import expected_content, same_content
from tests.support.writer_roundtrip import first_stream

botocore_session = pytest.importorskip("botocore.session")
from botocore.eventstream import EventStream  # noqa: E402
from botocore.exceptions import EventStreamError  # noqa: E402
from botocore.parsers import EventStreamJSONParser, create_parser  # noqa: E402
from botocore.validate import ParamValidator  # noqa: E402

MODEL = botocore_session.get_session().get_service_model("bedrock-runtime")
STREAM_SHAPE = MODEL.operation_model("ConverseStream").output_shape.members["stream"]
RESPONSE_SHAPE = MODEL.operation_model("Converse").output_shape
CASES = corpus()
STOPS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "content_filter": "content_filtered",
    "error": "malformed_model_output",
}
WORDS = set(MODEL.shape_for("StopReason").enum)
EXCEPTIONS = {name for name, member in STREAM_SHAPE.members.items() if member.metadata.get("exception")}


class _Body:
    """The streaming body botocore reads: the chunks, in order."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks

    def stream(self) -> Iterator[bytes]:
        yield from self.chunks

    def close(self) -> None:
        pass


def boto_events(chunks: list[bytes]) -> tuple[list[dict[str, Any]], EventStreamError | None]:
    """The events botocore yields for the chunks, and the error it raised, if one."""
    events: list[dict[str, Any]] = []
    try:
        for event in EventStream(_Body(chunks), STREAM_SHAPE, EventStreamJSONParser(), "ConverseStream"):
            events.append(event)
    except EventStreamError as error:
        return events, error
    return events, None


class Message:
    """A message built from boto3's events as a client builds it: the blocks by their index, the
    stop reason, the usage."""

    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.blocks: dict[int, list[Any]] = {}
        self.stop_reason: str | None = None
        self.usage: dict[str, int] | None = None
        self.started = False
        inputs: dict[int, str] = {}
        for event in events:
            ((kind, body),) = event.items()
            if kind == "messageStart":
                assert body == {"role": "assistant"}
                self.started = True
            elif kind == "contentBlockStart":
                use = body["start"]["toolUse"]
                self.blocks[body["contentBlockIndex"]] = ["call", use["toolUseId"], use["name"], None]
                inputs[body["contentBlockIndex"]] = ""
            elif kind == "contentBlockDelta":
                self._delta(body["contentBlockIndex"], body["delta"], inputs)
            elif kind == "contentBlockStop":
                index = body["contentBlockIndex"]
                if index in inputs:  # the input's JSON is whole now
                    text = inputs.pop(index)
                    try:
                        self.blocks[index][3] = json.loads(text) if text else {}
                    except ValueError:
                        self.blocks[index][3] = text
            elif kind == "messageStop":
                self.stop_reason = body["stopReason"]
            else:
                assert kind == "metadata", event
                self.usage = body["usage"]

    def _delta(self, index: int, delta: dict[str, Any], inputs: dict[int, str]) -> None:
        ((kind, value),) = delta.items()
        if kind == "text":
            block = self.blocks.setdefault(index, ["text", ""])
            block[1] += value
        elif kind == "toolUse":
            inputs[index] += value["input"]
        else:
            assert kind == "reasoningContent"
            block = self.blocks.setdefault(index, ["reasoning", "", None, None])
            block[1] += value.get("text", "")
            if "signature" in value:
                block[2] = value["signature"]
            if "redactedContent" in value:  # a blob: bytes from botocore
                block[3] = base64.b64encode(value["redactedContent"]).decode()

    @property
    def content(self) -> list[Any]:
        return [tuple(self.blocks[index]) for index in sorted(self.blocks)]


def check_boto(items: Sequence[Item], chunks: list[bytes] | None = None) -> None:
    body = write_stream(items, "bedrock")
    events, raised = boto_events([body] if chunks is None else chunks)
    message = Message(events)
    assert message.started
    same_content(message.content, expected_content(items, "bedrock", apart=False, blob=True))
    error = next((item for item in items if isinstance(item, ProviderError)), None)
    finished = next((item for item in items if isinstance(item, StreamFinished)), None)
    if error is not None and (finished is None or items.index(error) < items.index(finished)):
        assert raised is not None
        assert raised.response["Error"]["Message"] == error.message
        assert raised.response["Error"]["Code"] == error.code or (
            error.code is None and raised.response["Error"]["Code"] in EXCEPTIONS
        )
        assert message.stop_reason is None
        return
    assert raised is None
    assert finished is not None
    word = finished.provider_reason
    assert message.stop_reason == (word if word in WORDS else STOPS[finished.reason])
    if finished.usage is None:
        assert message.usage is None
    else:
        usage = finished.usage
        assert message.usage is not None
        assert message.usage["outputTokens"] == (usage.output_tokens or 0)
        cached = (usage.cache_read_tokens or 0) + (usage.cache_write_tokens or 0)
        assert message.usage["inputTokens"] == max(0, (usage.input_tokens or 0) - cached)
        assert message.usage.get("cacheReadInputTokens") == usage.cache_read_tokens
        assert message.usage.get("cacheWriteInputTokens") == usage.cache_write_tokens
    # boto3's events, given to the parser, are the bytes' turn.
    parser = StreamParser("bedrock", detect=())
    from_objects = [e for event in events for e in parser.feed_event(event)] + parser.close()
    from_bytes = streamcalls.parse(body, "bedrock", detect=())
    assert streamcalls.accumulate(from_objects).parts == streamcalls.accumulate(from_bytes).parts


# -- botocore reads the stream ------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=event_lists(finish=True).map(first_stream), data=st.data())
def test_event_lists_read_by_botocore(items: list[Item], data: st.DataObject) -> None:
    body = write_stream(items, "bedrock")
    cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=8).map(sorted))
    check_boto(items, split_at(body, cuts))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_recording_read_by_botocore(case: Case) -> None:
    check_boto(list(case.expected()))


def test_a_byte_at_a_time() -> None:
    items = list(next(case for case in CASES if case.id == "bedrock/reasoning_then_call.bin").expected())
    check_boto(items, bytewise(write_stream(items, "bedrock")))


# -- the complete response ----------------------------------------------------------------------------------


def check_response(items: Sequence[Item]) -> None:
    """``write_response`` of the events' turn is a ``ConverseResponse`` (botocore reads and validates
    it) holding what the same events' stream holds."""
    events = [item for item in items if not isinstance(item, ToolResult)]
    turn = streamcalls.accumulate(events)
    if turn.errors or turn.finish_reason == "error":
        return  # a turn that failed is not a response
    body = write_response(turn, "bedrock")
    raw = {"status_code": 200, "headers": {}, "body": json.dumps(body).encode()}
    parsed = create_parser("rest-json").parse(raw, RESPONSE_SHAPE)
    parsed.pop("ResponseMetadata")
    report = ParamValidator().validate(parsed, RESPONSE_SHAPE)
    assert not report.has_errors(), report.generate_report()
    assert parsed["stopReason"] in WORDS  # (the validator does not check an enum)
    content: list[Any] = []
    for block in parsed["output"]["message"]["content"]:
        ((kind, value),) = block.items()
        if kind == "text":
            content.append(("text", value))
        elif kind == "toolUse":
            content.append(("call", value["toolUseId"], value["name"], value["input"]))
        elif "reasoningText" in value:
            said = value["reasoningText"]
            content.append(("reasoning", said["text"], said.get("signature"), None))
        else:
            content.append(("reasoning", "", None, base64.b64encode(value["redactedContent"]).decode()))
    stream = Message(boto_events([write_stream(items, "bedrock")])[0])
    # The response's reasoning text and redacted content are blocks apart; a call has its final id.
    started = {e.index: e.id for e in events if isinstance(e, ToolCallStarted)}
    final = {started[e.call.index]: e.call.id for e in events if isinstance(e, ToolCallCompleted)}
    want: list[Any] = []
    for block in stream.content:
        if block[0] == "reasoning" and block[3] is not None and (block[1] or block[2] is not None):
            want += [(*block[:3], None), ("reasoning", "", None, block[3])]
        else:
            want.append(("call", final[block[1]], *block[2:]) if block[0] == "call" else block)
    assert content == want
    assert parsed["stopReason"] == {"stop_sequence": "end_turn"}.get(
        stream.stop_reason or "", stream.stop_reason
    )
    assert parsed["usage"] == (stream.usage or {"inputTokens": 0, "outputTokens": 0, "totalTokens": 0})


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=event_lists(finish=True).map(first_stream))
def test_event_lists_as_a_complete_response(items: list[Item]) -> None:
    check_response(items)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_recording_as_a_complete_response(case: Case) -> None:
    check_response(list(case.expected()))


# -- the bytes ----------------------------------------------------------------------------------------------

EVENTS: list[Item] = [
    StreamStarted("bedrock"),
    ReasoningStarted(kind="reasoningText"),
    ReasoningDelta("Weather first."),
    ReasoningCompleted(signature="sig"),
    TextDelta("Checking."),
    ToolCallStarted(0, "tooluse_1", "get_weather"),
    ToolCallDelta(0, '{"city": '),
    ToolCallDelta(0, '"Paris"}'),
    ToolCallCompleted(ToolCall("tooluse_1", "get_weather", {"city": "Paris"})),
    StreamFinished("tool_calls", Usage(110, 5, 115, cache_read_tokens=100), "tool_use"),
]


def messages(body: bytes) -> list[tuple[dict[str, str], Any]]:
    """Each event-stream message's headers (all strings here) and JSON payload, its CRCs checked: a
    reader written from the format's description (see ``tests/support/eventstream.py``)."""
    found = []
    while body:
        total, size = struct.unpack_from(">II", body)
        assert struct.unpack_from(">I", body, 8)[0] == zlib.crc32(body[:8])
        assert struct.unpack_from(">I", body, total - 4)[0] == zlib.crc32(body[: total - 4])
        headers: dict[str, str] = {}
        at = 12
        while at < 12 + size:
            name = body[at + 1 : at + 1 + body[at]].decode()
            at += 1 + body[at]
            assert body[at] == 7  # a string
            (length,) = struct.unpack_from(">H", body, at + 1)
            headers[name] = body[at + 3 : at + 3 + length].decode()
            at += 3 + length
        payload = body[12 + size : total - 4]
        found.append((headers, json.loads(payload) if payload else None))
        body = body[total:]
    return found


def event(name: str) -> dict[str, Any]:
    return {":event-type": name, ":content-type": "application/json", ":message-type": "event"}


def test_the_bytes() -> None:
    assert messages(write_stream(EVENTS, "bedrock")) == [
        (event("messageStart"), {"role": "assistant"}),
        (
            event("contentBlockDelta"),
            {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "Weather first."}}},
        ),
        (
            event("contentBlockDelta"),
            {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "sig"}}},
        ),
        (event("contentBlockStop"), {"contentBlockIndex": 0}),
        (event("contentBlockDelta"), {"contentBlockIndex": 1, "delta": {"text": "Checking."}}),
        (event("contentBlockStop"), {"contentBlockIndex": 1}),
        (
            event("contentBlockStart"),
            {"contentBlockIndex": 2, "start": {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather"}}},
        ),
        (event("contentBlockDelta"), {"contentBlockIndex": 2, "delta": {"toolUse": {"input": '{"city": '}}}),
        (event("contentBlockDelta"), {"contentBlockIndex": 2, "delta": {"toolUse": {"input": '"Paris"}'}}}),
        (event("contentBlockStop"), {"contentBlockIndex": 2}),
        (event("messageStop"), {"stopReason": "tool_use"}),
        (
            event("metadata"),
            {
                "usage": {
                    "inputTokens": 10,
                    "outputTokens": 5,
                    "totalTokens": 115,
                    "cacheReadInputTokens": 100,
                },
                "metrics": {"latencyMs": 0},
            },
        ),
    ]


@pytest.mark.parametrize(
    ("error", "headers"),
    [
        (
            ProviderError("slow down", "throttlingException", 429),
            {
                ":exception-type": "throttlingException",
                ":content-type": "application/json",
                ":message-type": "exception",
            },
        ),
        (
            ProviderError("busy", "overloaded_error", 529),
            {":error-code": "overloaded_error", ":error-message": "busy", ":message-type": "error"},
        ),
        (
            ProviderError("busy", None, 529),
            {
                ":exception-type": "serviceUnavailableException",
                ":content-type": "application/json",
                ":message-type": "exception",
            },
        ),
    ],
)
def test_a_provider_error_is_an_exception_or_an_error_message(
    error: ProviderError, headers: dict[str, Any]
) -> None:
    (*_, (got, payload)) = messages(write_stream([TextDelta("a"), error], "bedrock"))
    assert got == headers
    assert payload == (None if ":error-code" in headers else {"message": error.message})


def test_nothing_is_written_after_an_error() -> None:
    writer = StreamWriter("bedrock")
    writer.send(TextDelta("a"))
    assert writer.send(ProviderError("first", "throttlingException"))
    later: list[Item] = [TextDelta("b"), ReasoningDelta("c"), ProviderError("second"), StreamFinished("stop")]
    assert [writer.send(item) for item in later] == [b""] * 4
    assert writer.close() == b""


def test_redacted_content_that_is_not_base64_is_not_written() -> None:
    """Bedrock's redacted content is a blob (base64 in the JSON): a value that is not base64 is none."""
    events: list[Item] = [
        StreamStarted("bedrock"),
        ReasoningStarted(),
        ReasoningCompleted(redacted="not base64!"),
        ReasoningStarted(),
        ReasoningCompleted(redacted="AAEC"),
        StreamFinished("stop"),
    ]
    blocks = [payload for _, payload in messages(write_stream(events, "bedrock"))[1:-1]]
    assert blocks == [
        {"contentBlockIndex": 0, "delta": {"reasoningContent": {"redactedContent": "AAEC"}}},
        {"contentBlockIndex": 0},
    ]
