"""The ``"gemini"`` target and Gemini's complete response, read by google-genai (the official SDK) through an
httpx transport, and their shapes: one part a chunk, whole calls at their completion, the error chunk,
``usageMetadata``, Gemini's signatures only on Gemini's own stream.

The round trip through the parser is tests/corpus/test_writer_roundtrip.py; here
the reader is Google's: ``Client.models.generate_content_stream`` over the
bytes written, ``generate_content`` over the complete body, for every
recording whose turn has no error (the SDK raises on an error chunk).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

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
    TextSignature,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallStarted,
    Usage,
    write_response,
    write_stream,
)
from tests.support import Case
from tests.support.provider_writers import READABLE, Answers, completed_calls, turn_calls

ANSWERS = Answers(lambda request: "streamGenerateContent" in request.url.path, "text/event-stream")
CLIENT = genai.Client(
    api_key="test-key", http_options=types.HttpOptions(httpx_client=httpx.Client(transport=ANSWERS.transport))
)
MODEL = "gemini-2.5-flash"

# What each finish reason may be in Gemini's words (an independent table: Gemini's API reference).
FINISH_WORDS = {
    "stop": {"STOP"},
    "tool_calls": {"STOP"},
    "length": {"MAX_TOKENS"},
    "content_filter": {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "LANGUAGE"},
}


def read(responses: list[types.GenerateContentResponse]) -> dict[str, Any]:
    """What the SDK's response objects hold, in the turn's terms."""
    text: list[str] = []
    thoughts: list[str] = []
    calls: list[tuple[Any, ...]] = []
    finish = blocked = None
    usage = None
    for response in responses:
        for candidate in response.candidates or ():
            for part in candidate.content.parts or () if candidate.content else ():
                if part.function_call is not None:
                    call = part.function_call
                    calls.append((call.id, call.name, call.args or {}))
                elif part.thought:
                    thoughts.append(part.text or "")
                else:
                    text.append(part.text or "")
            if candidate.finish_reason is not None:
                finish = candidate.finish_reason.value
        if response.prompt_feedback is not None and response.prompt_feedback.block_reason is not None:
            blocked = response.prompt_feedback.block_reason.value
        usage = response.usage_metadata or usage
    last = responses[-1]
    return {
        "text": "".join(text),
        "reasoning": "".join(thoughts),
        "calls": calls,
        "finish": finish,
        "blocked": blocked,
        "usage": usage,
        "model": last.model_version,
        "response_id": last.response_id,
    }


def check_finish(got: dict[str, Any], reason: str | None) -> None:
    if got["blocked"] is not None:
        assert reason == "content_filter"
    else:
        assert got["finish"] in FINISH_WORDS[reason or "stop"]


def check_usage(got: types.GenerateContentResponseUsageMetadata | None, usage: Usage | None) -> None:
    if usage is None:
        assert got is None
        return
    assert got is not None
    assert got.prompt_token_count == usage.input_tokens
    assert got.total_token_count == usage.total_tokens
    if usage.output_tokens is not None:
        assert (got.candidates_token_count or 0) + (got.thoughts_token_count or 0) == usage.output_tokens


@pytest.mark.parametrize("case", READABLE, ids=[c.id for c in READABLE])
def test_the_sdk_reads_every_recording_written_as_gemini(case: Case) -> None:
    events = case.expected()
    turn = streamcalls.accumulate(events)
    ANSWERS.stream = write_stream(events, "gemini")
    got = read(list(CLIENT.models.generate_content_stream(model=MODEL, contents="hi")))
    assert got["text"] == turn.text
    assert got["reasoning"] == turn.reasoning
    assert got["calls"] == completed_calls(events)  # each written whole, at its completion
    check_finish(got, turn.finish_reason)
    check_usage(got["usage"], turn.usage)
    assert got["model"] == turn.model
    assert got["response_id"] == (turn.response_id or got["response_id"])


@pytest.mark.parametrize("case", READABLE, ids=[c.id for c in READABLE])
def test_the_sdk_reads_every_turn_as_a_complete_response(case: Case) -> None:
    turn = streamcalls.accumulate(case.expected())
    ANSWERS.response = write_response(turn, "gemini")
    got = read([CLIENT.models.generate_content(model=MODEL, contents="hi")])
    assert got["text"] == turn.text
    assert got["reasoning"] == turn.reasoning
    assert got["calls"] == turn_calls(turn)
    check_finish(got, turn.finish_reason)
    check_usage(got["usage"], turn.usage)
    assert got["model"] == turn.model


def records(data: bytes) -> list[dict[str, Any]]:
    """The chunks of an SSE body with no event names; fails on anything else."""
    assert data.endswith(b"\n\n")
    out = []
    for event in data[:-2].split(b"\n\n"):
        assert event.startswith(b"data: "), event
        assert b"\n" not in event, event
        out.append(json.loads(event[6:]))
    return out


def test_each_delta_is_written_by_its_send_and_each_call_at_its_completion() -> None:
    writer = StreamWriter("gemini")
    assert writer.send(StreamStarted("openai", "gpt-4o", "chatcmpl-1")) == b""
    first = records(writer.send(TextDelta("Hel")))
    assert first == [
        {
            "candidates": [{"content": {"parts": [{"text": "Hel"}], "role": "model"}, "index": 0}],
            "modelVersion": "gpt-4o",
            "responseId": "chatcmpl-1",
        }
    ]
    assert records(writer.send(ReasoningDelta("hmm")))[0]["candidates"][0]["content"]["parts"] == [
        {"text": "hmm", "thought": True}
    ]
    assert writer.send(ToolCallStarted(0, "call_1", "get_weather")) == b""
    assert writer.send(ToolCallDelta(0, '{"city":')) == b""
    assert writer.send(ToolCallDelta(0, ' "Oslo"}')) == b""
    done = records(writer.send(ToolCallCompleted(ToolCall("call_1", "get_weather", {"city": "Oslo"}, 0))))
    assert done[0]["candidates"][0]["content"]["parts"] == [
        {"functionCall": {"id": "call_1", "name": "get_weather", "args": {"city": "Oslo"}}}
    ]
    end = records(writer.send(StreamFinished("tool_calls", Usage(12, 7))) + writer.close())
    assert end == [
        {
            "candidates": [{"finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 7},
            "modelVersion": "gpt-4o",
            "responseId": "chatcmpl-1",
        }
    ]


def test_a_small_stream_exactly() -> None:
    """Reviewed by eye: SSE data lines, no event names, no [DONE]; a generated bare response id."""
    data = write_stream(
        [TextDelta("Hi"), StreamFinished("length", Usage(3, 9, 12, reasoning_tokens=4))],
        "gemini",
        model="gemini-2.5-pro",
        response_id="resp-7",
    )
    assert data == (
        b'data: {"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"},"index":0}],'
        b'"modelVersion":"gemini-2.5-pro","responseId":"resp-7"}\n\n'
        b'data: {"candidates":[{"finishReason":"MAX_TOKENS","index":0}],"usageMetadata":'
        b'{"promptTokenCount":3,"candidatesTokenCount":5,"totalTokenCount":12,"thoughtsTokenCount":4},'
        b'"modelVersion":"gemini-2.5-pro","responseId":"resp-7"}\n\n'
    )
    generated = records(write_stream([TextDelta("Hi")], "gemini"))[0]["responseId"]
    assert len(generated) == 24
    assert int(generated, 16) >= 0


def test_a_provider_error_is_a_status_chunk_that_ends_the_stream() -> None:
    writer = StreamWriter("gemini")
    out = writer.send(StreamStarted("anthropic", "claude-x", "msg_1")) + writer.send(TextDelta("So"))
    out += writer.send(ProviderError("Resource has been exhausted", "RESOURCE_EXHAUSTED", 429))
    assert records(out)[-1]["error"] == {
        "code": 429,
        "message": "Resource has been exhausted",
        "status": "RESOURCE_EXHAUSTED",
    }
    # Gemini's stream ends at its error chunk (its SDK raises on it): nothing after it is written.
    assert writer.send(TextDelta("more")) == b""
    assert writer.send(ProviderError("again")) == b""
    assert writer.send(StreamFinished("error")) + writer.close() == b""
    ANSWERS.stream = out
    with pytest.raises(genai_errors.APIError) as raised:
        list(CLIENT.models.generate_content_stream(model=MODEL, contents="hi"))
    assert raised.value.code == 429
    assert raised.value.message == "Resource has been exhausted"
    # With no code, Google's name for the status; with neither, INTERNAL (500).
    (chunk,) = records(write_stream([ProviderError("overloaded", status=503)], "gemini"))
    assert chunk["error"] == {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}
    (chunk,) = records(write_stream([ProviderError("broke")], "gemini"))
    assert chunk["error"] == {"code": 500, "message": "broke", "status": "INTERNAL"}


def test_an_error_then_counts_ends_with_a_finish_that_reads_as_an_error() -> None:
    data = write_stream(
        [StreamStarted("openai"), TextDelta("a"), ProviderError("cut"), StreamFinished("error", Usage(5, 1))],
        "gemini",
    )
    last = records(data)[-1]
    assert last["candidates"][0]["finishReason"] == "OTHER"
    assert last["usageMetadata"] == {"promptTokenCount": 5, "candidatesTokenCount": 1}
    back = streamcalls.accumulate(streamcalls.parse(data, provider="gemini"))
    assert (back.finish_reason, back.usage and back.usage.input_tokens) == ("error", 5)


def test_usage_metadata_counts_the_thoughts_apart() -> None:
    usage = Usage(
        input_tokens=100, output_tokens=50, total_tokens=150, reasoning_tokens=20, cache_read_tokens=64
    )
    (chunk,) = records(write_stream([StreamFinished("stop", usage)], "gemini"))
    assert chunk["usageMetadata"] == {
        "promptTokenCount": 100,
        "candidatesTokenCount": 30,
        "totalTokenCount": 150,
        "thoughtsTokenCount": 20,
        "cachedContentTokenCount": 64,
    }
    check_usage(types.GenerateContentResponseUsageMetadata.model_validate(chunk["usageMetadata"]), usage)


# Signatures are base64 (the SDK decodes them to bytes): b"sig-thought", b"sig-text", b"sig-call".
SIGNED: list[Event] = [
    ReasoningStarted(),
    ReasoningDelta("think"),
    ReasoningCompleted(signature="c2lnLXRob3VnaHQ="),
    ReasoningStarted(),
    ReasoningCompleted(redacted="opaque-redacted"),
    TextDelta("Answer"),
    TextSignature("c2lnLXRleHQ="),
    ToolCallStarted(0, "call_1", "f"),
    ToolCallCompleted(ToolCall("call_1", "f", {}, 0, thought_signature="c2lnLWNhbGw=")),
    StreamFinished("tool_calls"),
]


def parts_of(candidate: dict[str, Any]) -> list[dict[str, Any]]:
    return list(candidate.get("content", {}).get("parts", ()))


def test_gemini_signatures_go_back_only_on_gemini_s_own_stream() -> None:
    own = write_stream([StreamStarted("gemini", MODEL, "r1"), *SIGNED], "gemini")
    parts = [part for chunk in records(own) for c in chunk.get("candidates", ()) for part in parts_of(c)]
    assert {"thought": True, "thoughtSignature": "c2lnLXRob3VnaHQ="} in parts
    assert {"text": "", "thoughtSignature": "c2lnLXRleHQ="} in parts
    assert {
        "functionCall": {"id": "call_1", "name": "f", "args": {}},
        "thoughtSignature": "c2lnLWNhbGw=",
    } in parts
    assert b"opaque-redacted" not in own  # redacted reasoning is Anthropic's: never Gemini's
    back = streamcalls.accumulate(streamcalls.parse(own, provider="gemini"))
    assert back.calls[0].thought_signature == "c2lnLWNhbGw="
    # Another provider's stream: its signatures and redacted reasoning are not Gemini's to send.
    other = write_stream([StreamStarted("anthropic", "claude-x", "msg_1"), *SIGNED[:-3]], "gemini")
    assert b"thoughtSignature" not in other
    assert b"opaque-redacted" not in other
    # A call's signature is Gemini's whichever wire brought it (its OpenAI-compatible endpoint's).
    relayed = write_stream([StreamStarted("openai"), *SIGNED[-3:]], "gemini")
    assert b'"thoughtSignature":"c2lnLWNhbGw="' in relayed


def test_the_complete_response_keeps_signatures_only_for_gemini() -> None:
    events = [StreamStarted("gemini", MODEL, "r1"), *SIGNED]
    own = write_response(streamcalls.accumulate(events), "gemini")
    parts = own["candidates"][0]["content"]["parts"]
    assert parts == [
        {"text": "think", "thought": True, "thoughtSignature": "c2lnLXRob3VnaHQ="},
        {"text": "Answer", "thoughtSignature": "c2lnLXRleHQ="},
        {"functionCall": {"id": "call_1", "name": "f", "args": {}}, "thoughtSignature": "c2lnLWNhbGw="},
    ]
    assert own["candidates"][0]["finishReason"] == "STOP"
    assert (own["modelVersion"], own["responseId"]) == (MODEL, "r1")
    types.GenerateContentResponse.model_validate(own)
    events[0] = StreamStarted("anthropic", "claude-x", "msg_1")
    other = write_response(streamcalls.accumulate(events), "gemini")
    assert other["candidates"][0]["content"]["parts"] == [
        {"text": "think", "thought": True},
        {"text": "Answer"},
        {"functionCall": {"id": "call_1", "name": "f", "args": {}}, "thoughtSignature": "c2lnLWNhbGw="},
    ]
