"""Bedrock ``InvokeModelWithResponseStream``: what the recordings in tests/data/bedrock-invoke do not pin.

- each recording's ``.bin`` is its readable source's frames (``tests/support/eventstream.py``);
- Claude's events in the chunks are read exactly as the same events in Anthropic's own SSE stream,
  turned into SSE by the anthropic SDK's own Bedrock decoder (``_chunk_bytes_to_sse``): the oracle;
- boto3's decoded events (``{"chunk": {"bytes": b"..."}}``) through ``feed_event`` give the events
  of the bytes;
- every exception of the service's ``ResponseStream`` union, and a header-only error, is a
  ProviderError; bytes that are not base64 are a ParseError, and the stream goes on;
- ``auto`` tells it from ConverseStream (and the names and aliases resolve).
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import msgspec
import pytest

from streamcalls import (
    ParseError,
    ProviderError,
    StreamFinished,
    StreamParser,
    StreamStarted,
    TextDelta,
    UsageError,
    accumulate,
    encode_turn,
    parse,
)
from tests.support import after_start, feed_chunks, plain
from tests.support.eventstream import BEDROCK_INVOKE, build, frame, message, sources

SOURCES = sources(BEDROCK_INVOKE)


def specs(source: Path) -> list[dict[str, Any]]:
    return [msgspec.json.decode(line) for line in source.read_bytes().splitlines() if line.strip()]


def test_fixtures_are_built_from_their_sources() -> None:
    assert len(SOURCES) >= 12
    for source in SOURCES:
        target = source.with_name(source.name.replace(".frames.jsonl", ".bin"))
        assert target.read_bytes() == build(source), (
            f"run python -m tests.support.eventstream ({target.name})"
        )


# -- Claude: the anthropic SDK's own decoder as the oracle ----------------------------------------

CLAUDE = [s for s in SOURCES if s.name.startswith("claude_")]


@pytest.mark.parametrize("source", CLAUDE, ids=[s.name for s in CLAUDE])
def test_claude_chunks_read_as_anthropic_sse(source: Path) -> None:
    decoder = pytest.importorskip("anthropic.lib.bedrock._stream_decoder")
    sse = b""
    for spec in specs(source):
        if "chunk" in spec:
            event = decoder._chunk_bytes_to_sse(msgspec.json.encode(spec["chunk"]))
            sse += f"event: {event.event}\ndata: {event.data}\n\n".encode()
    data = source.with_name(source.name.replace(".frames.jsonl", ".bin")).read_bytes()
    got = feed_chunks([data], "bedrock-invoke")
    want = feed_chunks([sse], "anthropic")
    assert got[0] == want[0]  # the start names Claude's wire format: its turn is written back as Anthropic's
    # The Anthropic stream ends where the chunks do; an exception frame is Bedrock's own.
    errors = [e for e in got if type(e) is ProviderError]
    without = [
        e for e in got[1:] if type(e) is not ProviderError and not (errors and type(e) is StreamFinished)
    ]
    assert without == [e for e in want[1:] if not (errors and type(e) in (StreamFinished, ParseError))]


def test_a_claude_turn_is_written_back_as_anthropic_messages_signed_thinking_kept() -> None:
    data = (BEDROCK_INVOKE / "claude_thinking_calls.bin").read_bytes()
    turn = accumulate(feed_chunks([data], "bedrock-invoke"))
    assert turn.provider == "anthropic"
    content = plain(encode_turn(turn, "anthropic", []))[0]["content"]
    assert content[0] == {
        "type": "thinking",
        "thinking": "Two cities: one call each.",
        "signature": "EqQBCkYIBxgCKkDq",
    }


@pytest.mark.parametrize(
    ("name", "provider"),
    [("nova_call", "bedrock"), ("gpt_oss_call", "openai"), ("llama_text", "bedrock-invoke")],
)
def test_the_start_names_the_wire_format_of_the_models_events(name: str, provider: str) -> None:
    data = (BEDROCK_INVOKE / f"{name}.bin").read_bytes()
    parser = StreamParser("bedrock-invoke")
    events = parser.feed(data) + parser.close()
    assert type(events[0]) is StreamStarted
    assert events[0].provider == provider
    assert parser.provider == "bedrock-invoke"


# -- boto3's decoded events --------------------------------------------------------------------------

CLEAN = [s for s in SOURCES if not any({"chunk_bytes", "error"} & set(spec) for spec in specs(s))]


def boto3_event(spec: dict[str, Any]) -> dict[str, Any]:
    if "chunk" in spec:
        return {"chunk": {"bytes": msgspec.json.encode(spec["chunk"])}}
    return {spec["exception"]: spec["payload"]}


@pytest.mark.parametrize("source", CLEAN, ids=[s.name for s in CLEAN])
@pytest.mark.parametrize("provider", ["bedrock-invoke", "auto"])
def test_boto3_events_give_the_events_of_the_bytes(source: Path, provider: str) -> None:
    data = source.with_name(source.name.replace(".frames.jsonl", ".bin")).read_bytes()
    parser = StreamParser(provider, id_factory=lambda: "call_gen_0")  # type: ignore[arg-type]
    got = []
    for spec in specs(source):
        got += parser.feed_event(boto3_event(spec))
    got += parser.close()
    assert parser.provider == "bedrock-invoke"
    assert got == feed_chunks([data], "bedrock-invoke")


def test_a_boto3_chunk_as_base64_text_and_one_without_bytes() -> None:
    raw = msgspec.json.encode({"generation": "Hi", "stop_reason": "stop"})
    parser = StreamParser("bedrock-invoke")
    events = parser.feed_event({"chunk": {"bytes": base64.b64encode(raw).decode()}})
    assert events == [StreamStarted("bedrock-invoke"), TextDelta("Hi"), StreamFinished("stop", None, "stop")]
    parser = StreamParser("bedrock-invoke")
    assert parser.feed_event({"chunk": {}}) == [
        ParseError("a Bedrock chunk without its bytes; ignored", "{}")
    ]


# -- errors --------------------------------------------------------------------------------------

# The union's exceptions and the HTTP status Bedrock's API reference gives each.
EXCEPTIONS = {
    "internalServerException": 500,
    "modelStreamErrorException": 424,
    "validationException": 400,
    "throttlingException": 429,
    "modelTimeoutException": 408,
    "serviceUnavailableException": 503,
}


@pytest.mark.parametrize(("name", "status"), EXCEPTIONS.items())
def test_every_exception_of_the_union_is_a_provider_error(name: str, status: int) -> None:
    start = frame({"chunk": {"generation": "Hel", "stop_reason": None}})
    error = frame({"exception": name, "payload": {"message": f"{name} happened"}})
    events = after_start(parse(start + error, provider="bedrock-invoke"))
    assert events[1:] == [
        ProviderError(f"{name} happened", name, status=status),
        StreamFinished("error", None, None),
    ]


def test_a_header_only_error_and_an_exception_without_a_message() -> None:
    error = frame({"error": "InternalFailure", "message": "boom"})
    assert parse(error, provider="bedrock-invoke") == [
        ProviderError("boom", "InternalFailure", status=500),
        StreamFinished("error", None, None),
    ]
    bare = message([(":exception-type", 7, "throttlingException"), (":message-type", 7, "exception")], b"")
    assert parse(bare, provider="bedrock-invoke")[0] == ProviderError(
        "throttlingException", "throttlingException", status=429
    )


def test_a_chunk_whose_bytes_are_not_base64() -> None:
    bad = message([(":event-type", 7, "chunk"), (":message-type", 7, "event")], b'{"bytes": "not base64!"}')
    good = frame({"chunk": {"outputText": "Hi", "completionReason": "FINISH"}})
    events = parse(bad + good, provider="bedrock-invoke")
    assert type(events[0]) is ParseError
    assert "Bedrock chunk" in events[0].message
    assert [type(e).__name__ for e in events[1:]] == ["StreamStarted", "TextDelta", "StreamFinished"]


def test_an_error_after_the_end_is_reported_as_data_after_the_end() -> None:
    done = frame({"chunk": {"generation": "Hi", "stop_reason": "stop"}})
    error = frame({"exception": "throttlingException", "payload": {"message": "late"}})
    events = parse(done + error, provider="bedrock-invoke")
    assert type(events[-1]) is ParseError
    assert events[-1].message.startswith("data after the end")


def test_a_stream_with_no_chunk_is_truncated() -> None:
    assert parse(b"", provider="bedrock-invoke")[-2:] == [
        ParseError("stream ended before a chunk (truncated)"),
        StreamFinished("error", None, None),
    ]


def test_a_chat_stream_cut_before_its_finish() -> None:
    chunk = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": "Hi"}}],
    }
    events = parse(frame({"chunk": chunk}), provider="bedrock-invoke")
    assert events[-2] == ParseError("stream ended before a chunk with a finish_reason (truncated)")


# -- names and auto ------------------------------------------------------------------------------


def test_auto_tells_it_from_converse_and_its_nicknames_suggest_it() -> None:
    data = (BEDROCK_INVOKE / "claude_text.bin").read_bytes()
    for nickname in ("anthropic-bedrock", "AnthropicBedrock", "invoke_model", "bedrock_invoke"):
        with pytest.raises(UsageError, match="did you mean 'bedrock-invoke'"):
            StreamParser(nickname)  # type: ignore[arg-type]  # a name read at run time
    parser = StreamParser("auto")
    parser.feed(data)
    assert parser.provider == "bedrock-invoke"
    converse = frame({"event": "messageStart", "payload": {"role": "assistant"}})
    parser = StreamParser("auto")
    parser.feed(converse)
    assert parser.provider == "bedrock"
