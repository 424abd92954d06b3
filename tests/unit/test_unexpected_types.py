"""A value of an unexpected type costs only that value, for every adapter (issue 12, item 2).

The strict typed decode stays the fast path.  When it fails, the record is
read again without the value msgspec names: its text, reasoning, calls,
finish reason and usage still come out, and one ParseError per stream names
the value's path.  Gemini's enums sent as numbers (``enum-encoding=int``)
are not errors at all: the finish and block reasons map to their names.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import msgspec
import pytest

from streamcalls import (
    Event,
    ParseError,
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
    ToolCallStarted,
    Usage,
)
from streamcalls._lenient import MAX_SKIPPED, error_path
from streamcalls.providers.gemini.reader import BLOCK_REASON_NAMES, FINISH_REASON_NAMES
from tests.support import after_start, bytewise, counter_ids, normalize
from tests.support import feed_content as feed_chunks
from tests.support.eventstream import frame

SKIPPED = "skipped the value of an unexpected type at "


def sse(*payloads: dict[str, Any], done: bool = False) -> bytes:
    out = b"".join(b"data: " + json.dumps(p).encode() + b"\n\n" for p in payloads)
    return out + (b"data: [DONE]\n\n" if done else b"")


def bedrock_frames(*events: tuple[str, dict[str, Any]]) -> bytes:
    return b"".join(frame({"event": name, "payload": payload}) for name, payload in events)


# provider -> (records, the path the first bad value is at, the events the rest of the records give).
# Each stream has two bad values in different records: only the first is reported.  The bad
# values are of a type no conversion reads (feed_event converts leniently: "3" is read as 3).
CASES: dict[str, tuple[list[Any], str, list[Event]]] = {
    "openai": (
        [
            {
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": {"content": "Hello", "refusal": 7}}],
            },
            {"object": "chat.completion.chunk", "choices": [{"index": [0], "delta": {"content": " world"}}]},
            {
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
            },
        ],
        "$.choices[0].delta.refusal",
        [TextDelta("Hello world"), StreamFinished("stop", Usage(3, 2, 5), "stop")],
    ),
    "anthropic": (
        [
            {"type": "message_start", "message": {"usage": {"input_tokens": [10], "output_tokens": 1}}},
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "Hi", "stop_reason": 5},
            },
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 4}},
            {"type": "message_stop"},
        ],
        "$.message.usage.input_tokens",
        [TextDelta("Hi"), StreamFinished("stop", Usage(output_tokens=4, total_tokens=4), "end_turn")],
    ),
    "gemini": (
        [
            {"candidates": [{"content": {"parts": [{"text": 5}, {"text": "ok"}]}}]},
            {
                "candidates": [{"content": {"parts": [{"text": "!"}]}, "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 2, "candidatesTokenCount": [3], "totalTokenCount": 5},
            },
        ],
        "$.candidates[0].content.parts[0].text",
        [TextDelta("ok!"), StreamFinished("stop", Usage(input_tokens=2, total_tokens=5), "STOP")],
    ),
    "ollama": (
        [
            {"message": {"role": "assistant", "content": "hi", "thinking": 5}, "done": False},
            {
                "message": {"role": "assistant", "content": ""},
                "done": True,
                "done_reason": "stop",
                "prompt_eval_count": 4,
                "eval_count": {"n": 2},
            },
        ],
        "$.message.thinking",
        [TextDelta("hi"), StreamFinished("stop", Usage(4, None, 4), "stop")],
    ),
    "cohere": (
        [
            {"type": "message-start", "delta": {"message": {"role": "assistant"}}},
            {"type": "content-delta", "index": [0], "delta": {"message": {"content": {"text": "hi"}}}},
            {
                "type": "content-delta",
                "index": 0,
                "delta": {"message": {"content": {"thinking": 3, "text": "!"}}},
            },
            {"type": "message-end", "delta": {"finish_reason": "COMPLETE"}},
        ],
        "$.index",
        [TextDelta("hi!"), StreamFinished("stop", None, "COMPLETE")],
    ),
    "openai-responses": (
        [
            {"type": "response.output_text.delta", "sequence_number": 0, "item_id": 5, "delta": "hi"},
            {
                "type": "response.completed",
                "sequence_number": 1,
                "response": {"status": "completed", "usage": {"input_tokens": [5], "output_tokens": 1}},
            },
        ],
        "$.item_id",
        [TextDelta("hi"), StreamFinished("stop", Usage(output_tokens=1), "completed")],
    ),
    "bedrock": (
        [
            ("messageStart", {"role": "assistant"}),
            ("contentBlockDelta", {"contentBlockIndex": [0], "delta": {"text": "hi"}}),
            ("contentBlockStop", {"contentBlockIndex": 0}),
            ("messageStop", {"stopReason": "end_turn"}),
            ("metadata", {"usage": {"inputTokens": [4], "outputTokens": 1, "totalTokens": 5}}),
        ],
        "$.contentBlockIndex",
        [TextDelta("hi"), StreamFinished("stop", Usage(None, 1, 5), "end_turn")],
    ),
}
PROVIDERS = sorted(CASES)


def as_bytes(provider: str, records: list[Any]) -> bytes:
    if provider == "bedrock":
        return bedrock_frames(*records)
    if provider == "ollama":
        return b"".join(json.dumps(r).encode() + b"\n" for r in records)
    return sse(*records, done=provider == "openai")


def check(events: list[Event], path: str, rest: list[Event]) -> None:
    errors = [e for e in events if type(e) is ParseError]
    assert len(errors) == 1, errors  # once per stream, however many bad values
    assert SKIPPED + path in errors[0].message
    assert normalize([e for e in events if type(e) is not ParseError]) == rest


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_rest_of_the_record_is_read_and_the_value_named_once(provider: str) -> None:
    records, path, rest = CASES[provider]
    data = as_bytes(provider, records)
    check(feed_chunks([data], provider), path, rest)
    check(feed_chunks(bytewise(data), "auto"), path, rest)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_feed_event_reads_the_rest_and_leaves_the_callers_data_alone(provider: ProviderName) -> None:
    records, path, rest = CASES[provider]
    objects = [{name: payload} for name, payload in records] if provider == "bedrock" else records
    before = copy.deepcopy(objects)
    parser = StreamParser(provider)
    events = [event for obj in objects for event in parser.feed_event(obj)] + parser.close()
    check(after_start(events), path, rest)
    assert objects == before


def test_a_bad_value_inside_a_call_keeps_the_call() -> None:
    first = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "f", "arguments": '{"a": 1}'},
    }
    data = sse(
        {"choices": [{"index": 0, "delta": {"tool_calls": [first], "reasoning": ["not", "text"]}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        done=True,
    )
    events = feed_chunks([data], "openai")
    assert type(events[0]) is ParseError
    assert events[1:] == [
        ToolCallStarted(0, "call_1", "f"),
        ToolCallDelta(0, '{"a": 1}'),
        ToolCallCompleted(ToolCall("call_1", "f", {"a": 1}, 0)),
        StreamFinished("tool_calls", None, "tool_calls"),
    ]


def test_several_bad_values_in_one_record_are_named_together() -> None:
    data = sse(
        {"choices": [{"index": 0, "delta": {"content": "x", "refusal": 1, "reasoning": 2}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        done=True,
    )
    events = feed_chunks([data], "openai")
    assert type(events[0]) is ParseError
    assert SKIPPED + "$.choices[0].delta.refusal (Expected `str | null`, got `int`), " in events[0].message
    assert "$.choices[0].delta.reasoning (Expected `str | null`, got `int`)" in events[0].message
    assert events[1:] == [TextDelta("x"), StreamFinished("stop", None, "stop")]


def test_a_record_with_too_many_bad_values_is_dropped_whole() -> None:
    choices = [{"index": i, "delta": 5} for i in range(MAX_SKIPPED + 1)]
    data = sse({"choices": choices}, {"choices": [{"index": 0, "delta": {"content": "next"}}]})
    events = feed_chunks([data], "openai")
    assert type(events[0]) is ParseError
    assert events[0].message.startswith("OpenAI chunk has an unexpected shape")
    assert events[1] == TextDelta("next")


def test_a_record_of_the_wrong_type_is_dropped_whole() -> None:
    events = feed_chunks([sse({"choices": [{"delta": {"content": "a"}}]}) + b"data: [1, 2]\n\n"], "openai")
    assert events[0] == TextDelta("a")
    assert type(events[1]) is ParseError
    assert events[1].message.startswith(
        "OpenAI chunk has an unexpected shape: Expected `object`, got `array`"
    )


def test_invalid_json_after_a_bad_value_is_still_invalid_json() -> None:
    data = b'data: {"choices": [{"delta": {"content": 5}}], "x": [1,\n\n'
    events = feed_chunks([data], "openai")
    assert type(events[0]) is ParseError
    assert events[0].message.startswith("OpenAI chunk is not valid JSON")


@pytest.mark.parametrize("mode", ["replace", "report"])
def test_invalid_utf8_with_a_bad_value(mode: str) -> None:
    data = b'data: {"choices": [{"delta": {"content": "a\xff", "refusal": 1}}]}\n\n'
    events = StreamParser("openai", invalid_utf8=mode).feed(data)
    if mode == "replace":
        assert [type(e) for e in events] == [ParseError, StreamStarted, TextDelta]
        assert events[2] == TextDelta("a\ufffd")
    else:  # only the bad byte is dropped (reported at its stream offset); the rest is read
        assert [type(e) for e in events] == [ParseError, ParseError, StreamStarted, TextDelta]
        assert isinstance(events[0], ParseError)
        assert events[0].message == "invalid UTF-8 at stream byte 43 (1 byte); dropped"
        assert events[3] == TextDelta("a")


# -- the path in msgspec's message ---------------------------------------------------------


def test_error_path_reads_fields_and_indices() -> None:
    class View(msgspec.Struct, rename="camel"):
        finish_reason: str | None = None
        items: list[list[int]] = []

    for data, text, segments in [
        (b'{"finishReason": 1}', "$.finishReason", ("finishReason",)),
        (b'{"items": [[1], [2, "x"]]}', "$.items[1][1]", ("items", 1, 1)),
    ]:
        with pytest.raises(msgspec.ValidationError) as caught:
            msgspec.json.decode(data, type=View)
        assert error_path(caught.value) == (text, segments)


def test_error_path_is_none_when_msgspec_names_no_field() -> None:
    with pytest.raises(msgspec.ValidationError) as caught:
        msgspec.json.decode(b"[]", type=dict[str, int])
    assert error_path(caught.value) is None
    with pytest.raises(msgspec.ValidationError) as caught:
        msgspec.json.decode(b'{"a": "x"}', type=dict[str, int])
    assert error_path(caught.value) is None  # a dict value: `$[...]`


# -- Gemini's enums as numbers -------------------------------------------------------------

# Transcribed from the Gemini API's google/ai/generativelanguage/v1beta/generative_service.proto
# (Candidate.FinishReason, GenerateContentResponse.PromptFeedback.BlockReason).
PROTO = """
FINISH_REASON_UNSPECIFIED = 0; STOP = 1; MAX_TOKENS = 2; SAFETY = 3; RECITATION = 4;
LANGUAGE = 6; OTHER = 5; BLOCKLIST = 7; PROHIBITED_CONTENT = 8; SPII = 9;
MALFORMED_FUNCTION_CALL = 10; IMAGE_SAFETY = 11; IMAGE_PROHIBITED_CONTENT = 14;
IMAGE_OTHER = 15; NO_IMAGE = 16; IMAGE_RECITATION = 17; UNEXPECTED_TOOL_CALL = 12;
TOO_MANY_TOOL_CALLS = 13;
"""
BLOCK_PROTO = "BLOCK_REASON_UNSPECIFIED = 0; SAFETY = 1; OTHER = 2; BLOCKLIST = 3; PROHIBITED_CONTENT = 4; IMAGE_SAFETY = 5;"


def _numbers(text: str) -> dict[int, str]:
    return {int(n): name for name, n in re.findall(r"(\w+) = (\d+);", text) if int(n)}


def test_the_number_tables_are_the_gemini_apis() -> None:
    assert _numbers(PROTO) == FINISH_REASON_NAMES
    assert _numbers(BLOCK_PROTO) == BLOCK_REASON_NAMES


def _gemini_finish(reason: Any) -> list[Event]:
    last = {"candidates": [{"content": {"parts": [{"text": "t"}]}, "finishReason": reason}]}
    return feed_chunks([sse(last)], "gemini")


@pytest.mark.parametrize("number", sorted(FINISH_REASON_NAMES))
def test_a_numeric_finish_reason_reads_as_its_name(number: int) -> None:
    assert _gemini_finish(number) == _gemini_finish(FINISH_REASON_NAMES[number])


def test_an_unknown_finish_number_keeps_the_number() -> None:
    assert _gemini_finish(99)[-1] == StreamFinished("stop", None, "99")


def test_a_numeric_block_reason_reads_as_its_name() -> None:
    events = feed_chunks([sse({"promptFeedback": {"blockReason": 4}})], "gemini")
    assert events == [StreamFinished("content_filter", None, "PROHIBITED_CONTENT")]


def test_a_numeric_null_value_in_vertex_partial_args_is_null() -> None:
    def part(fc: dict[str, Any]) -> dict[str, Any]:
        return {"candidates": [{"content": {"parts": [{"functionCall": fc}]}}]}

    data = sse(
        part({"name": "f", "willContinue": True}),
        part({"partialArgs": [{"jsonPath": "$.a", "nullValue": 0}], "willContinue": True}),
        part({}),
        {"candidates": [{"finishReason": 1}]},
    )
    events = feed_chunks([data], "gemini", id_factory=counter_ids())
    assert ToolCallCompleted(ToolCall("call_gen_0", "f", {"a": None}, 0)) in events
    assert not [e for e in events if type(e) is ParseError]


def test_reasoning_is_read_around_a_bad_value() -> None:
    data = sse(
        {"candidates": [{"content": {"parts": [{"text": "think", "thought": True}, {"text": 1}]}}]},
        {"candidates": [{"content": {"parts": [{"text": "say"}]}, "finishReason": "STOP"}]},
    )
    events = [e for e in feed_chunks([data], "gemini") if type(e) is not ParseError]
    assert events == [
        ReasoningStarted(kind="thought"),
        ReasoningDelta("think"),
        ReasoningCompleted(),
        TextDelta("say"),
        StreamFinished("stop", None, "STOP"),
    ]
