"""provider="auto": framing from the first bytes, provider from the first record."""

from __future__ import annotations

import pytest

from streamcalls import (
    ParseError,
    ProviderError,
    StreamFinished,
    StreamParser,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
)
from streamcalls._detect import FramingSniffer, sniff_framing
from tests.support import bytewise
from tests.support import feed_content as feed_chunks
from tests.support.streams import ANTHROPIC_END, ANTHROPIC_START, openai_chunk, openai_finish


@pytest.mark.parametrize(
    ("head", "framing"),
    [
        (b"data: {", "sse"),
        (b"\n\nevent: message_start", "sse"),
        (b": ping\n", "sse"),
        (b"id: 1\n", "sse"),
        (b"retry: 5\n", "sse"),
        (b'{"model":', "ndjson"),
        (b'  \r\n{"a"', "ndjson"),
        (b"Hello", "text"),
        (b"dat", None),  # could still be "data:"
        (b"date: today", "text"),
        (b"   ", None),
        (b"[ \n ", None),  # a JSON array, or text?
        (b"[ \n {", "json-array"),
        (b"[1] a footnote", "text"),
    ],
)
def test_framing_from_the_first_bytes(head: bytes, framing: str | None) -> None:
    assert sniff_framing(head) == framing


def test_the_sniffer_looks_at_each_byte_once() -> None:
    sniffer = FramingSniffer()
    raw = bytearray()
    for _ in range(100_000):  # a hostile stream of blanks, one byte at a time
        raw += b" "
        assert sniffer.sniff(raw) is None
    raw += b"data: {}"
    assert sniffer.sniff(raw) == "sse"


@pytest.mark.parametrize("provider", ["auto", "openai"])
@pytest.mark.parametrize("split", [0, 1, 2, 3, 4])
def test_a_leading_bom_is_dropped_for_every_provider(provider: str, split: int) -> None:
    stream = b"\xef\xbb\xbf" + openai_chunk({"content": "x"}) + openai_finish("stop")
    events = feed_chunks([stream[:split], stream[split:]], provider)
    assert events == [TextDelta("x"), StreamFinished("stop", None, "stop")]


def test_a_bom_start_that_never_completes_is_data() -> None:
    assert feed_chunks([b"\xef\xbb"], "text") == [TextDelta("\ufffd"), StreamFinished("stop", None, None)]


def test_detected_provider_is_reported() -> None:
    parser = StreamParser()
    assert parser.provider is None
    parser.feed(ANTHROPIC_START)
    assert parser.provider == "anthropic"
    assert StreamParser("groq").provider == "openai"  # the wire format it speaks


def test_unrecognized_sse_record_is_reported_naming_what_it_held() -> None:
    events = feed_chunks(
        [b'data: {"hello": 1, "world": 2}\n\n' + openai_chunk({"content": "x"}) + openai_finish("stop")]
    )
    assert isinstance(events[0], ParseError)
    assert "hello, world" in events[0].message
    assert events[1:] == [TextDelta("x"), StreamFinished("stop", None, "stop")]


def test_a_bare_json_call_as_the_whole_stream_is_a_text_call() -> None:
    text = b'{"name": "get_weather", "arguments": {"city": "Oslo"}}\nDone.'
    for chunks in ([text], bytewise(text)):
        events = feed_chunks(chunks)
        assert events[2] == ToolCallCompleted(
            ToolCall("call_gen_0", "get_weather", {"city": "Oslo"}, 0, "json")
        )
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "\nDone."


@pytest.mark.parametrize(
    "text",
    [
        b"{curly} braces are fine\nsecond line",
        b'{"city": "Oslo", "name": "x", "arguments": {}}\nDone.',
        b"[1] a footnote",
    ],
)
def test_text_streams_that_look_like_json(text: bytes) -> None:
    for chunks in ([text], bytewise(text)):
        events = feed_chunks(chunks)
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == text.decode()
        assert events[-1] == StreamFinished("stop", None, None)


def test_empty_stream() -> None:
    events = feed_chunks([])
    assert isinstance(events[0], ParseError)
    assert events[-1] == StreamFinished("error", None, None)


def test_a_stream_of_only_blank_space() -> None:
    events = feed_chunks([b" \n\n "])
    assert isinstance(events[0], ParseError)


def test_prefix_of_a_field_at_the_end_is_text() -> None:
    assert feed_chunks([b"da"]) == [TextDelta("da"), StreamFinished("stop", None, None)]


def test_sse_error_object_first_is_a_provider_error() -> None:
    events = feed_chunks([b'data: {"error": {"message": "invalid key", "code": 401}}\n\n'])
    assert events[0] == ProviderError("invalid key", "401", 401)  # the body's number is its HTTP status


def test_feed_event_detects_the_provider_from_objects() -> None:
    parser = StreamParser()
    events = parser.feed_event({"type": "message_start", "message": {"usage": {"input_tokens": 3}}})
    assert parser.provider == "anthropic"
    events += parser.feed_event(
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "t", "name": "f"},
        }
    )
    events += parser.feed_event({"type": "content_block_stop", "index": 0})
    events += parser.feed_event({"type": "message_stop"})
    assert [type(e).__name__ for e in events] == [
        "StreamStarted",
        "ToolCallStarted",
        "ToolCallCompleted",
        "StreamFinished",
    ]
    assert isinstance(events[2], ToolCallCompleted)


def test_feed_event_with_an_unknown_object() -> None:
    events = StreamParser().feed_event({"what": 1})
    assert isinstance(events[0], ParseError)


def test_anthropic_stream_auto() -> None:
    assert feed_chunks([ANTHROPIC_START + ANTHROPIC_END])[-1].reason == "tool_calls"  # type: ignore[union-attr]
