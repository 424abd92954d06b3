"""Tools the provider runs itself are never client calls, for every provider (issue 12, item 3).

An agent loop runs every ``ToolCallCompleted`` it gets, so a server-side
tool completing as one would be run twice, locally, with the server's
arguments.  Only the provider's own call for the client is a call:
Responses' ``function_call`` items, Anthropic's ``tool_use`` blocks,
Bedrock's ``toolUse`` without a ``type``, Gemini's ``functionCall`` parts.
The text around the server tools is kept.

The item and block types come from the official SDKs' unions (openai's
``ResponseOutputItem``, anthropic's ``RawContentBlockStartEvent``), so a new
built-in type is tested as soon as the SDK knows it; the recordings are
validated against the same SDK types.
"""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import msgspec
import pytest
from anthropic.types import RawContentBlockStartEvent
from openai._models import construct_type
from openai.types.responses import ResponseOutputItem, ResponseStreamEvent
from pydantic import TypeAdapter

from streamcalls import (
    Event,
    ParseError,
    ProviderName,
    StreamFinished,
    StreamParser,
    TextDelta,
    ToolCallCompleted,
    ToolCallStarted,
)
from tests.support import DATA, after_start, bytewise, counter_ids, normalize, sse_payloads
from tests.support import feed_content as feed_chunks
from tests.support.eventstream import build, frame


def _type_literals(union: Any) -> list[str]:
    if typing.get_origin(union) is typing.Annotated:
        union = typing.get_args(union)[0]
    return [typing.get_args(member.model_fields["type"].annotation)[0] for member in typing.get_args(union)]


RESPONSES_ITEM_TYPES = _type_literals(ResponseOutputItem)
ANTHROPIC_BLOCK_TYPES = _type_literals(RawContentBlockStartEvent.model_fields["content_block"].annotation)


def _sse(events: list[dict[str, Any]]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def _calls(events: list[Event]) -> list[str]:
    return [e.name for e in events if type(e) is ToolCallStarted]


def _feed_objects(provider: ProviderName, objects: list[Any]) -> list[Event]:
    parser = StreamParser(provider, id_factory=counter_ids())
    return after_start([event for obj in objects for event in parser.feed_event(obj)] + parser.close())


# -- OpenAI Responses ----------------------------------------------------------------------


def test_the_sdk_still_has_the_item_types_this_rule_names() -> None:
    for kind in ("function_call", "web_search_call", "file_search_call", "code_interpreter_call", "mcp_call"):
        assert kind in RESPONSES_ITEM_TYPES
    assert len(RESPONSES_ITEM_TYPES) >= 20


@pytest.mark.parametrize("kind", [k for k in RESPONSES_ITEM_TYPES if k != "function_call"])
def test_no_responses_item_but_function_call_is_a_call(kind: str) -> None:
    # Adversarial: every item carries what a function call has (a name, JSON arguments, a call id).
    item = {"id": f"{kind}_1", "type": kind, "name": "run", "arguments": '{"a": 1}', "call_id": "call_x"}
    message = {"id": "msg_1", "type": "message", "role": "assistant", "content": []}
    streamed: list[dict[str, Any]] = [
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.output_item.added", "output_index": 1, "item": message},
        {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1, "delta": "done"},
        {"type": "response.output_item.done", "output_index": 1, "item": message},
        {"type": "response.completed", "response": {"status": "completed", "output": [item]}},
    ]
    summary_only: list[dict[str, Any]] = [
        {"type": "response.completed", "response": {"status": "completed", "output": [item]}}
    ]
    for events in (streamed, summary_only):
        got = feed_chunks([_sse(events)], "openai-responses")
        assert _calls(got) == []
        assert got[-1] == StreamFinished("stop", None, "completed")
    assert TextDelta("done") in feed_chunks([_sse(streamed)], "openai-responses")


RESPONSES_RECORDINGS = ["builtin_tools_then_call", "builtin_tools_completed_only", "server_tools_then_call"]


@pytest.mark.parametrize("name", RESPONSES_RECORDINGS)
def test_the_responses_recordings_items_are_valid_sdk_items(name: str) -> None:
    items = TypeAdapter(ResponseOutputItem)
    seen = 0
    for payload in sse_payloads(DATA / "openai-responses" / f"{name}.sse"):
        found = ([payload["item"]] if "item" in payload else []) + payload.get("response", {}).get(
            "output", []
        )
        for item in found:
            assert items.validate_python(item).type == item["type"]  # strict: every required field there
            seen += 1
    assert seen


@pytest.mark.parametrize("name", RESPONSES_RECORDINGS)
def test_sdk_event_objects_give_what_the_bytes_give(name: str) -> None:
    # What the SDK's stream hands over: each payload built into its ResponseStreamEvent type.
    path = DATA / "openai-responses" / f"{name}.sse"
    objects = [construct_type(type_=ResponseStreamEvent, value=payload) for payload in sse_payloads(path)]
    assert [type(obj).__name__ for obj in objects][-1] == "ResponseCompletedEvent"
    assert _feed_objects("openai-responses", objects) == feed_chunks([path.read_bytes()], "openai-responses")


def test_only_the_function_call_of_the_builtin_tools_recording_is_a_call() -> None:
    path = DATA / "openai-responses" / "builtin_tools_then_call.sse"
    kinds = {
        item["type"]
        for payload in sse_payloads(path)
        for item in payload.get("response", {}).get("output", [])
    }
    assert len(kinds) >= 12  # most of the SDK's built-in item types, streamed
    assert _calls(feed_chunks(bytewise(path.read_bytes()), "auto")) == ["save_note"]


# -- Anthropic -----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [k for k in ANTHROPIC_BLOCK_TYPES if k != "tool_use"])
def test_no_anthropic_block_but_tool_use_is_a_call(kind: str) -> None:
    block = {"type": kind, "id": "srvtoolu_1", "name": "web_search", "input": {"q": "x"}}
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"usage": {"input_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": block},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": "{}"},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "kept"}},
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}},
        {"type": "message_stop"},
    ]
    got = feed_chunks([_sse(events)], "anthropic")
    assert _calls(got) == []
    assert TextDelta("kept") in got
    assert not [e for e in got if type(e) is ParseError]


# -- Bedrock ------------------------------------------------------------------------------------

BEDROCK_RECORDING = DATA / "bedrock" / "server_tool_then_call.frames.jsonl"


def test_a_bedrock_server_tool_use_and_its_result_are_not_calls() -> None:
    data = BEDROCK_RECORDING.with_name("server_tool_then_call.bin").read_bytes()
    got = feed_chunks(bytewise(data), "auto")
    assert _calls(got) == ["save_note"]
    assert not [e for e in got if type(e) is ParseError]  # the server tool's input is not "stray"
    text = "".join(e.text for e in got if type(e) is TextDelta)
    assert text == "I'll compute the average with code.The average is 12. Saving it."


def test_boto3_shaped_events_give_what_the_bytes_give() -> None:
    # boto3 hands over each event as {event type: payload}.
    records = [msgspec.json.decode(line) for line in BEDROCK_RECORDING.read_bytes().splitlines()]
    objects = [{record["event"]: record["payload"]} for record in records]
    data = build(BEDROCK_RECORDING)
    assert _feed_objects("bedrock", objects) == feed_chunks([data], "bedrock", id_factory=counter_ids())


def test_a_bedrock_tool_use_of_an_unknown_type_is_not_a_client_call() -> None:
    def start(index: int, tool: dict[str, Any]) -> dict[str, Any]:
        return {
            "event": "contentBlockStart",
            "payload": {"contentBlockIndex": index, "start": {"toolUse": tool}},
        }

    records = [
        start(0, {"toolUseId": "t0", "name": "a", "type": "some_future_server_tool"}),
        start(1, {"toolUseId": "t1", "name": "b"}),
        {
            "event": "contentBlockDelta",
            "payload": {"contentBlockIndex": 1, "delta": {"toolUse": {"input": "{}"}}},
        },
        {"event": "contentBlockStop", "payload": {"contentBlockIndex": 1}},
        {"event": "messageStop", "payload": {"stopReason": "tool_use"}},
    ]
    got = feed_chunks([b"".join(frame(r) for r in records)], "bedrock")
    assert _calls(got) == ["b"]


# -- Gemini --------------------------------------------------------------------------------------

SERVER_PARTS: list[dict[str, Any]] = [
    {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
    {"executableCode": {"language": 1, "code": "print(1)", "id": "ec_1"}},  # enum-encoding=int
    {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1\n"}},
    {"codeExecutionResult": {"outcome": 2, "output": "Traceback ...", "id": "ec_1"}},
    {"toolCall": {"id": "tc_1", "toolType": "GOOGLE_SEARCH_WEB", "args": {"queries": ["x"]}}},
    {"toolResponse": {"id": "tc_1", "toolType": "GOOGLE_SEARCH_WEB", "response": {"results": []}}},
]


@pytest.mark.parametrize("part", SERVER_PARTS, ids=lambda part: next(iter(part)))
def test_no_gemini_part_but_function_call_is_a_call(part: dict[str, Any]) -> None:
    chunks = [
        {"candidates": [{"content": {"parts": [{"text": "before "}, part, {"text": "after"}]}}]},
        {"candidates": [{"content": {"parts": [part]}, "finishReason": "STOP"}]},
    ]
    data = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)
    got = feed_chunks([data], "gemini")
    assert got == [TextDelta("before "), TextDelta("after"), StreamFinished("stop", None, "STOP")]
    assert _feed_objects("gemini", chunks) == got


def test_the_gemini_recording_keeps_its_text_and_its_one_call() -> None:
    path = DATA / "gemini" / "server_tools_then_call.sse"
    got = feed_chunks(bytewise(path.read_bytes()), "auto")
    assert _calls(got) == ["save_note"]
    assert [type(e) for e in got if type(e) is ToolCallCompleted] == [ToolCallCompleted]
    assert normalize([e for e in got if type(e) is TextDelta]) == [
        TextDelta("I'll add the numbers with code.The sum is 5050. Saving it.")
    ]


def _recording_paths() -> list[Path]:
    return [
        DATA / "openai-responses" / "builtin_tools_then_call.sse",
        DATA / "openai-responses" / "server_tools_then_call.sse",
        DATA / "anthropic" / "server_tool_then_call.sse",
        DATA / "bedrock" / "server_tool_then_call.bin",
        DATA / "gemini" / "server_tools_then_call.sse",
    ]


@pytest.mark.parametrize("path", _recording_paths(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_server_tool_recording_completes_only_the_client_calls(path: Path) -> None:
    expected = [
        msgspec.json.decode(line) for line in path.with_suffix(".events.jsonl").read_bytes().splitlines()
    ]
    completed = [e["call"]["name"] for e in expected if e["type"] == "tool_call_completed"]
    assert completed == _calls(feed_chunks([path.read_bytes()], path.parent.name))
    assert completed in (["save_note"],)
