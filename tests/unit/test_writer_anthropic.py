"""The ``"anthropic"`` target and its complete response, read by the anthropic SDK.

- the SDK's ``messages.stream()``, pointed at the written bytes through an
  httpx ``MockTransport`` (whole and in random pieces), builds the message the
  events hold (``tests/support/writer_blocks.py``, a reference written from the
  events): its content blocks in order -- text, thinking with its signature
  for Anthropic's own stream, redacted thinking, tool_use with the call's id
  and input --, the id, model, stop reason and usage; at a provider error it
  raises the SDK's status error with its message, having built the blocks
  before it;
- an Anthropic recording and its rewrite are the same message for the SDK;
- ``write_response`` validates as the SDK's ``Message`` and is the message
  the SDK builds from the stream of the same events;
- the bytes of a small stream, written exactly (reviewed by eye), each delta
  by its own ``send``; errors, held argument text and cut streams.

The parser's reading of the bytes (and of the complete response) is the
shared round trip's (``tests/corpus/test_writer_roundtrip.py``).
"""

from __future__ import annotations

import json
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
    StreamStarted,
    StreamWriter,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallStarted,
    ToolResult,
    Usage,
    write_response,
    write_stream,
)
from tests.support import Case, corpus, feed_chunks, split_at
from tests.support.sdk_clients import sdk_client
from tests.support.ui_streams import Item, event_lists
from tests.support.writer_blocks import expected_content, same_content
from tests.support.writer_roundtrip import compare, first_stream, read_back

anthropic = pytest.importorskip("anthropic")
pytest.importorskip("httpx2")  # what the installed SDK is built on
jiter = pytest.importorskip("jiter")  # what the SDK parses a call's partial input with

CASES = corpus()
ANTHROPIC = [case for case in CASES if case.provider == "anthropic" and case.path.suffix == ".sse"]
STOPS = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens", "content_filter": "refusal"}
WORDS = {"end_turn", "stop_sequence", "pause_turn", "tool_use", "max_tokens", "refusal"}
WORDS.add("model_context_window_exceeded")
# A turn holds the finish reason, not Anthropic's word for it: the complete response says the reason's.
RESPONSE_WORDS = {
    "stop_sequence": "end_turn",
    "pause_turn": "end_turn",
    "model_context_window_exceeded": "max_tokens",
}


class Read:
    """What the SDK made of a stream: the message (so far, if it raised) and what it raised."""

    def __init__(self, message: Any, raised: Exception | None) -> None:
        self.message = message
        self.raised = raised


def sdk_read(body: bytes, pieces: list[int] | None = None) -> Read:
    """What the anthropic SDK's ``messages.stream()`` makes of ``body`` (sent in ``pieces``)."""
    client = sdk_client(anthropic.Anthropic, [body] if pieces is None else split_at(body, pieces))
    request: Any = {"role": "user", "content": "hi"}
    with client.messages.stream(model="claude", max_tokens=100, messages=[request]) as stream:
        try:
            for _ in stream:
                pass
        except (anthropic.APIStatusError, ValueError) as exc:
            return Read(stream.current_message_snapshot, exc)
        return Read(stream.get_final_message(), None)


def content_of(message: Any) -> list[Any]:
    """A message's content blocks as ``tests/support/writer_blocks.py`` lists them."""
    found: list[Any] = []
    for block in message.content:
        if block.type == "text":
            found.append(("text", block.text))
        elif block.type == "thinking":
            found.append(("reasoning", block.thinking, block.signature or None, None))
        elif block.type == "redacted_thinking":
            found.append(("reasoning", "", None, block.data))
        else:
            assert block.type == "tool_use", block
            found.append(("call", block.id, block.name, block.input))
    return found


def expected(items: list[Item]) -> list[Any]:
    return expected_content(items, "anthropic", apart=True)


def first_problem(items: list[Item]) -> tuple[str, str] | None:
    """What makes the SDK raise first: a provider error (its message), or argument fragments that
    opened an object and stopped being JSON, which the target forwards as the model wrote them (the
    SDK parses each prefix)."""
    texts: dict[int, bytes] = {}
    for item in items:
        if isinstance(item, ProviderError):
            return "error", item.message
        if isinstance(item, ToolCallDelta) and item.arguments_delta:
            text = texts.get(item.index, b"") + item.arguments_delta.encode()
            texts[item.index] = text
            if text.lstrip().startswith(b"{"):
                try:
                    jiter.from_json(text, partial_mode=True)
                except ValueError:
                    return "json", "Unable to parse tool parameter JSON"
        if isinstance(item, StreamFinished):
            return None
    return None


def check_sdk(items: list[Item], pieces: list[int] | None = None) -> None:
    body = write_stream(items, "anthropic")
    read = sdk_read(body, pieces)
    problem = first_problem(items)
    if problem is not None:
        kind, message = problem
        assert isinstance(read.raised, anthropic.APIStatusError if kind == "error" else ValueError)
        assert message in str(read.raised)
        if kind == "json":
            return  # the block it broke in is half built
    else:
        assert read.raised is None
    message = read.message
    same_content(content_of(message), expected(items))
    started = next((item for item in items if isinstance(item, StreamStarted)), None)
    if started is not None:
        assert message.model == (started.model or "")
        assert started.response_id is None or message.id == started.response_id
    assert message.id.startswith("msg_") or (started is not None and message.id == started.response_id)
    finished = next((item for item in items if isinstance(item, StreamFinished)), None)
    if problem is None and finished is not None and finished.reason != "error":
        word = finished.provider_reason
        assert message.stop_reason == (word if word in WORDS else STOPS[finished.reason])
        usage = finished.usage or Usage()
        assert message.usage.output_tokens == (usage.output_tokens or 0)
        cached = (usage.cache_read_tokens or 0) + (usage.cache_write_tokens or 0)
        assert message.usage.input_tokens == max(0, (usage.input_tokens or 0) - cached)
        assert message.usage.cache_read_input_tokens == usage.cache_read_tokens
    else:
        assert message.stop_reason is None  # no message_delta: the stream ended where it broke


# -- the SDK reads the stream -----------------------------------------------------------------------------


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=event_lists(finish=True).map(first_stream), data=st.data())
def test_event_lists_read_by_the_sdk(items: list[Item], data: st.DataObject) -> None:
    size = len(write_stream(items, "anthropic"))
    pieces = data.draw(st.none() | st.lists(st.integers(0, size), max_size=8).map(sorted))
    check_sdk(items, pieces)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_recording_read_by_the_sdk(case: Case) -> None:
    check_sdk(list(case.expected()))


@pytest.mark.parametrize("case", ANTHROPIC, ids=[c.id for c in ANTHROPIC])
def test_an_anthropic_recording_and_its_rewrite_are_the_same_message(case: Case) -> None:
    """The SDK reads the recording and the writer's rewrite of its events (parsed as Anthropic sent
    them: no text detectors) to the same content -- server tools, which the parser leaves out, aside
    --, id, model, stop reason and usage."""
    events = streamcalls.parse(case.data(), "anthropic", detect=())
    original, rewritten = sdk_read(case.data()), sdk_read(write_stream(events, "anthropic"))
    assert type(rewritten.raised) is type(original.raised)
    if original.raised is not None:
        assert str(rewritten.raised) == str(original.raised)
    kept = [
        block.model_dump(exclude={"citations"})
        for block in original.message.content
        if block.type in ("text", "thinking", "redacted_thinking", "tool_use")
    ]
    merged: list[dict[str, Any]] = []  # text blocks either side of a server tool's are one now
    for block in kept:
        if merged and block["type"] == merged[-1]["type"] == "text":
            merged[-1]["text"] += block["text"]
        else:
            merged.append(block)
    if "truncated" in case.path.name or "cutoff" in case.path.name:
        merged = [b for b in merged if b["type"] != "tool_use" or b["input"]]  # a cut call: no block
        rewritten_blocks = [b.model_dump(exclude={"citations"}) for b in rewritten.message.content]
        rewritten_blocks = [b for b in rewritten_blocks if b["type"] != "tool_use" or b["input"]]
    else:
        rewritten_blocks = [b.model_dump(exclude={"citations"}) for b in rewritten.message.content]
    assert rewritten_blocks == merged
    ours, theirs = rewritten.message, original.message
    assert (ours.id, ours.model, ours.stop_reason) == (theirs.id, theirs.model, theirs.stop_reason)
    if original.raised is None and theirs.stop_reason is not None:  # (the counts come with the end)
        counts = {"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"}
        assert ours.usage.model_dump(include=counts) == theirs.usage.model_dump(include=counts)


# -- the complete response ----------------------------------------------------------------------------------


def check_response(items: list[Item]) -> None:
    """``write_response`` of the events' turn is a ``Message`` (validated), the message the SDK builds
    from the stream of the same events, and reads back through the parser's complete-body path."""
    events = [item for item in items if not isinstance(item, ToolResult)]
    turn = streamcalls.accumulate(events)
    if turn.errors or turn.finish_reason == "error":
        return  # a turn that failed is not a response
    body = write_response(turn, "anthropic")
    message = anthropic.types.Message.model_validate(body)
    assert set(body) <= set(anthropic.types.Message.model_fields)
    for block, raw in zip(message.content, body["content"], strict=True):
        assert set(raw) <= set(type(block).model_fields)
    streamed = sdk_read(write_stream(items, "anthropic")).message
    # A call found in the text may end with the model's own id: the turn has it, the stream the first.
    started = {e.index: e.id for e in events if isinstance(e, ToolCallStarted)}
    final = {started[e.call.index]: e.call.id for e in events if isinstance(e, ToolCallCompleted)}
    assert content_of(message) == [
        ("call", final[block[1]], *block[2:]) if block[0] == "call" else block
        for block in content_of(streamed)
    ]
    assert message.model == streamed.model
    assert turn.response_id is None or message.id == streamed.id
    assert message.stop_reason == RESPONSE_WORDS.get(streamed.stop_reason, streamed.stop_reason)
    assert message.usage == streamed.usage
    target = streamcalls.writing.TARGETS["anthropic"]
    compare(
        events,
        read_back(json.dumps(body).encode(), "anthropic"),
        target,
        dropped=target.response_cannot_carry,
    )


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=event_lists(finish=True).map(first_stream))
def test_event_lists_as_a_complete_message(items: list[Item]) -> None:
    check_response(items)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_recording_as_a_complete_message(case: Case) -> None:
    check_response(list(case.expected()))


# -- the bytes ----------------------------------------------------------------------------------------------


def test_each_delta_is_written_by_its_own_send() -> None:
    writer = StreamWriter("anthropic")
    assert b'"text":"Hel"' in writer.send(TextDelta("Hel"))
    out = writer.send(ToolCallStarted(0, "toolu_1", "get_weather")) + writer.send(ToolCallDelta(0, '{"ci'))
    assert b'"partial_json":"{\\"ci"' in out
    assert b'"partial_json":"ty\\": 1}"' in writer.send(ToolCallDelta(0, 'ty": 1}'))
    writer.send(ToolCallCompleted(ToolCall("toolu_1", "get_weather", {"city": 1})))
    writer.send(ReasoningStarted(kind="thinking"))
    assert b'"thinking":"hmm"' in writer.send(ReasoningDelta("hmm"))


def records(body: bytes) -> list[dict[str, Any]]:
    """Each event's payload; its ``event:`` name is its type."""
    found = []
    for event in body.decode().split("\n\n")[:-1]:
        head, data = event.split("\n")
        assert head.startswith("event: ")
        assert data.startswith("data: ")
        payload = json.loads(data[len("data: ") :])
        assert payload["type"] == head[len("event: ") :]
        found.append(payload)
    return found


EVENTS: list[Item] = [
    StreamStarted("anthropic", "claude-sonnet-4-5", "msg_1"),
    ReasoningStarted(kind="thinking"),
    ReasoningDelta("Weather first."),
    ReasoningCompleted(signature="sig"),
    ReasoningStarted(kind="redacted_thinking"),
    ReasoningCompleted(redacted="opaque"),
    TextDelta("Checking."),
    ToolCallStarted(0, "toolu_1", "get_weather"),
    ToolCallDelta(0, '{"city": '),
    ToolCallDelta(0, '"Paris"}'),
    ToolCallCompleted(ToolCall("toolu_1", "get_weather", {"city": "Paris"})),
    StreamFinished("tool_calls", Usage(110, 5, 115, cache_read_tokens=100), "tool_use"),
]


def delta(index: int, kind: str, field: str, value: str) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": {"type": kind, field: value}}


def test_the_bytes() -> None:
    start: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 0, "output_tokens": 0},
    }
    use = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}
    assert records(write_stream(EVENTS, "anthropic")) == [
        {"type": "message_start", "message": start},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""},
        },
        delta(0, "thinking_delta", "thinking", "Weather first."),
        delta(0, "signature_delta", "signature", "sig"),
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "redacted_thinking", "data": "opaque"},
        },
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}},
        delta(2, "text_delta", "text", "Checking."),
        {"type": "content_block_stop", "index": 2},
        {"type": "content_block_start", "index": 3, "content_block": use},
        delta(3, "input_json_delta", "partial_json", '{"city": '),
        delta(3, "input_json_delta", "partial_json", '"Paris"}'),
        {"type": "content_block_stop", "index": 3},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"input_tokens": 10, "cache_read_input_tokens": 100, "output_tokens": 5},
        },
        {"type": "message_stop"},
    ]


def test_another_providers_reasoning_is_its_text_unsigned() -> None:
    """Exact turns: an OpenAI stream's reasoning is a thinking block without a signature; a block with
    no text (encrypted) is left out, and so is the encrypted content."""
    events: list[Item] = [
        StreamStarted("openai-responses", "o4-mini", "resp_1"),
        ReasoningStarted("rs_1", "summary_text"),
        ReasoningDelta("Plan."),
        ReasoningCompleted(encrypted="gAAAA"),
        ReasoningStarted("rs_2", "summary_text"),
        ReasoningCompleted(encrypted="gBBBB"),
        TextDelta("Done."),
        StreamFinished("stop", Usage(3, 4, 7)),
    ]
    body = write_stream(events, "anthropic")
    for secret in (b"gAAAA", b"gBBBB", b"signature_delta"):
        assert secret not in body
    message = sdk_read(body).message
    assert [block.model_dump() for block in message.content] == [
        {"type": "thinking", "thinking": "Plan.", "signature": ""},
        {"type": "text", "text": "Done.", "citations": None},
    ]
    assert (message.id, message.model, message.stop_reason) == ("resp_1", "o4-mini", "end_turn")


def test_signed_text_with_redacted_content_is_two_blocks() -> None:
    """Anthropic's blocks hold thinking or redacted data: a block with both is two, the redacted after."""
    events: list[Item] = [
        ReasoningStarted(),
        ReasoningDelta("Hm."),
        ReasoningCompleted(signature="sig", redacted="opaque"),
        StreamFinished("stop"),
    ]
    message = sdk_read(write_stream(events, "anthropic")).message
    assert [block.model_dump() for block in message.content] == [
        {"type": "thinking", "thinking": "Hm.", "signature": "sig"},
        {"type": "redacted_thinking", "data": "opaque"},
    ]


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (ProviderError("busy", "overloaded_error", 529), "overloaded_error"),
        (ProviderError("slow down", "throttlingException", 429), "rate_limit_error"),
        (ProviderError("boom", "server_error"), "api_error"),
        (ProviderError("boom", None, 503), "api_error"),
        (ProviderError("bad", "INVALID_ARGUMENT", 400), "invalid_request_error"),
    ],
)
def test_a_provider_error_is_an_error_event(error: ProviderError, kind: str) -> None:
    written = records(write_stream([TextDelta("a"), error], "anthropic"))
    assert written[-1] == {"type": "error", "error": {"type": kind, "message": error.message}}


def test_nothing_is_written_after_an_error() -> None:
    """The API ends its stream at an error: what came after it, the finish included, is not written."""
    events: list[Item] = [
        TextDelta("a"),
        ProviderError("first", "overloaded_error"),
        TextDelta("b"),
        ToolCallStarted(0, "toolu_1", "f"),
        ToolCallDelta(0, "{}"),
        ToolCallCompleted(ToolCall("toolu_1", "f", {})),
        ProviderError("second", "api_error"),
        StreamFinished("stop", Usage(1, 2)),
    ]
    writer = StreamWriter("anthropic")
    written = [writer.send(event) for event in events]
    assert b'"message":"first"' in written[1]
    assert written[2:] == [b""] * 6
    assert writer.close() == b""


def test_a_stream_that_ended_in_error_has_no_end() -> None:
    """Anthropic has no stop reason for an error: the stream ends where it was cut, and the reader
    finishes it in error, the open call failed."""
    cut = write_stream(
        [TextDelta("a"), ToolCallStarted(0, "toolu_1", "f"), ToolCallDelta(0, '{"a')], "anthropic"
    )
    assert [record["type"] for record in records(cut)][-2:] == ["content_block_delta", "content_block_stop"]
    back = feed_chunks([cut], "anthropic")
    assert back[-1] == StreamFinished("error")
    assert [e.id for e in back if isinstance(e, ToolCallFailed)] == ["toolu_1"]


def test_argument_text_that_opens_no_object_is_written_decoded_at_the_end() -> None:
    """A JSON string holding the object (as some servers stream arguments) is held: the input is an
    object, written in one delta when the call completes."""
    writer = StreamWriter("anthropic")
    writer.send(ToolCallStarted(0, "toolu_1", "ping"))
    assert writer.send(ToolCallDelta(0, '"{\\"host\\"')) == b""
    assert writer.send(ToolCallDelta(0, ': \\"a\\"}"')) == b""
    end = writer.send(ToolCallCompleted(ToolCall("toolu_1", "ping", {"host": "a"})))
    assert [record["delta"]["partial_json"] for record in records(end)[:1]] == ['{"host":"a"}']
    body = b"".join([end, writer.close()])
    assert b"message_stop" in body


def test_whitespace_before_an_object_is_held_until_it_opens() -> None:
    writer = StreamWriter("anthropic")
    writer.send(ToolCallStarted(0, "toolu_1", "f"))
    assert writer.send(ToolCallDelta(0, " \n")) == b""
    out = writer.send(ToolCallDelta(0, '{"a"'))
    assert [record["delta"]["partial_json"] for record in records(out)] == [' \n{"a"']


def test_a_failed_call_without_an_object_reads_as_failed() -> None:
    """A call that failed before its text opened an object is not read back as a call without
    arguments: its block gets ``{``, cut short."""
    for fragment in ("", "<bad markup>"):
        events: list[Item] = [
            ToolCallStarted(0, "toolu_1", "f"),
            *([ToolCallDelta(0, fragment)] if fragment else []),
            ToolCallFailed(0, "toolu_1", "f", "<bad markup>", "malformed"),
            StreamFinished("stop"),
        ]
        back = feed_chunks([write_stream(events, "anthropic")], "anthropic")
        assert [e.raw for e in back if isinstance(e, ToolCallFailed)] == ["{"]
        assert not [e for e in back if isinstance(e, ToolCallCompleted)]
