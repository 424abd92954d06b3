"""The ``"cohere"`` target and Cohere's complete response, read by the cohere package (the official SDK)
through an httpx transport, and their shapes: named SSE events, argument fragments in the ``send`` of
their deltas, the error in ``message-end``, the usage, no signatures.

The round trip through the parser is tests/corpus/test_writer_roundtrip.py; here
the reader is Cohere's: ``ClientV2.chat_stream`` over the events written,
``ClientV2.chat`` over the complete body, for every recording whose turn
has no error.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import cohere
import httpx
import pytest
from cohere.v2 import types as v2

import streamcalls
from streamcalls import (
    Event,
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
    Usage,
    write_response,
    write_stream,
)
from tests.support import Case
from tests.support.provider_writers import READABLE, Answers, asks_for_a_stream, turn_calls

# (The SDK's own models use pydantic's deprecated __fields__.)
pytestmark = pytest.mark.filterwarnings("ignore:The `__fields__` attribute is deprecated")

ANSWERS = Answers(asks_for_a_stream, "text/event-stream")
CLIENT = cohere.ClientV2(api_key="test-key", httpx_client=httpx.Client(transport=ANSWERS.transport))
ASK: list[Any] = [{"role": "user", "content": "hi"}]
MODEL = "command-a-03-2025"

# What each finish reason may be in Cohere's words (its API reference); it has none for a filter.
FINISH_WORDS = {
    "stop": {"COMPLETE", "STOP_SEQUENCE"},
    "tool_calls": {"TOOL_CALL"},
    "length": {"MAX_TOKENS"},
    "content_filter": {"COMPLETE"},
}
EVENT_TYPES = {
    "message-start": v2.MessageStartV2ChatStreamResponse,
    "content-start": v2.ContentStartV2ChatStreamResponse,
    "content-delta": v2.ContentDeltaV2ChatStreamResponse,
    "content-end": v2.ContentEndV2ChatStreamResponse,
    "tool-plan-delta": v2.ToolPlanDeltaV2ChatStreamResponse,
    "tool-call-start": v2.ToolCallStartV2ChatStreamResponse,
    "tool-call-delta": v2.ToolCallDeltaV2ChatStreamResponse,
    "tool-call-end": v2.ToolCallEndV2ChatStreamResponse,
    "message-end": v2.MessageEndV2ChatStreamResponse,
}


def arguments(text: str | None) -> Any:
    """A call's argument text decoded; a JSON string holding the object (a model that wrote its
    arguments so, carried as written) decoded again, as the parser does."""
    value = json.loads(text) if text else {}
    if isinstance(value, str):
        value = json.loads(value) if value else {}
    return value


def read_stream(events: list[Any]) -> dict[str, Any]:
    """What the SDK's stream events hold, in the turn's terms (each of the type its name says)."""
    text: list[str] = []
    reasoning: list[str] = []
    calls: dict[int, list[Any]] = {}
    kinds: dict[int, str] = {}
    end: Any = None
    for event in events:
        assert type(event) is EVENT_TYPES[event.type], event
        if event.type == "content-start":
            kinds[event.index] = event.delta.message.content.type
        elif event.type == "content-delta":
            content = event.delta.message.content
            if kinds[event.index] == "thinking":
                reasoning.append(content.thinking)
            else:
                text.append(content.text)
        elif event.type == "tool-plan-delta":
            reasoning.append(event.delta.message.tool_plan)
        elif event.type == "tool-call-start":
            call = event.delta.message.tool_calls
            calls[event.index] = [call.id, call.function.name, call.function.arguments or "", False]
        elif event.type == "tool-call-delta":
            calls[event.index][2] += event.delta.message.tool_calls.function.arguments
        elif event.type == "tool-call-end":
            calls[event.index][3] = True
        elif event.type == "message-end":
            end = event.delta
    assert events[0].type == "message-start"
    assert events[-1].type == "message-end"
    assert all(ended for *_, ended in calls.values())
    usage = end.usage
    return {
        "text": "".join(text),
        "reasoning": "".join(reasoning),
        "calls": [(call_id, name, arguments(args)) for call_id, name, args, _ in calls.values()],
        "finish": end.finish_reason,
        "usage": usage
        and (usage.tokens and (usage.tokens.input_tokens, usage.tokens.output_tokens), usage.cached_tokens),
        "id": events[0].id,
    }


def expected_usage(usage: Usage | None) -> Any:
    if usage is None:
        return None
    tokens = None
    given, made, total = usage.input_tokens, usage.output_tokens, usage.total_tokens
    if total is not None and (given is None) != (made is None):  # the total tells the missing count
        given, made = (total - made, made) if made is not None else (given, total - (given or 0))
    if given is not None or made is not None:
        tokens = (given, made)
    return None if tokens is None and usage.cache_read_tokens is None else (tokens, usage.cache_read_tokens)


def started_calls(events: Sequence[Event]) -> list[tuple[str, str, Any]]:
    """The completed calls in the order they started (Cohere streams each from its start), with the id
    each started with."""
    order = [e for e in events if type(e) is ToolCallStarted]
    done = {e.call.index: e.call for e in events if type(e) is ToolCallCompleted}
    return [(e.id, done[e.index].name, done[e.index].arguments) for e in order if e.index in done]


@pytest.mark.parametrize("case", READABLE, ids=[c.id for c in READABLE])
def test_the_sdk_reads_every_recording_written_as_cohere(case: Case) -> None:
    events = case.expected()
    turn = streamcalls.accumulate(events)
    ANSWERS.stream = write_stream(events, "cohere")
    got = read_stream(list(CLIENT.chat_stream(model=MODEL, messages=ASK)))
    assert got["text"] == turn.text
    assert got["reasoning"] == turn.reasoning
    assert got["calls"] == started_calls(events)
    finish = events[-1]
    assert type(finish) is StreamFinished
    if turn.provider == "cohere":
        assert got["finish"] == finish.provider_reason
    else:
        assert got["finish"] in FINISH_WORDS[turn.finish_reason or "stop"]
    assert got["usage"] == expected_usage(turn.usage)
    assert got["id"] == (turn.response_id or got["id"])


@pytest.mark.parametrize("case", READABLE, ids=[c.id for c in READABLE])
def test_the_sdk_reads_every_turn_as_a_complete_response(case: Case) -> None:
    turn = streamcalls.accumulate(case.expected())
    ANSWERS.response = write_response(turn, "cohere")
    response = CLIENT.chat(model=MODEL, messages=ASK)
    assert type(response) is v2.V2ChatResponse
    message = response.message
    content = message.content or []
    assert "".join(item.text for item in content if item.type == "text") == turn.text
    plan = "".join(
        p.text for p in turn.parts if type(p) is streamcalls.ReasoningPart and p.kind == "tool_plan"
    )
    thinking = "".join(item.thinking for item in content if item.type == "thinking")
    assert (message.tool_plan or "", thinking) == (
        plan,
        turn.reasoning[len(plan) :] if plan else turn.reasoning,
    )
    got = [
        (
            c.id,
            c.function.name if c.function else None,
            arguments(c.function.arguments if c.function else None),
        )
        for c in message.tool_calls or ()
    ]
    assert got == turn_calls(turn)
    assert response.finish_reason in FINISH_WORDS[turn.finish_reason or "stop"]
    usage = response.usage
    assert (
        usage
        and (usage.tokens and (usage.tokens.input_tokens, usage.tokens.output_tokens), usage.cached_tokens)
    ) == expected_usage(turn.usage)


def named_events(data: bytes) -> list[tuple[str, dict[str, Any]]]:
    """The SSE events, each an ``event:`` line naming its payload's ``type`` and one ``data:`` line."""
    out = []
    for block in data.split(b"\n\n")[:-1]:
        name, payload = block.split(b"\n")
        assert name.startswith(b"event: "), block
        assert payload.startswith(b"data: "), block
        record = json.loads(payload[6:])
        assert record["type"] == name[7:].decode()
        out.append((record["type"], record))
    return out


def test_each_fragment_is_written_by_the_send_of_its_delta() -> None:
    writer = StreamWriter("cohere")
    ((kind, start),) = named_events(writer.send(StreamStarted("openai", "gpt-4o", "chatcmpl-1")))
    assert (kind, start["id"]) == ("message-start", "chatcmpl-1")
    assert [k for k, _ in named_events(writer.send(TextDelta("Hel")))] == ["content-start", "content-delta"]
    (_, (kind, call)) = named_events(writer.send(ToolCallStarted(0, "call_1", "get_weather")))
    assert kind == "tool-call-start"  # after the text block's content-end
    assert call["delta"]["message"]["tool_calls"] == {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": ""},
    }
    for fragment in ('{"city":', ' "Oslo"}'):
        ((kind, delta),) = named_events(writer.send(ToolCallDelta(0, fragment)))
        assert (kind, delta["index"]) == ("tool-call-delta", 0)
        assert delta["delta"]["message"]["tool_calls"]["function"]["arguments"] == fragment
    done = writer.send(ToolCallCompleted(ToolCall("call_1", "get_weather", {"city": "Oslo"}, 0)))
    assert named_events(done) == [("tool-call-end", {"type": "tool-call-end", "index": 0})]
    end = named_events(
        writer.send(StreamFinished("tool_calls", Usage(12, 7, 19, cache_read_tokens=4))) + writer.close()
    )
    assert end == [
        (
            "message-end",
            {
                "type": "message-end",
                "delta": {
                    "finish_reason": "TOOL_CALL",
                    "usage": {"tokens": {"input_tokens": 12, "output_tokens": 7}, "cached_tokens": 4},
                },
            },
        )
    ]


def test_a_call_with_no_fragment_gets_its_arguments_in_one_delta() -> None:
    data = write_stream(
        [
            ToolCallStarted(0, "call_a", "f"),
            ToolCallCompleted(ToolCall("call_a", "f", {"x": 1}, 0)),
            ToolCallStarted(1, "call_b", "g"),
            ToolCallCompleted(ToolCall("call_b", "g", {}, 1)),
        ],
        "cohere",
    )
    kinds = [(kind, record.get("index")) for kind, record in named_events(data)]
    assert kinds == [
        ("message-start", None),
        ("tool-call-start", 0),
        ("tool-call-delta", 0),
        ("tool-call-end", 0),
        ("tool-call-start", 1),  # no arguments: start and end only, as Cohere sends it
        ("tool-call-end", 1),
        ("message-end", None),
    ]


def test_reasoning_is_thinking_content_but_cohere_s_tool_plan() -> None:
    data = write_stream(
        [
            StreamStarted("cohere"),
            ReasoningStarted(kind="tool_plan"),
            ReasoningDelta("I will look it up."),
            ReasoningCompleted(),
            ReasoningStarted(kind="reasoning.text", id="rs_1"),
            ReasoningDelta("Thinking."),
            ReasoningCompleted(signature="sig-thinking"),
            ReasoningStarted(),
            ReasoningCompleted(redacted="opaque-redacted"),
            StreamFinished("stop"),
        ],
        "cohere",
    )
    assert b"sig-thinking" not in data
    assert b"opaque-redacted" not in data
    kinds = [kind for kind, _ in named_events(data)]
    assert kinds == [
        "message-start",
        "tool-plan-delta",
        "content-start",
        "content-delta",
        "content-end",
        "content-start",  # the redacted block: an empty thinking block, no delta
        "content-end",
        "message-end",
    ]
    _, thinking = named_events(data)[2]
    assert thinking["delta"]["message"]["content"] == {"type": "thinking", "thinking": ""}


def test_a_provider_error_is_written_in_message_end_which_ends_the_stream() -> None:
    writer = StreamWriter("cohere")
    out = writer.send(StreamStarted("cohere", None, "r1")) + writer.send(TextDelta("So"))
    ended = writer.send(ProviderError("the generation timed out", "TIMEOUT"))
    assert [kind for kind, _ in named_events(ended)] == ["content-end"]  # the error waits for message-end
    out += ended
    for event in (
        TextDelta("more"),
        ToolCallStarted(0, "c", "f"),
        ToolCallDelta(0, "{"),
        ToolCallFailed(0, "c", "f", "{", "cut"),
        ProviderError("again"),
    ):
        assert writer.send(event) == b""
    end = writer.send(StreamFinished("error", Usage(9, 2)))
    ((_kind, record),) = named_events(end + writer.close())
    assert record["delta"] == {
        "error": "the generation timed out",
        "finish_reason": "TIMEOUT",  # Cohere's own word, on Cohere's own stream
        "usage": {"tokens": {"input_tokens": 9, "output_tokens": 2}},
    }
    ANSWERS.stream = out + end
    (*_, last) = CLIENT.chat_stream(model=MODEL, messages=ASK)
    assert type(last) is v2.MessageEndV2ChatStreamResponse
    assert last.delta is not None
    assert (last.delta.error, last.delta.finish_reason) == ("the generation timed out", "TIMEOUT")
    # Another provider's error: ERROR.  A stream cut off with no error: no message-end at all.
    other = write_stream([StreamStarted("openai"), ProviderError("overloaded", "server_error")], "cohere")
    assert named_events(other)[-1][1]["delta"] == {"error": "overloaded", "finish_reason": "ERROR"}
    cut = write_stream(
        [StreamStarted("openai"), ToolCallStarted(0, "c", "f"), ToolCallDelta(0, '{"a')], "cohere"
    )
    assert [kind for kind, _ in named_events(cut)] == ["message-start", "tool-call-start", "tool-call-delta"]


def test_a_failed_call_is_left_for_the_reader_to_end() -> None:
    data = write_stream(
        [
            ToolCallStarted(0, "c", "f"),
            ToolCallDelta(0, '{"a": [1,'),
            ToolCallFailed(0, "c", "f", '{"a": [1,', "not valid"),
            TextDelta("then text"),
            StreamFinished("stop"),
        ],
        "cohere",
    )
    assert "tool-call-end" not in [kind for kind, _ in named_events(data)]
    back = streamcalls.accumulate(streamcalls.parse(data, provider="cohere"))
    assert [type(e).__name__ for e in back.errors] == ["ToolCallFailed"]
    assert back.text == "then text"
