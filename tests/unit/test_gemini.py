"""Gemini: framing choice, calls whole and streamed (Vertex partialArgs), finish and usage tables."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcalls import (
    Event,
    ParseError,
    ProviderError,
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
    ToolCallFailed,
    ToolCallStarted,
    Usage,
)
from streamcalls.providers.gemini.partial_args import ArgumentsWriter, PathError, parse_path
from tests.support import DATA, after_start, bytewise, counter_ids, feed_chunks, normalize, split_at

GEMINI = DATA / "gemini"


def sse(*chunks: Any) -> bytes:
    return b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in chunks)


def array(*chunks: Any) -> bytes:
    return b"[" + b"\n,\r\n".join(json.dumps(c, indent=2).encode() for c in chunks) + b"\n]"


def parts(*items: Any, finish: str | None = None, message: str | None = None, **extra: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": list(items), "role": "model"}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    if message:
        candidate["finishMessage"] = message
    return {"candidates": [candidate], **extra}


def fc(**fields: Any) -> dict[str, Any]:
    return {"functionCall": fields}


def events(data: bytes, provider: str = "gemini") -> list[Event]:
    return after_start(feed_chunks([data], provider))


STOP = parts(finish="STOP")
CALL = ToolCallStarted(0, "call_gen_0", "f")

# -- framing -------------------------------------------------------------------


@pytest.mark.parametrize(
    "prefix", [b"", b"\r\n  ", b"\xef\xbb\xbf", b"\xef\xbb\xbf \n"], ids=["none", "ws", "bom", "bom+ws"]
)
@pytest.mark.parametrize("framing", [sse, array])
def test_explicit_provider_picks_the_framing_from_the_first_byte(prefix: bytes, framing: Any) -> None:
    data = prefix + framing(parts({"text": "hi"}, finish="STOP"))
    expected = [TextDelta("hi"), StreamFinished("stop", None, "STOP")]
    assert events(data) == expected
    assert normalize(after_start(feed_chunks(bytewise(data), "gemini"))) == expected


def test_an_http_error_body_is_a_provider_error() -> None:
    error = {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}
    body = json.dumps({"error": error}, indent=2).encode() + b"\n"  # not an array: an HTTP 400 body
    assert events(body) == [
        ProviderError("API key not valid.", "INVALID_ARGUMENT", 400),
        StreamFinished("error"),
    ]


def test_auto_detection() -> None:
    parser = StreamParser("auto")
    parser.feed(b"[")
    assert parser.provider is None
    parser.feed(b' \r\n{"candidates": []}')
    assert parser.provider == "gemini"
    error = sse({"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED"}})
    assert feed_chunks([error], "auto") == [
        ProviderError("Quota exceeded", "RESOURCE_EXHAUSTED", 429),
        StreamFinished("error"),
    ]
    # A model's text may start with "[": it is text unless "{" follows.
    assert normalize(feed_chunks([b"[1] See the notes."], "auto")) == [
        TextDelta("[1] See the notes."),
        StreamFinished("stop"),
    ]


# -- parts and calls -------------------------------------------------------------


def test_thoughts_text_and_whole_calls() -> None:
    data = sse(
        parts({"text": "hmm", "thought": True, "thoughtSignature": "c2ln"}),
        parts({"text": "Hi"}, fc(name="f", args={"a": [1, {"b": None}]}), fc(name="g", id="id-1")),
        STOP,
    )
    assert events(data) == [
        ReasoningStarted(kind="thought"),
        ReasoningDelta("hmm"),
        ReasoningCompleted(signature="c2ln"),
        TextDelta("Hi"),
        CALL,
        ToolCallDelta(0, '{"a":[1,{"b":null}]}'),
        ToolCallCompleted(ToolCall("call_gen_0", "f", {"a": [1, {"b": None}]}, 0)),
        ToolCallStarted(1, "id-1", "g"),
        ToolCallCompleted(ToolCall("id-1", "g", {}, 1)),
        StreamFinished("tool_calls", None, "STOP"),
    ]


def test_args_that_are_not_an_object_fail_the_call() -> None:
    assert events(sse(parts(fc(name="f", args=[1, 2])), STOP))[:3] == [
        CALL,
        ToolCallDelta(0, "[1,2]"),
        ToolCallFailed(0, "call_gen_0", "f", "[1,2]", "arguments must be a JSON object, got an array"),
    ]


def test_a_call_completes_in_the_feed_of_its_element_closing_brace() -> None:
    data = (GEMINI / "one_call.json").read_bytes()
    parser = StreamParser("gemini", id_factory=counter_ids())
    for i, byte in enumerate(bytewise(data)):
        if any(type(e) is ToolCallCompleted for e in parser.feed(byte)):
            assert byte == b"}"
            assert data[i + 1 :].strip() == b"]"
            return
    raise AssertionError("no call completed")


def test_a_streamed_call_completes_in_the_feed_that_closes_it() -> None:
    data = (GEMINI / "vertex_partial_args.sse").read_bytes()
    closing = data.index(b'{"functionCall": {}}')
    event_end = data.index(b"\n\n", closing) + 1  # the blank line dispatches the SSE event
    parser = StreamParser("gemini", id_factory=counter_ids())
    for i, byte in enumerate(bytewise(data)):
        if any(type(e) is ToolCallCompleted for e in parser.feed(byte)):
            assert i == event_end
            return
    raise AssertionError("no call completed")


# -- Vertex streamed arguments ----------------------------------------------------


def streamed(*args: dict[str, Any], close: Any = None) -> list[Event]:
    chunks = [parts(fc(name="f", willContinue=True))]
    chunks += [parts(fc(partialArgs=[arg], willContinue=True)) for arg in args]
    chunks.append(parts(close if close is not None else fc()))
    chunks.append(STOP)
    return events(sse(*chunks))


def test_partial_args_assemble_into_the_arguments_object() -> None:
    got = streamed(
        {"jsonPath": "$.a.b[0]", "stringValue": "x", "willContinue": True},
        {"jsonPath": "$.a.b[0]", "stringValue": "y"},
        {"jsonPath": "$.a.b[1].c", "numberValue": 2.5},
        {"jsonPath": "$.a.d", "nullValue": None},
        {"jsonPath": "$['e f']", "boolValue": True},
    )
    assert got == [
        CALL,
        ToolCallDelta(0, '{"a":{"b":["x'),
        ToolCallDelta(0, "y"),  # the string stays open until another path comes
        ToolCallDelta(0, '",{"c":2.5'),
        ToolCallDelta(0, '}],"d":null'),
        ToolCallDelta(0, '},"e f":true'),
        ToolCallDelta(0, "}"),
        ToolCallCompleted(
            ToolCall("call_gen_0", "f", {"a": {"b": ["xy", {"c": 2.5}], "d": None}, "e f": True}, 0)
        ),
        StreamFinished("tool_calls", None, "STOP"),
    ]


def test_a_string_piece_without_will_continue_is_still_continued_by_the_same_path() -> None:
    got = streamed(
        {"jsonPath": "$.city", "stringValue": "San"}, {"jsonPath": "$.city", "stringValue": " Jose"}
    )
    assert got[-2] == ToolCallCompleted(ToolCall("call_gen_0", "f", {"city": "San Jose"}, 0))


def test_a_streamed_call_with_no_arguments() -> None:
    assert streamed() == [
        CALL,
        ToolCallDelta(0, "{}"),
        ToolCallCompleted(ToolCall("call_gen_0", "f", {}, 0)),
        StreamFinished("tool_calls", None, "STOP"),
    ]


def test_the_last_part_may_carry_values_and_close_the_call() -> None:
    got = events(
        sse(
            parts(
                fc(id="c1", name="f", willContinue=True, partialArgs=[{"jsonPath": "$.n", "numberValue": 1}])
            )
        )
        + sse(
            parts(fc(id="c1", name="f", partialArgs=[{"jsonPath": "$.m", "numberValue": 2}]), finish="STOP")
        )
    )
    assert got == [
        ToolCallStarted(0, "c1", "f"),
        ToolCallDelta(0, '{"n":1'),
        ToolCallDelta(0, ',"m":2}'),
        ToolCallCompleted(ToolCall("c1", "f", {"n": 1, "m": 2}, 0)),
        StreamFinished("tool_calls", None, "STOP"),
    ]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            [
                {"jsonPath": "$.a", "numberValue": 1},
                {"jsonPath": "$.b", "numberValue": 2},
                {"jsonPath": "$.a", "numberValue": 3},
            ],
            "jsonPath '$.a' returns to 'a', which was already written",
        ),
        (
            [{"jsonPath": "$.a[1]", "numberValue": 1}],
            "jsonPath '$.a[1]' writes index 1 of an array that has 0 items",
        ),
        (
            [{"jsonPath": "$.a.b", "numberValue": 1}, {"jsonPath": "$.a[0]", "numberValue": 1}],
            "jsonPath '$.a[0]' indexes an object with [0]",
        ),
        ([{"jsonPath": "$[0]", "numberValue": 1}], "jsonPath '$[0]' indexes an object with [0]"),
        (
            [{"jsonPath": "$.a[0]", "numberValue": 1}, {"jsonPath": "$.a.b", "numberValue": 1}],
            "jsonPath '$.a.b' names member 'b' of an array",
        ),
        (
            [{"jsonPath": "$", "stringValue": "x"}],
            "jsonPath '$' is the arguments object itself, not a value in it",
        ),
        ([{"jsonPath": "a.b", "numberValue": 1}], "jsonPath 'a.b' does not start with '$'"),
        ([{"jsonPath": "$..a", "numberValue": 1}], "jsonPath '$..a' cannot be read at offset 1"),
    ],
)
def test_paths_out_of_document_order_fail_the_call(args: list[dict[str, Any]], error: str) -> None:
    got = streamed(*args)
    failed = [e for e in got if type(e) is ToolCallFailed]
    assert len(failed) == 1
    assert failed[0].error == f"partialArgs cannot be assembled: {error}"
    assert got[-1] == StreamFinished("stop", None, "STOP")  # nothing completed
    assert not [e for e in got if type(e) is ParseError]


@pytest.mark.parametrize(
    ("after", "error"),
    [
        (parts(finish="STOP"), "stream finished (STOP) before the call's closing functionCall (truncated)"),
        (
            parts(fc(name="g", args={})),
            "a new call began before this call's closing functionCall (truncated)",
        ),
    ],
)
def test_a_streamed_call_left_open_fails(after: Any, error: str) -> None:
    data = sse(parts(fc(name="f", willContinue=True)), after, STOP)
    got = events(data)
    assert got[:2] == [CALL, ToolCallFailed(0, "call_gen_0", "f", "", error)]


def test_a_streamed_call_open_at_the_arrays_end_fails() -> None:
    got = events(array(parts(fc(name="f", willContinue=True))))
    assert got == [
        CALL,
        ToolCallFailed(
            0, "call_gen_0", "f", "", "the stream ended before this call's closing functionCall (truncated)"
        ),
        StreamFinished("stop"),
    ]


def test_an_empty_function_call_with_no_call_open_is_ignored() -> None:
    assert events(sse(parts(fc()), STOP)) == [StreamFinished("stop", None, "STOP")]


@pytest.mark.parametrize(
    ("path", "segments"),
    [
        ("$.a.b[0]", ("a", "b", 0)),
        ('$[\'a b\']["c\\"d"][12]', ("a b", 'c"d', 12)),
        ("$['it\\'s'].x", ("it's", "x")),
        ("$", ()),
        ("$.ünï", ("ünï",)),
    ],
)
def test_parse_path(path: str, segments: tuple[Any, ...]) -> None:
    assert parse_path(path) == segments


@pytest.mark.parametrize("path", ["", "a", "$.", "$[", "$[-1]", "$['x]", "$[*]", '$["\\q"]'])
def test_unreadable_paths(path: str) -> None:
    with pytest.raises(PathError):
        parse_path(path)


def test_writer_pieces_concatenate_to_the_compact_json() -> None:
    writer = ArgumentsWriter()
    pieces = [
        writer.write("$.q", None, 'say "hi"\n'),
        writer.write("$.q", None, "\\ ✓"),
        writer.write("$.list[0][0]", "1", None),
        writer.write("$.list[0][1]", "2", None),
        writer.write("$.list[1]", None, ""),
        writer.close(),
    ]
    text = "".join(pieces)
    assert msgspec.json.decode(text) == {"q": 'say "hi"\n\\ ✓', "list": [[1, 2], ""]}
    assert text == msgspec.json.encode(msgspec.json.decode(text)).decode()


# -- finishing -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reason", "normalized"),
    [
        ("STOP", "stop"),
        ("MAX_TOKENS", "length"),
        ("SAFETY", "content_filter"),
        ("RECITATION", "content_filter"),
        ("BLOCKLIST", "content_filter"),
        ("PROHIBITED_CONTENT", "content_filter"),
        ("SPII", "content_filter"),
        ("LANGUAGE", "content_filter"),
        ("IMAGE_SAFETY", "content_filter"),
        ("OTHER", "error"),
        ("FINISH_REASON_UNSPECIFIED", "stop"),
        ("SOMETHING_NEW", "stop"),
    ],
)
def test_finish_reasons(reason: str, normalized: str) -> None:
    assert events(sse(parts({"text": "x"}, finish=reason)))[-1] == StreamFinished(normalized, None, reason)


@pytest.mark.parametrize("reason", ["MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"])
def test_a_malformed_call_is_a_failed_call(reason: str) -> None:
    assert events(sse(parts(finish=reason, message="Malformed function call: f(x=")))[1:] == [
        ToolCallFailed(
            0, "call_gen_0", "", "", f"Gemini finished with {reason}: Malformed function call: f(x="
        ),
        StreamFinished("error", None, reason),
    ]


def test_a_malformed_finish_fails_the_streamed_call_it_cuts() -> None:
    data = sse(
        parts(fc(name="f", willContinue=True)),
        parts(fc(partialArgs=[{"jsonPath": "$.a", "stringValue": "x"}], willContinue=True)),
        parts(finish="MALFORMED_FUNCTION_CALL"),
    )
    assert events(data)[2:] == [
        ToolCallFailed(0, "call_gen_0", "f", '{"a":"x', "Gemini finished with MALFORMED_FUNCTION_CALL"),
        StreamFinished("error", None, "MALFORMED_FUNCTION_CALL"),
    ]


def test_too_many_tool_calls_is_a_provider_error() -> None:
    data = sse(parts(fc(name="f", args={}), finish="TOO_MANY_TOOL_CALLS"))
    assert events(data)[-2:] == [
        ProviderError("the model called too many tools in a row", "TOO_MANY_TOOL_CALLS"),
        StreamFinished("error", None, "TOO_MANY_TOOL_CALLS"),
    ]


def test_a_blocked_prompt_over_sse() -> None:
    data = sse({"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 4}})
    assert events(data) == [StreamFinished("content_filter", Usage(input_tokens=4), "SAFETY")]


def test_usage_counts_thoughts_as_output_and_tool_prompts_as_input() -> None:
    usage = {
        "promptTokenCount": 100,
        "toolUsePromptTokenCount": 20,
        "candidatesTokenCount": 10,
        "thoughtsTokenCount": 30,
        "cachedContentTokenCount": 64,
        "totalTokenCount": 160,
    }
    assert events(sse(parts({"text": "x"}, finish="STOP", usageMetadata=usage)))[-1] == StreamFinished(
        "stop",
        Usage(
            input_tokens=120, output_tokens=40, total_tokens=160, reasoning_tokens=30, cache_read_tokens=64
        ),
        "STOP",
    )


def test_chunks_after_the_finish_are_reported_once() -> None:
    data = sse(parts({"text": "a"}, finish="STOP"), parts({"text": "b"}), parts({"text": "c"}))
    assert events(data) == [
        TextDelta("a"),
        StreamFinished("stop", None, "STOP"),
        ParseError("data after the end of the stream; ignored", json.dumps(parts({"text": "b"}))),
    ]


def test_other_candidates_are_ignored() -> None:
    chunk = {"candidates": [{"content": {"parts": [{"text": "two"}]}, "index": 1}]}
    assert events(sse(chunk, parts({"text": "one"}, finish="STOP"))) == [
        TextDelta("one"),
        StreamFinished("stop", None, "STOP"),
    ]


# -- decoded objects -----------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(p.name for p in GEMINI.glob("*.sse") if p.stem != "truncated"))
def test_feed_event_with_decoded_chunks_gives_the_same_events(name: str) -> None:
    data = (GEMINI / name).read_bytes()
    payloads = [line[6:] for line in data.splitlines() if line.startswith(b"data: ")]
    parser = StreamParser("gemini", id_factory=counter_ids())
    got: list[Event] = []
    for payload in payloads:
        got += parser.feed_event(msgspec.json.decode(payload))
    got += parser.close()
    assert got == feed_chunks([data], "gemini")


def test_feed_event_detects_gemini_and_takes_sdk_objects() -> None:
    class Response:  # the shape of a google-genai pydantic object: snake_case fields, camelCase aliases
        def model_dump(self, **options: Any) -> dict[str, Any]:
            assert options == {"mode": "json", "by_alias": True, "exclude_none": True}
            return parts(fc(name="f", args={"x": 1}), finish="STOP")

    parser = StreamParser("auto", id_factory=counter_ids())
    got = parser.feed_event({"candidates": [{"content": {"parts": [{"text": "hi"}]}}]})
    assert parser.provider == "gemini"
    got += parser.feed_event(Response()) + parser.close()
    assert got == [
        StreamStarted("gemini"),
        TextDelta("hi"),
        CALL,
        ToolCallDelta(0, '{"x":1}'),
        ToolCallCompleted(ToolCall("call_gen_0", "f", {"x": 1}, 0)),
        StreamFinished("tool_calls", None, "STOP"),
    ]


def test_a_value_of_the_wrong_type_is_a_parse_error_naming_it_and_the_stream_goes_on() -> None:
    data = sse({"candidates": [{"content": {"parts": [{"text": 5}]}}]}, parts({"text": "ok"}, finish="STOP"))
    got = events(data)
    assert type(got[0]) is ParseError
    assert "$.candidates[0].content.parts[0].text" in got[0].message
    assert got[1:] == [TextDelta("ok"), StreamFinished("stop", None, "STOP")]


def test_a_chunk_of_the_wrong_shape_is_a_parse_error_and_the_stream_goes_on() -> None:
    data = sse([{"text": "lost"}], parts({"text": "ok"}, finish="STOP"))
    got = events(data)
    assert type(got[0]) is ParseError
    assert got[0].message.startswith("Gemini chunk has an unexpected shape")
    assert got[1:] == [TextDelta("ok"), StreamFinished("stop", None, "STOP")]


def test_a_later_part_may_carry_the_id_the_opening_part_lacked() -> None:
    data = sse(
        parts(fc(name="f", willContinue=True)),
        parts(
            fc(id="late", name="f", partialArgs=[{"jsonPath": "$.a", "numberValue": 1}], willContinue=True)
        ),
        parts(fc(id="late")),
        STOP,
    )
    assert events(data)[-2] == ToolCallCompleted(ToolCall("call_gen_0", "f", {"a": 1}, 0))


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_mangled_streams_never_raise(data: st.DataObject) -> None:
    name = data.draw(
        st.sampled_from(sorted(p.name for p in GEMINI.iterdir() if not p.name.endswith(".jsonl")))
    )
    raw = bytearray((GEMINI / name).read_bytes())
    for _ in range(data.draw(st.integers(1, 8))):
        raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.sampled_from(b'{}[]",:\\ \n\r\x00a1'))
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=20))
    provider = data.draw(st.sampled_from(["gemini", "auto"]))
    got = feed_chunks(split_at(bytes(raw), cuts), provider)
    ends = [i for i, e in enumerate(got) if type(e) is StreamFinished]
    assert len(ends) == 1
    assert all(type(e) is ParseError for e in got[ends[0] + 1 :])  # only "data after the end"
