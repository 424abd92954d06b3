"""The ``"openai"`` target (Chat Completions), read by the openai SDK's own types and stream helper.

The round trip through the parser is ``tests/corpus/test_writer_roundtrip.py``'s; here the bytes are
checked against what OpenAI's wire is: every ``data:`` line a ``ChatCompletionChunk`` the SDK
validates, one id, ``[DONE]`` last; each argument fragment and text delta in the ``send`` of its
own event; the reasoning fields by the exact-turns rules; the error and usage shapes.  The SDK's
``chat.completions.stream`` helper, pointed at the written bytes through a ``MockTransport``, gives
a final completion equal to the source's turn for every recording of the corpus, and
``write_response`` validates as a ``ChatCompletion``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import streamcalls
from streamcalls import (
    Event,
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
from openai.types.chat import ChatCompletion, ChatCompletionChunk  # noqa: E402

CASES = corpus()


def chunks(body: bytes) -> list[Any]:
    """The written stream's records, read plainly: each ``data:`` line's JSON, and ``[DONE]``."""
    records: list[Any] = []
    text = body.decode()
    assert text.endswith("\n\n"), "an event ends with a blank line"
    for event in text[:-2].split("\n\n"):
        (line,) = event.split("\n")
        assert line.startswith("data: ")
        data = line[len("data: ") :]
        records.append(data if data == "[DONE]" else json.loads(data))
    return records


def deltas(body: bytes) -> list[dict[str, Any]]:
    return [
        record["choices"][0]["delta"]
        for record in chunks(body)
        if isinstance(record, dict) and record.get("choices")
    ]


# -- the framing -----------------------------------------------------------------------------------------

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


def test_every_chunk_is_a_chat_completion_chunk_and_done_is_last() -> None:
    records = chunks(write_stream(EVENTS, "openai"))
    assert records[-1] == "[DONE]"
    parsed = [ChatCompletionChunk.model_validate(record) for record in records[:-1]]
    assert {chunk.id for chunk in parsed} == {"msg_1"}
    assert {chunk.model for chunk in parsed} == {"claude-x"}
    assert len({chunk.created for chunk in parsed}) == 1
    assert {chunk.object for chunk in parsed} == {"chat.completion.chunk"}
    assert parsed[0].choices[0].delta.role == "assistant"
    finish, usage = parsed[-2:]
    assert finish.choices[0].finish_reason == "tool_calls"
    assert usage.choices == []
    assert usage.usage is not None
    assert (usage.usage.prompt_tokens, usage.usage.completion_tokens, usage.usage.total_tokens) == (
        10,
        20,
        30,
    )
    assert usage.usage.prompt_tokens_details.cached_tokens == 3  # type: ignore[union-attr]
    assert usage.usage.completion_tokens_details.reasoning_tokens == 5  # type: ignore[union-attr]


def test_calls_are_numbered_on_the_wire_and_given_ids() -> None:
    body = write_stream(EVENTS, "openai")
    fragments = [call for delta in deltas(body) for call in delta.get("tool_calls", [])]
    assert fragments[0] == {
        "index": 0,
        "id": "toolu_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": ""},
    }
    assert [f["function"]["arguments"] for f in fragments[1:3]] == ['{"city":', ' "Paris"}']
    assert all(set(f) == {"index", "function"} for f in fragments[1:3])
    started, whole = fragments[3:]
    assert started["index"] == 1
    assert re.fullmatch(r"call_[0-9a-f]{24}", started["id"])
    # A call that came whole (no fragment) has its arguments written at its end.
    assert whole == {"index": 1, "function": {"arguments": '{"zone":"CET"}'}}


def test_sparse_call_indices_are_numbered_from_0() -> None:
    body = write_stream(
        [
            ToolCallStarted(3, "call_a", "f"),
            ToolCallDelta(3, "{}"),
            ToolCallCompleted(ToolCall("call_a", "f", {}, 3)),
            ToolCallStarted(7, "call_b", "g"),
            ToolCallDelta(7, "{}"),
            ToolCallCompleted(ToolCall("call_b", "g", {}, 7)),
        ],
        "openai",
    )
    indices = [call["index"] for delta in deltas(body) for call in delta.get("tool_calls", [])]
    assert indices == [0, 0, 1, 1]  # the SDK's accumulator places calls by index in a list


def test_a_response_id_is_generated_where_none_was_named() -> None:
    records = chunks(write_stream([TextDelta("hi")], "openai"))
    assert re.fullmatch(r"chatcmpl-[0-9a-f]{24}", records[0]["id"])
    assert records[0]["model"] == ""


# -- incremental -----------------------------------------------------------------------------------------


def test_each_fragment_and_delta_is_written_by_its_own_send() -> None:
    writer = streamcalls.StreamWriter("openai")
    writer.send(StreamStarted("openai", "m", "chatcmpl-1"))
    assert deltas(writer.send(TextDelta("Hel"))) == [{"content": "Hel"}]
    assert deltas(writer.send(TextDelta("lo"))) == [{"content": "lo"}]
    started = deltas(writer.send(ToolCallStarted(0, "call_1", "f")))
    assert started[0]["tool_calls"][0]["function"] == {"name": "f", "arguments": ""}
    for fragment in ['{"a', '": ', "1}"]:
        sent = deltas(writer.send(ToolCallDelta(0, fragment)))
        assert sent == [{"tool_calls": [{"index": 0, "function": {"arguments": fragment}}]}]
    assert writer.send(ToolCallCompleted(ToolCall("call_1", "f", {"a": 1}, 0))) == b""
    assert deltas(writer.send(ReasoningDelta("hmm"))) == [{"reasoning_content": "hmm"}]


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
            TextDelta("ok"),
        ],
        "openai",
    )
    assert deltas(body)[1:3] == [{"reasoning_content": "plan"}, {"content": "ok"}]
    assert b"sig-1" not in body
    assert b"opaque-1" not in body


def test_a_responses_streams_encrypted_reasoning_stays_with_it() -> None:
    body = write_stream(
        [
            StreamStarted("openai-responses", "o4", "resp_1"),
            ReasoningStarted("rs_1", "summary_text"),
            ReasoningDelta("sum"),
            ReasoningCompleted(encrypted="gAAAA-secret"),
        ],
        "openai",
    )
    assert deltas(body)[1] == {"reasoning_content": "sum"}
    assert b"gAAAA-secret" not in body
    assert b"rs_1" not in body


def test_an_openai_compatible_streams_own_fields_go_back_as_they_came() -> None:
    body = write_stream(
        [
            StreamStarted("openai", "anthropic/claude", "gen-1"),
            ReasoningStarted("r1", "reasoning.text", "anthropic-claude-v1"),
            ReasoningDelta("step "),
            ReasoningDelta("one"),
            ReasoningCompleted(signature="EqQB"),
            ReasoningStarted(None, "reasoning.encrypted", "anthropic-claude-v1"),
            ReasoningCompleted(encrypted="ZW5j"),
            ReasoningStarted(None, "reasoning"),
            ReasoningDelta("groq-style"),
            ReasoningCompleted(),
            TextDelta("done"),
        ],
        "openai",
    )
    written = deltas(body)
    details = [entry for delta in written for entry in delta.get("reasoning_details", [])]
    assert details == [
        {"type": "reasoning.text", "index": 0, "id": "r1", "format": "anthropic-claude-v1", "text": "step "},
        {"type": "reasoning.text", "index": 0, "text": "one"},
        {"type": "reasoning.text", "index": 0, "signature": "EqQB"},
        {"type": "reasoning.encrypted", "index": 1, "format": "anthropic-claude-v1", "data": "ZW5j"},
    ]
    assert {"reasoning": "groq-style"} in written


# -- errors, the finish -------------------------------------------------------------------------------------


def test_a_provider_error_is_openais_error_object_where_it_comes() -> None:
    body = write_stream(
        [TextDelta("a"), ProviderError("overloaded", "server_error"), TextDelta("b")], "openai"
    )
    records = chunks(body)
    assert records[2] == {
        "error": {"message": "overloaded", "type": "server_error", "param": None, "code": "server_error"}
    }
    assert records[3]["choices"][0]["delta"] == {"content": "b"}  # the stream goes on
    back = streamcalls.parse(body, "openai")
    assert [e for e in back if type(e) is ProviderError] == [ProviderError("overloaded", "server_error")]
    assert back[-1].reason == "error"  # type: ignore[union-attr]  # ("stop" after an error)


@pytest.mark.parametrize(
    ("reason", "own", "provider_reason", "word"),
    [
        ("length", False, "MAX_TOKENS", "length"),
        ("content_filter", False, None, "content_filter"),
        ("error", False, None, "error"),
        ("tool_calls", True, "function_call", "function_call"),  # its own word, read back the same
        ("stop", True, "abort", "stop"),  # "abort" reads back as "error": not written
    ],
)
def test_the_finish_reason(reason: str, own: bool, provider_reason: str | None, word: str) -> None:
    start = StreamStarted("openai" if own else "gemini", "m", "x")
    body = write_stream([start, StreamFinished(reason, None, provider_reason)], "openai")
    assert chunks(body)[-2]["choices"][0]["finish_reason"] == word
    assert chunks(body)[-2]["choices"][0]["delta"] == {}


def test_the_usage_has_every_count_completion_usage_requires() -> None:
    usage = Usage(output_tokens=4, total_tokens=10, cache_write_tokens=2)
    body = write_stream([TextDelta("a"), StreamFinished("stop", usage)], "openai")
    written = chunks(body)[-2]
    assert written["usage"] == {
        "prompt_tokens": 6,  # what the total and the output tell
        "completion_tokens": 4,
        "total_tokens": 10,
        "prompt_tokens_details": {"cache_write_tokens": 2},
    }
    ChatCompletionChunk.model_validate(written)
    finished = streamcalls.parse(body, "openai")[-1]
    assert finished.usage == Usage(6, 4, 10, cache_write_tokens=2)  # type: ignore[union-attr]
    only_reasoning = write_stream([StreamFinished("stop", Usage(reasoning_tokens=3))], "openai")
    assert chunks(only_reasoning)[-2]["usage"] == {
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "total_tokens": 0,
        "completion_tokens_details": {"reasoning_tokens": 3},
    }


def test_no_usage_no_usage_chunk() -> None:
    records = chunks(write_stream([TextDelta("a"), StreamFinished("stop")], "openai"))
    assert [record for record in records[:-1] if "usage" in record] == []


# -- the openai SDK's stream helper ----------------------------------------------------------------------


def sdk_final(body: bytes, *, beta: bool = False) -> Any:
    client = sdk_client(openai.OpenAI, body)
    chat = client.beta.chat if beta else client.chat
    with chat.completions.stream(model="m", messages=[{"role": "user", "content": "Hi"}]) as stream:
        for _ in stream:
            pass
        try:
            return stream.get_final_completion()
        except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError) as refused:
            return refused.completion  # (the helper refuses to parse a cut completion: it holds it)


def reasoning_written(message: Any) -> str:
    """The reasoning text in every field the message has for it, in the writer's order of kinds."""
    extra = message.model_extra or {}
    details = extra.get("reasoning_details") or []
    texts = [extra.get("reasoning_content") or "", extra.get("reasoning") or ""]
    texts += [detail.get("summary") or detail.get("text") or "" for detail in details]
    return "".join(texts)


def sdk_shape(completion: Any) -> dict[str, Any]:
    message = completion.choices[0].message
    usage = completion.usage
    return {
        "id": completion.id,
        "model": completion.model,
        "text": message.content or "",
        "reasoning": reasoning_written(message),
        "calls": [
            (call.id, call.function.name, arguments_of(call.function.arguments))
            for call in message.tool_calls or []
        ],
        "finish": {"function_call": "tool_calls"}.get(completion.choices[0].finish_reason)
        or completion.choices[0].finish_reason,
        "usage": None if usage is None else (usage.prompt_tokens, usage.completion_tokens),
    }


def turn_shape(turn: Turn, written: bytes) -> dict[str, Any]:
    head = chunks(written)[0]
    reasoning = [part for part in turn.parts if type(part) is ReasoningPart]
    if turn.provider == "openai":  # its own fields, in the order the SDK's message holds them
        order = {"reasoning_content": 0, "reasoning": 1}
        reasoning.sort(key=lambda part: order.get(part.kind or "reasoning_content", 2))
    usage = turn.usage
    return {
        "id": turn.response_id or head["id"],
        "model": turn.model or "",
        "text": "".join(part.text for part in turn.parts if type(part) is TextPart),
        "reasoning": "".join(part.text for part in reasoning),
        "calls": [(call.id, call.name, call.arguments) for call in turn.calls],
        "finish": turn.finish_reason,
        "usage": None if usage is None else (usage.input_tokens or 0, usage.output_tokens or 0),
    }


def sdk_cases() -> list[Case]:
    """The recordings whose turn ended well: the SDK raises on an error chunk, as it should."""
    out = []
    for case in CASES:
        turn = streamcalls.accumulate(case.expected())
        if not turn.errors and turn.finish_reason != "error":
            out.append(case)
    return out


SDK_CASES = sdk_cases()


@pytest.mark.parametrize("case", SDK_CASES, ids=[case.id for case in SDK_CASES])
def test_the_sdks_stream_helper_gives_the_source_turn(case: Case) -> None:
    events = case.expected()
    body = write_stream(events, "openai")
    # (the wire has each call's first id: a call found in the text may end with the model's own)
    assert sdk_shape(sdk_final(body)) == turn_shape(streamcalls.accumulate(with_wire_ids(events)), body)


def test_the_beta_stream_helper_too() -> None:
    case = next(case for case in SDK_CASES if case.id == "openai/parallel_calls.sse")
    body = write_stream(case.expected(), "openai")
    assert sdk_shape(sdk_final(body, beta=True)) == sdk_shape(sdk_final(body))
    assert len(sdk_shape(sdk_final(body))["calls"]) == 3


def test_the_sdk_comparison_sees_calls_reasoning_and_usage() -> None:
    cases = {case.id: case for case in SDK_CASES}
    shapes = {
        name: sdk_shape(sdk_final(write_stream(cases[name].expected(), "openai")))
        for name in (
            "anthropic/interleaved_thinking.sse",
            "openai-responses/reasoning_summaries_then_calls.sse",
        )
    }
    for shape in shapes.values():
        assert shape["calls"]
        assert shape["reasoning"]
        assert shape["usage"]


# -- write_response ----------------------------------------------------------------------------------------


RESPONSE_CASES = [case for case in SDK_CASES if not streamcalls.accumulate(case.expected()).errors]


@pytest.mark.parametrize("case", RESPONSE_CASES, ids=[case.id for case in RESPONSE_CASES])
def test_write_response_is_a_chat_completion(case: Case) -> None:
    turn = streamcalls.accumulate(case.expected())
    body = write_response(turn, "openai")
    completion = ChatCompletion.model_validate(body)
    message = completion.choices[0].message
    assert (message.content or "") == "".join(p.text for p in turn.parts if type(p) is TextPart)
    calls = [call for call in message.tool_calls or [] if call.type == "function"]
    assert [(c.id, c.function.name, c.function.arguments) for c in calls] == [
        (call.id, call.name, turn.raw_arguments.get(call.id, call.arguments_json)) for call in turn.calls
    ]
    if turn.usage is not None:
        assert completion.usage is not None
        assert (
            completion.usage.prompt_tokens == (turn.usage.input_tokens or 0)
            or turn.usage.input_tokens is None
        )


def test_write_response_fills_the_counts_the_sdk_requires() -> None:
    turn = streamcalls.accumulate(
        [TextDelta("hi"), StreamFinished("stop", Usage(output_tokens=4, total_tokens=10))]
    )
    usage = write_response(turn, "openai")["usage"]
    assert usage == {"prompt_tokens": 6, "completion_tokens": 4, "total_tokens": 10}
    turn = streamcalls.accumulate([TextDelta("hi"), StreamFinished("stop", Usage(reasoning_tokens=2))])
    usage = write_response(turn, "openai")["usage"]
    assert usage == {
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "total_tokens": 0,
        "completion_tokens_details": {"reasoning_tokens": 2},
    }


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=event_lists(finish=True))
def test_write_response_of_any_turn_validates(items: list[Item]) -> None:
    events = [item for item in first_stream(items) if not isinstance(item, streamcalls.ToolResult)]
    turn = streamcalls.accumulate(events)
    if turn.finish_reason == "error":
        return  # ("error" is no ChatCompletion finish_reason: a turn that failed is not a response)
    ChatCompletion.model_validate(write_response(turn, "openai"))


def test_a_failed_call_is_left_out_of_the_response() -> None:
    events = [
        ToolCallStarted(0, "call_1", "f"),
        ToolCallDelta(0, '{"a":'),
        ToolCallFailed(0, "call_1", "f", '{"a":', "cut"),
        StreamFinished("length"),
    ]
    body = write_response(streamcalls.accumulate(events), "openai")
    assert "tool_calls" not in body["choices"][0]["message"]
    assert body["choices"][0]["finish_reason"] == "length"
