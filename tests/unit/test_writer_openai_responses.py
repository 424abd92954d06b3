"""The ``"openai-responses"`` target, read by the openai SDK's own types and stream helper.

The round trip through the parser is ``tests/corpus/test_writer_roundtrip.py``'s; here the bytes are
checked against what the Responses wire is: every event a ``ResponseStreamEvent`` the SDK
validates, named by its ``event:`` line, ``sequence_number`` 0, 1, 2, ..., each item at the next
``output_index`` and its events naming it; the ids the API gives (``resp_``, ``msg_``, ``rs_``,
``fc_``, and ``call_`` for a call that came without one); each argument fragment and text delta in
the ``send`` of its own event; reasoning by the exact-turns rules; the error, the finishes and the
usage.  The SDK's ``responses.stream`` helper, pointed at the written bytes through a
``MockTransport``, gives a final response equal to the source's turn for every recording of the
corpus, and ``write_response`` validates as a ``Response``.
"""

from __future__ import annotations

import json
import re
import typing
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import streamcalls
from streamcalls import (
    Event,
    ParseError,
    ProviderError,
    ReasoningCompleted,
    ReasoningDelta,
    ReasoningPart,
    ReasoningStarted,
    StreamFinished,
    StreamStarted,
    TextDelta,
    TextPart,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallStarted,
    Turn,
    Usage,
    write_response,
    write_stream,
)
from tests.support import Case, corpus
from tests.support.sdk_clients import sdk_client
from tests.support.ui_streams import Item, event_lists
from tests.support.writer_roundtrip import arguments_of, first_stream, with_wire_ids

openai = pytest.importorskip("openai")
pytest.importorskip("httpx2")  # what the installed SDK is built on
from openai.types.responses import Response, ResponseStreamEvent  # noqa: E402

EVENT_TYPES: dict[str, Any] = {
    model.model_fields["type"].annotation.__args__[0]: model
    for model in typing.get_args(typing.get_args(ResponseStreamEvent)[0])
}
"""The SDK's model of each stream event, by its ``type``."""
CASES = corpus()


def records(body: bytes) -> list[dict[str, Any]]:
    """The written stream's events, read plainly: each ``event:`` line's name and its ``data:``'s JSON
    (the name must be the data's ``type``)."""
    out = []
    text = body.decode()
    assert text.endswith("\n\n"), "an event ends with a blank line"
    for event in text[:-2].split("\n\n"):
        name, data = event.split("\n")
        assert name.startswith("event: ")
        assert data.startswith("data: ")
        record = json.loads(data[len("data: ") :])
        assert record["type"] == name[len("event: ") :]
        out.append(record)
    return out


def of_type(body: bytes, kind: str) -> list[dict[str, Any]]:
    return [record for record in records(body) if record["type"] == kind]


EVENTS: list[Event] = [
    StreamStarted("anthropic", "claude-x", "msg_1"),
    ReasoningStarted(None, "thinking"),
    ReasoningDelta("Let me "),
    ReasoningDelta("think."),
    ReasoningCompleted(signature="sig-anthropic"),
    TextDelta("Looking "),
    TextDelta("it up."),
    ToolCallStarted(0, "toolu_1", "get_weather"),
    ToolCallDelta(0, '{"city":'),
    ToolCallDelta(0, ' "Paris"}'),
    ToolCallCompleted(ToolCall("toolu_1", "get_weather", {"city": "Paris"}, 0)),
    ToolCallStarted(1, "", "get_time"),
    ToolCallCompleted(ToolCall("", "get_time", {"zone": "CET"}, 1)),
    StreamFinished("tool_calls", Usage(10, 20, 30, reasoning_tokens=5, cache_read_tokens=3)),
]

# -- the framing -----------------------------------------------------------------------------------------


def test_every_event_is_the_sdks_and_numbered_in_sequence() -> None:
    body = write_stream(EVENTS, "openai-responses")
    written = records(body)
    for record in written:
        EVENT_TYPES[record["type"]].model_validate(record)
    assert [record["sequence_number"] for record in written] == list(range(len(written)))
    assert [record["type"] for record in written[:2]] == ["response.created", "response.in_progress"]
    assert written[-1]["type"] == "response.completed"
    assert b"[DONE]" not in body
    responses = [record["response"] for record in written if "response" in record]
    assert {response["id"] for response in responses} == {"msg_1"}
    assert {response["model"] for response in responses} == {"claude-x"}
    assert len({response["created_at"] for response in responses}) == 1


def test_each_item_takes_the_next_output_index_and_its_events_name_it() -> None:
    written = records(write_stream(EVENTS, "openai-responses"))
    added = [record for record in written if record["type"] == "response.output_item.added"]
    assert [record["output_index"] for record in added] == [0, 1, 2, 3]
    assert [record["item"]["type"] for record in added] == [
        "reasoning",
        "message",
        "function_call",
        "function_call",
    ]
    place = {record["item"]["id"]: record["output_index"] for record in added}
    for record in written:
        if "item_id" in record:
            assert place[record["item_id"]] == record["output_index"], record
    done = [record for record in written if record["type"] == "response.output_item.done"]
    assert [record["output_index"] for record in done] == [0, 1, 2, 3]
    assert written[-1]["response"]["output"] == [record["item"] for record in done]


def test_the_ids_are_the_apis() -> None:
    written = records(write_stream(EVENTS[1:], "openai-responses"))
    assert re.fullmatch(r"resp_[0-9a-f]{24}", written[0]["response"]["id"])
    items = [record["item"] for record in written if record["type"] == "response.output_item.done"]
    prefixes = [re.fullmatch(r"([a-z]+)_[0-9a-f]{24}", item["id"]) for item in items]
    assert [match.group(1) for match in prefixes if match] == ["rs", "msg", "fc", "fc"]
    assert items[2]["call_id"] == "toolu_1"  # the call's id is its call_id
    assert re.fullmatch(r"call_[0-9a-f]{24}", items[3]["call_id"])


def test_a_completed_call_and_a_call_that_came_whole() -> None:
    written = records(write_stream(EVENTS, "openai-responses"))
    deltas = [r["delta"] for r in written if r["type"] == "response.function_call_arguments.delta"]
    assert deltas == ['{"city":', ' "Paris"}', '{"zone":"CET"}']
    done = [r for r in written if r["type"] == "response.function_call_arguments.done"]
    assert [(r["name"], r["arguments"]) for r in done] == [
        ("get_weather", '{"city": "Paris"}'),
        ("get_time", '{"zone":"CET"}'),
    ]
    items = [r["item"] for r in written if r["type"] == "response.output_item.done"][2:]
    assert [(i["status"], i["arguments"]) for i in items] == [
        ("completed", '{"city": "Paris"}'),
        ("completed", '{"zone":"CET"}'),
    ]


def test_a_failed_call_closes_incomplete_with_the_arguments_it_had() -> None:
    events: list[Event] = [
        ToolCallStarted(0, "call_1", "f"),
        ToolCallDelta(0, '{"a": [1,'),
        ToolCallFailed(0, "call_1", "f", '{"a": [1,', "cut"),
        StreamFinished("length"),
    ]
    body = write_stream(events, "openai-responses")
    (item,) = [r["item"] for r in records(body) if r["type"] == "response.output_item.done"]
    assert (item["status"], item["arguments"]) == ("incomplete", '{"a": [1,')
    assert of_type(body, "response.function_call_arguments.done") == []
    back = streamcalls.parse(body, "openai-responses")
    assert [type(e).__name__ for e in back if isinstance(e, (ToolCallFailed, ToolCallCompleted))] == [
        "ToolCallFailed"
    ]


# -- incremental -----------------------------------------------------------------------------------------


def test_each_fragment_and_delta_is_written_by_its_own_send() -> None:
    writer = streamcalls.StreamWriter("openai-responses")
    writer.send(StreamStarted("openai", "m", "resp_1"))
    sent = records(writer.send(TextDelta("Hel")))
    assert [r["type"] for r in sent] == [
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
    ]
    assert sent[-1]["delta"] == "Hel"
    assert [(r["type"], r["delta"]) for r in records(writer.send(TextDelta("lo")))] == [
        ("response.output_text.delta", "lo")
    ]
    writer.send(ToolCallStarted(0, "call_1", "f"))
    for fragment in ['{"a', '": ', "1}"]:
        (record,) = records(writer.send(ToolCallDelta(0, fragment)))
        assert (record["type"], record["delta"]) == ("response.function_call_arguments.delta", fragment)


# -- reasoning, by the exact-turns rules -------------------------------------------------------------------


def test_another_providers_signed_reasoning_goes_as_its_text_only() -> None:
    body = write_stream(
        [
            StreamStarted("anthropic", "claude-x", "msg_1"),
            ReasoningStarted(None, "thinking"),
            ReasoningDelta("plan"),
            ReasoningCompleted(signature="sig-1"),
            ReasoningStarted(None, "redacted_thinking"),
            ReasoningCompleted(redacted="opaque-1"),
            ReasoningStarted(None, "thinking"),
            ReasoningCompleted(encrypted="enc-1"),
            TextDelta("ok"),
        ],
        "openai-responses",
    )
    items = [r["item"] for r in of_type(body, "response.output_item.done")]
    assert items[0]["summary"] == [{"type": "summary_text", "text": "plan"}]
    assert "encrypted_content" not in items[0]
    assert [item["type"] for item in items] == ["reasoning", "message"]  # nothing of the empty blocks
    for secret in (b"sig-1", b"opaque-1", b"enc-1"):
        assert secret not in body


def test_a_responses_streams_own_items_go_back_as_they_came() -> None:
    body = write_stream(
        [
            StreamStarted("openai-responses", "o4", "resp_1"),
            ReasoningStarted("rs_1", "summary_text"),
            ReasoningDelta("first"),
            ReasoningCompleted(),
            ReasoningStarted("rs_1", "summary_text"),
            ReasoningDelta("second"),
            ReasoningCompleted(encrypted="gAAAA-1"),
            ReasoningStarted("rs_2", "reasoning_text"),
            ReasoningDelta("raw"),
            ReasoningCompleted(),
            ReasoningStarted("rs_3"),
            ReasoningCompleted(encrypted="gAAAA-3"),
            TextDelta("done"),
        ],
        "openai-responses",
    )
    items = [r["item"] for r in of_type(body, "response.output_item.done")]
    assert items[:3] == [
        {
            "id": "rs_1",
            "type": "reasoning",
            "summary": [
                {"type": "summary_text", "text": "first"},
                {"type": "summary_text", "text": "second"},
            ],
            "encrypted_content": "gAAAA-1",
        },
        {
            "id": "rs_2",
            "type": "reasoning",
            "summary": [],
            "content": [{"type": "reasoning_text", "text": "raw"}],
        },
        {"id": "rs_3", "type": "reasoning", "summary": [], "encrypted_content": "gAAAA-3"},
    ]
    parts = of_type(body, "response.reasoning_summary_part.added")
    assert [(r["item_id"], r["summary_index"]) for r in parts] == [("rs_1", 0), ("rs_1", 1)]
    (raw,) = of_type(body, "response.reasoning_text.delta")
    assert (raw["item_id"], raw["content_index"], raw["delta"]) == ("rs_2", 0, "raw")
    back = streamcalls.accumulate(streamcalls.parse(body, "openai-responses"))
    assert [(p.id, p.kind, p.text, p.encrypted) for p in back.parts if type(p) is ReasoningPart] == [
        ("rs_1", "summary_text", "first", None),
        ("rs_1", "summary_text", "second", "gAAAA-1"),
        ("rs_2", "reasoning_text", "raw", None),
        ("rs_3", None, "", "gAAAA-3"),
    ]


# -- errors, the finishes, usage ------------------------------------------------------------------------


def test_a_provider_error_is_an_error_event_where_it_comes() -> None:
    body = write_stream(
        [TextDelta("a"), ProviderError("overloaded", "server_error"), TextDelta("b")], "openai-responses"
    )
    (error,) = of_type(body, "error")
    assert {key: error[key] for key in ("code", "message", "param")} == {
        "code": "server_error",
        "message": "overloaded",
        "param": None,
    }
    assert [r["delta"] for r in of_type(body, "response.output_text.delta")] == ["a", "b"]  # it goes on


@pytest.mark.parametrize(
    ("reason", "kind", "status", "details"),
    [
        ("stop", "response.completed", "completed", None),
        ("tool_calls", "response.completed", "completed", None),
        ("length", "response.incomplete", "incomplete", {"reason": "max_output_tokens"}),
        ("content_filter", "response.incomplete", "incomplete", {"reason": "content_filter"}),
    ],
)
def test_the_finish(reason: str, kind: str, status: str, details: Any) -> None:
    last = records(write_stream([TextDelta("a"), StreamFinished(reason)], "openai-responses"))[-1]
    assert (last["type"], last["response"]["status"]) == (kind, status)
    assert last["response"]["incomplete_details"] == details
    assert last["response"]["error"] is None


def test_a_failed_response_says_why() -> None:
    after_error: list[Event] = [
        TextDelta("a"),
        ProviderError("overloaded", "server_error"),
        StreamFinished("error"),
    ]
    last = records(write_stream(after_error, "openai-responses"))[-1]
    assert last["type"] == "response.failed"
    assert last["response"]["error"] == {"code": "server_error", "message": "overloaded"}
    cut: list[Event] = [
        TextDelta("a"),
        ParseError("stream ended before [DONE] (truncated)"),
        StreamFinished("error"),
    ]
    last = records(write_stream(cut, "openai-responses"))[-1]
    assert last["response"]["error"] == {
        "code": "server_error",
        "message": "stream ended before [DONE] (truncated)",
    }
    last = records(write_stream([ToolCallStarted(0, "call_1", "f")], "openai-responses"))[-1]
    assert last["response"]["error"] == {"code": "server_error", "message": "the stream ended in an error"}


def test_the_usage() -> None:
    last = records(write_stream(EVENTS, "openai-responses"))[-1]
    assert last["response"]["usage"] == {
        "input_tokens": 10,
        "output_tokens": 20,
        "total_tokens": 30,
        "input_tokens_details": {"cached_tokens": 3, "cache_write_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 5},
    }
    # Every count ResponseUsage requires: the total where none was sent, 0 for what there is none of.
    usage = Usage(4, 6, cache_write_tokens=2)
    last = records(write_stream([StreamFinished("stop", usage)], "openai-responses"))[-1]
    assert last["response"]["usage"] == {
        "input_tokens": 4,
        "output_tokens": 6,
        "total_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 2},
        "output_tokens_details": {"reasoning_tokens": 0},
    }
    back = streamcalls.parse(
        write_stream([StreamFinished("stop", usage)], "openai-responses"), "openai-responses"
    )
    assert back[-1].usage == Usage(4, 6, 10, 0, 0, 2)  # type: ignore[union-attr]


# -- the openai SDK's stream helper ----------------------------------------------------------------------


def sdk_final(body: bytes) -> Any:
    """The SDK's final response: ``get_final_response()``, or for a response that ended incomplete (the
    helper waits for ``response.completed``) the one its ``response.incomplete`` event holds."""
    with sdk_client(openai.OpenAI, body).responses.stream(model="m", input="Hi") as stream:
        ended = [event for event in stream if event.type == "response.incomplete"]
        return ended[-1].response if ended else stream.get_final_response()


FINISHES = {"completed": "stop", "max_output_tokens": "length", "content_filter": "content_filter"}


def sdk_shape(response: Any) -> dict[str, Any]:
    parts: list[tuple[Any, ...]] = []
    for item in response.output:
        if item.type == "message":
            parts.append(("text", "".join(part.text for part in item.content)))
        elif item.type == "reasoning":
            parts += [("reasoning", part.text) for part in [*item.summary, *(item.content or [])]]
        elif item.type == "function_call":
            parts.append(("call", item.call_id, item.name, arguments_of(item.arguments)))
    details = response.incomplete_details
    usage = response.usage
    return {
        "id": response.id,
        "model": response.model,
        "parts": parts,
        "finish": FINISHES[details.reason if details is not None else response.status],
        "usage": None if usage is None else (usage.input_tokens, usage.output_tokens),
    }


def turn_shape(turn: Turn, made_id: str) -> dict[str, Any]:
    """What the SDK should read of ``turn``; ``made_id``: the response id the writer made, if the turn
    has none."""
    parts: list[tuple[Any, ...]] = []
    for part in turn.parts:
        if type(part) is TextPart:
            if parts and parts[-1][0] == "text" and part.signature is None:
                parts[-1] = ("text", parts[-1][1] + part.text)  # (a text block is one message)
            elif part.text:
                parts.append(("text", part.text))
        elif type(part) is ReasoningPart:
            if part.text:
                parts.append(("reasoning", part.text))
        elif type(part) is ToolCall:
            parts.append(("call", part.id, part.name, part.arguments))
    usage = turn.usage
    finish = turn.finish_reason
    return {
        "id": turn.response_id or made_id,
        "model": turn.model or "",
        "parts": parts,
        "finish": "stop" if finish == "tool_calls" else finish,  # (the parser's word for calls)
        "usage": None if usage is None else (usage.input_tokens or 0, usage.output_tokens or 0),
    }


SDK_CASES = [
    case
    for case in CASES
    if not (turn := streamcalls.accumulate(case.expected())).errors and turn.finish_reason != "error"
]


@pytest.mark.parametrize("case", SDK_CASES, ids=[case.id for case in SDK_CASES])
def test_the_sdks_stream_helper_gives_the_source_turn(case: Case) -> None:
    events = case.expected()
    body = write_stream(events, "openai-responses")
    # (the wire has each call's first id: a call found in the text may end with the model's own)
    made_id = records(body)[0]["response"]["id"]
    assert sdk_shape(sdk_final(body)) == turn_shape(streamcalls.accumulate(with_wire_ids(events)), made_id)


def test_the_sdk_comparison_sees_calls_reasoning_and_usage() -> None:
    cases = {case.id: case for case in SDK_CASES}
    for name in ("anthropic/interleaved_thinking.sse", "openai-responses/reasoning_summaries_then_calls.sse"):
        shape = sdk_shape(sdk_final(write_stream(cases[name].expected(), "openai-responses")))
        kinds = {part[0] for part in shape["parts"]}
        assert kinds == {"reasoning", "call"}
        assert shape["usage"]


# -- write_response ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", SDK_CASES, ids=[case.id for case in SDK_CASES])
def test_write_response_is_a_response(case: Case) -> None:
    turn = streamcalls.accumulate(case.expected())
    response = Response.model_validate(write_response(turn, "openai-responses"))
    assert sdk_shape(response) == turn_shape(turn, response.id)
    if turn.provider == "openai-responses":  # its reasoning items, with their ids and encrypted content
        items = [(i.id, i.encrypted_content) for i in response.output if i.type == "reasoning"]
        wanted = [(p.id, p.encrypted) for p in turn.parts if type(p) is ReasoningPart and p.encrypted]
        assert [item for item in items if item[1]] == wanted


def test_write_response_fills_the_counts_the_sdk_requires() -> None:
    turn = streamcalls.accumulate(
        [TextDelta("hi"), StreamFinished("stop", Usage(input_tokens=4, total_tokens=10))]
    )
    assert write_response(turn, "openai-responses")["usage"] == {
        "input_tokens": 4,
        "output_tokens": 6,
        "total_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0},
    }


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=event_lists(finish=True))
def test_write_response_of_any_turn_validates(items: list[Item]) -> None:
    events = [item for item in first_stream(items) if not isinstance(item, streamcalls.ToolResult)]
    Response.model_validate(write_response(streamcalls.accumulate(events), "openai-responses"))
