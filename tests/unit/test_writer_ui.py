"""The chat UI targets: what ``"ai-sdk"`` and ``"ag-ui"`` write, read back by reference readers, and AG-UI's
events checked against the ``ag-ui-protocol`` package's models.

- hypothesis-made event lists in the parser's order never raise, and read back
  (tests/support/ui_streams.py) to the same text, reasoning, calls, results and finish;
- every recording of the corpus, parsed, does the same;
- each text delta and argument fragment is written by the ``send`` of its event;
- two small streams, written exactly (reviewed by eye).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from ag_ui.core import Event as AgUiEvent
from hypothesis import HealthCheck, given, settings
from pydantic import BaseModel, TypeAdapter

import streamcalls
import streamcalls.testing
from streamcalls import (
    ParseError,
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
    write_stream,
)
from tests.support import Case, corpus
from tests.support.ui_streams import Item, event_lists, expected, read_ag_ui, read_ai_sdk, sse_data

TARGETS = ("ai-sdk", "ag-ui")
CASES = corpus()
AG_UI = TypeAdapter(AgUiEvent)


def check_ag_ui_models(body: bytes) -> None:
    """Each event validates as the package's model, with no field it does not know, and dumps back the same."""
    for data in sse_data(body):
        event = AG_UI.validate_json(data)
        assert isinstance(event, BaseModel)
        assert not event.model_extra, f"fields AG-UI does not know: {event.model_extra}"
        assert json.loads(event.model_dump_json(by_alias=True)) == json.loads(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=event_lists())
def test_event_lists_read_back(items: list[Item]) -> None:
    for target in TARGETS:
        body = write_stream(items, target)  # type: ignore[arg-type]
        read = read_ai_sdk(body) if target == "ai-sdk" else read_ag_ui(body)
        assert read == expected(items, target), target


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=event_lists())
def test_ag_ui_events_are_the_protocol_models(items: list[Item]) -> None:
    check_ag_ui_models(write_stream(items, "ag-ui"))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_recording_reads_back(case: Case) -> None:
    """Whatever the parser emits is written, and reads back to the same (the corpus' expected events), with
    a result for each call that ended, named by the id it ended with (as run_tools names it)."""
    events: list[Item] = list(case.expected())
    events += [ToolResult(e.call.id, e.call.name, "done") for e in events if isinstance(e, ToolCallCompleted)]
    events += [ToolResult(e.id, e.name, "failed", True) for e in events if isinstance(e, ToolCallFailed)]
    for target in TARGETS:
        body = write_stream(events, target)  # type: ignore[arg-type]
        read = read_ai_sdk(body) if target == "ai-sdk" else read_ag_ui(body)
        assert read == expected(events, target), target
    check_ag_ui_models(write_stream(events, "ag-ui"))


@pytest.mark.parametrize("target", TARGETS)
def test_each_delta_is_written_by_its_own_send(target: Any) -> None:
    writer = StreamWriter(target)
    assert b"Hel" in writer.send(TextDelta("Hel"))
    assert b'\\"ci' in writer.send(ToolCallStarted(0, "call_1", "get_weather")) + writer.send(
        ToolCallDelta(0, '{"ci')
    )
    assert b'ty\\": \\"Paris\\"' in writer.send(ToolCallDelta(0, 'ty": "Paris"'))
    writer.send(ToolCallDelta(0, "}"))
    writer.send(ToolCallCompleted(ToolCall("call_1", "get_weather", {"city": "Paris"})))
    writer.send(ReasoningStarted())
    assert b"hmm" in writer.send(ReasoningDelta("hmm"))


EVENTS: list[Item] = [
    StreamStarted("anthropic", "claude", "msg_1"),
    ReasoningStarted(kind="thinking"),
    ReasoningDelta("Weather first."),
    ReasoningCompleted(signature="sig"),
    TextDelta("Checking."),
    ToolCallStarted(0, "toolu_1", "get_weather"),
    ToolCallDelta(0, '{"city": '),
    ToolCallDelta(0, '"Paris"}'),
    ToolCallCompleted(ToolCall("toolu_1", "get_weather", {"city": "Paris"})),
    StreamFinished("tool_calls", Usage(10, 5, 15)),
    ToolResult("toolu_1", "get_weather", "21 °C"),
]


def test_ai_sdk_bytes() -> None:
    body = write_stream(EVENTS, "ai-sdk")
    assert [json.loads(d) if d != "[DONE]" else d for d in sse_data(body)] == [
        {"type": "start", "messageId": "msg_1"},
        {"type": "start-step"},
        {"type": "reasoning-start", "id": "reasoning-0"},
        {"type": "reasoning-delta", "id": "reasoning-0", "delta": "Weather first."},
        {
            "type": "reasoning-end",
            "id": "reasoning-0",
            "providerMetadata": {"streamcalls": {"signature": "sig"}},
        },
        {"type": "text-start", "id": "text-1"},
        {"type": "text-delta", "id": "text-1", "delta": "Checking."},
        {"type": "text-end", "id": "text-1"},
        {"type": "tool-input-start", "toolCallId": "toolu_1", "toolName": "get_weather"},
        {"type": "tool-input-delta", "toolCallId": "toolu_1", "inputTextDelta": '{"city": '},
        {"type": "tool-input-delta", "toolCallId": "toolu_1", "inputTextDelta": '"Paris"}'},
        {
            "type": "tool-input-available",
            "toolCallId": "toolu_1",
            "toolName": "get_weather",
            "input": {"city": "Paris"},
        },
        {"type": "finish-step"},
        {"type": "tool-output-available", "toolCallId": "toolu_1", "output": "21 °C"},
        {
            "type": "finish",
            "finishReason": "tool-calls",
            "messageMetadata": {"usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15}},
        },
        "[DONE]",
    ]
    assert body.startswith(b'data: {"type":"start","messageId":"msg_1"}\n\ndata: {"type":"start-step"}\n\n')


def test_ag_ui_events() -> None:
    body = write_stream(EVENTS, "ag-ui", thread_id="thread_1")
    events = [json.loads(d) for d in sse_data(body)]
    ids = {"reasoning": events[1]["messageId"], "text": events[6]["messageId"]}
    assert ids["reasoning"].startswith("msg_")
    assert ids["text"].startswith("msg_")
    assert len(set(ids.values())) == 2
    result_id = events[13]["messageId"]
    assert events == [
        {"type": "RUN_STARTED", "threadId": "thread_1", "runId": "msg_1"},
        {"type": "REASONING_START", "messageId": ids["reasoning"]},
        {"type": "REASONING_MESSAGE_START", "messageId": ids["reasoning"], "role": "reasoning"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": ids["reasoning"], "delta": "Weather first."},
        {"type": "REASONING_MESSAGE_END", "messageId": ids["reasoning"]},
        {"type": "REASONING_END", "messageId": ids["reasoning"]},
        {"type": "TEXT_MESSAGE_START", "messageId": ids["text"], "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": ids["text"], "delta": "Checking."},
        {"type": "TEXT_MESSAGE_END", "messageId": ids["text"]},
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "toolu_1",
            "toolCallName": "get_weather",
            "parentMessageId": ids["text"],
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": "toolu_1", "delta": '{"city": '},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "toolu_1", "delta": '"Paris"}'},
        {"type": "TOOL_CALL_END", "toolCallId": "toolu_1"},
        {
            "type": "TOOL_CALL_RESULT",
            "messageId": result_id,
            "toolCallId": "toolu_1",
            "content": "21 °C",
            "role": "tool",
        },
        {
            "type": "RUN_FINISHED",
            "threadId": "thread_1",
            "runId": "msg_1",
            "usage": [
                {
                    "provider": "anthropic",
                    "model": "claude",
                    "inputTokens": 10,
                    "outputTokens": 5,
                    "totalTokens": 15,
                }
            ],
            "metadata": {"finishReason": "tool_calls"},
        },
    ]
    check_ag_ui_models(body)


def test_ag_ui_errors_end_the_run_after_everything_else() -> None:
    """Nothing may follow AG-UI's RUN_ERROR, and the parser may go on after a provider error: the run's
    end waits for close(), and carries every error's message."""
    events: list[Item] = [
        TextDelta("hi"),
        ProviderError("overloaded", "overloaded_error"),
        TextDelta(" again"),
        ProviderError("gone"),
        StreamFinished("error"),
    ]
    body = write_stream(events, "ag-ui")
    last = json.loads(sse_data(body)[-1])
    assert last == {"type": "RUN_ERROR", "message": "overloaded\ngone", "code": "overloaded_error"}
    assert read_ag_ui(body).text == "hi again"
    check_ag_ui_models(body)


def test_a_call_with_no_fragments_gets_its_arguments_in_ag_ui() -> None:
    """A call that completed with no delta (empty arguments) still gives the client its arguments' JSON."""
    events: list[Item] = [ToolCallStarted(0, "c", "now"), ToolCallCompleted(ToolCall("c", "now", {}))]
    args = [json.loads(d) for d in sse_data(write_stream(events, "ag-ui")) if "TOOL_CALL_ARGS" in d]
    assert args == [{"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{}"}]


def test_a_failed_call_and_a_cut_stream() -> None:
    events: list[Item] = [
        ToolCallStarted(0, "c", "f"),
        ToolCallDelta(0, '{"a": tru'),
        ToolCallFailed(0, "c", "f", '{"a": tru', "not JSON"),
        ParseError("stream ended before [DONE] (truncated)"),
        StreamFinished("error"),
    ]
    ai_sdk = read_ai_sdk(write_stream(events, "ai-sdk"))
    assert ai_sdk.calls == [("c", "f", '{"a": tru', "not JSON")]
    assert ai_sdk.errors == ["stream ended before [DONE] (truncated)"]
    assert ai_sdk.finish == "error"
    ag_ui = read_ag_ui(write_stream(events, "ag-ui"))
    assert ag_ui.calls == [("c", "f", '{"a": tru', "not JSON")]
    assert ag_ui.errors == ["stream ended before [DONE] (truncated)"]


def test_a_tool_loop_is_one_message() -> None:
    """The streams of a tool loop, one after the other: steps of one UI message, one AG-UI run."""
    events: list[Item] = [
        StreamStarted("openai", "gpt", "chatcmpl-1"),
        ToolCallStarted(0, "call_1", "get_weather"),
        ToolCallDelta(0, '{"city": "Paris"}'),
        ToolCallCompleted(ToolCall("call_1", "get_weather", {"city": "Paris"})),
        StreamFinished("tool_calls", Usage(10, 5)),
        ToolResult("call_1", "get_weather", "21 °C"),
        StreamStarted("openai", "gpt", "chatcmpl-2"),
        TextDelta("Sunny, 21 °C."),
        StreamFinished("stop", Usage(20, 4)),
    ]
    chunks = [json.loads(d)["type"] for d in sse_data(write_stream(events, "ai-sdk"))[:-1]]
    assert chunks.count("start") == chunks.count("finish") == 1
    assert chunks.count("start-step") == chunks.count("finish-step") == 2
    read = read_ai_sdk(write_stream(events, "ai-sdk"))
    assert (read.text, read.finish, read.usage) == ("Sunny, 21 °C.", "stop", {"input": 30, "output": 9})
    body = write_stream(events, "ag-ui")
    assert [json.loads(d)["type"] for d in sse_data(body)].count("RUN_STARTED") == 1
    assert read_ag_ui(body).usage == [{"input": 10, "output": 5}, {"input": 20, "output": 4}]
    check_ag_ui_models(body)


def test_headers() -> None:
    assert StreamWriter("ai-sdk").headers["x-vercel-ai-ui-message-stream"] == "v1"
    assert StreamWriter("ai-sdk").media_type == StreamWriter("ag-ui").media_type == "text/event-stream"
    assert dict(StreamWriter("ag-ui").headers)["content-type"] == "text/event-stream"


def test_a_parsed_stream_through_the_writer_as_it_arrives() -> None:
    """The mirror of the parser: bytes in, events, bytes out, one feed at a time."""
    recording = streamcalls.testing.bundled_recordings()["openai/plan_day"].body
    parser = streamcalls.StreamParser("openai")
    writer = StreamWriter("ai-sdk")
    out = b""
    for i in range(0, len(recording), 7):
        for event in parser.feed(recording[i : i + 7]):
            out += writer.send(event)
    for event in parser.close():
        out += writer.send(event)
    out += writer.close()
    assert out == write_stream(streamcalls.parse(recording, "openai"), "ai-sdk")
    assert read_ai_sdk(out).text.startswith("Let me check the weather")
