"""Memory stays bounded: a long stream runs in constant memory, an idle parser is small.

Measured with tracemalloc (allocations, not time, so these are stable on a
busy machine).  The full-size runs -- a 1 GB text stream, 10 000 idle parsers --
are in ``make bench`` (benchmarks/memory.py); here smaller sizes show the shape.

A gateway may hold thousands of parsers, each inside a call: an idle parser's
call assembler holds no empty set or dict (what it keeps for calls is made
when a call needs it), and an open call holds its arguments at about one byte
per character -- not a string object per fragment, nor four bytes per
character for a block of text because it holds one emoji.  The arguments come
back exactly as fed (the oracle: the fragments, joined here), lone surrogates
included, whether their fragments came before the call's name or after it.
"""

from __future__ import annotations

import gc
import tracemalloc
from typing import Any

import pytest

from streamcalls import (
    ProviderName,
    StreamParser,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallStarted,
)
from streamcalls._calls import CallAssembler
from tests.support.streams import openai_args, openai_call_start, openai_chunk

PROSE = ("Some prose with {braces}, ~tildes~, <tags> and `ticks`.\n~~ almost a fence\n" * 60).encode()


def peak_while(feed: object) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        feed()  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("total", [4_000_000, 16_000_000])
def test_a_long_text_stream_runs_in_constant_memory(total: int) -> None:
    def feed() -> None:
        parser = StreamParser("text", detect=("fence", "json", "hermes", "mistral", "llama", "deepseek"))
        for _ in range(total // len(PROSE)):
            parser.feed(PROSE)  # the events are dropped, as a consumer would
        parser.close()

    # The same ceiling for 4 MB and 16 MB: nothing grows with the stream.
    assert peak_while(feed) < 300_000


def test_a_long_sse_text_stream_runs_in_constant_memory() -> None:
    chunk = openai_chunk({"content": "word " * 40})

    def feed() -> None:
        parser = StreamParser("openai")
        for _ in range(20_000):
            parser.feed(chunk)

    assert peak_while(feed) < 100_000


def test_an_idle_parser_is_small() -> None:
    gc.collect()
    tracemalloc.start()
    parsers = [StreamParser("auto") for _ in range(2_000)]
    size = tracemalloc.get_traced_memory()[0] / len(parsers)
    tracemalloc.stop()
    assert parsers
    assert size < 4_000  # bytes per idle parser: 10 000 of them stay well under 50 MB


ANTHROPIC_START = (
    b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message",'
    b'"role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,'
    b'"usage":{"input_tokens":1,"output_tokens":1}}}\n\n'
)


@pytest.mark.parametrize(
    ("provider", "first"),
    [("openai", openai_chunk({"role": "assistant"})), ("anthropic", ANTHROPIC_START), ("text", b"Hello")],
)
def test_an_idle_parsers_assembler_holds_no_set_or_dict(provider: ProviderName, first: bytes) -> None:
    parser = StreamParser(provider)
    assert parser.feed(first)  # the stream started (or its text came)
    assembler = parser._emit  # the emitter, whose call half is the assembler
    held = {slot: getattr(assembler, slot) for slot in CallAssembler.__slots__}
    assert [slot for slot, value in held.items() if type(value) in (set, dict)] == []


def call_chunk(
    *, arguments: str | None = None, name: str | None = None, call_id: str | None = None
) -> dict[str, Any]:
    """An OpenAI Chat chunk (decoded) with one tool-call delta, at index 0."""
    function: dict[str, Any] = {}
    if name is not None:
        function["name"] = name
    if arguments is not None:
        function["arguments"] = arguments
    call: dict[str, Any] = {"index": 0, "function": function}
    if call_id is not None:
        call.update(id=call_id, type="function")
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"tool_calls": [call]}}],
    }


def test_ids_stay_unique_once_the_assembler_keeps_them() -> None:
    """The ids in use are kept only once a second call needs them: a repeated id still gets its suffix."""
    parser = StreamParser("anthropic")
    started = []
    for index, call_id in enumerate(["same", "same", "other", "same"]):
        block = {"type": "tool_use", "id": call_id, "name": f"tool{index}", "input": {}}
        for event in parser.feed_event(
            {"type": "content_block_start", "index": index, "content_block": block}
        ):
            if type(event) is ToolCallStarted:
                started.append(event.id)
    assert started == ["same", "same#2", "other", "same#3"]


def held_after(chunks: list[bytes]) -> tuple[StreamParser, int]:
    """A parser fed ``chunks`` (the events dropped), and the traced bytes that the chunks after
    the first left held.  The same chunks go through a parser first: what it leaves behind (any
    first-use caches, the free lists of temporary objects) is not counted against the second."""
    for parser in (StreamParser("openai"), StreamParser("openai")):
        parser.feed(chunks[0])
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            for chunk in chunks[1:]:
                parser.feed(chunk)
            gc.collect()
            held = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
    return parser, held


@pytest.mark.parametrize("fragments", [63, 500, 2000])
def test_an_open_call_holds_about_one_byte_per_argument_character(fragments: int) -> None:
    # Four characters a fragment (each a string of its own, as decoded from the bytes), an
    # emoji and some CJK among them.
    pieces = [
        "ab\U0001f680c" if n % 97 == 0 else "\u4e2d\u6587ab" if n % 31 == 0 else "abcd"
        for n in range(fragments)
    ]
    start = openai_call_start(0, "call_1", "write", '{"a": "x')
    parser, held = held_after([start, *(openai_args(0, piece) for piece in pieces)])
    characters = 4 * fragments
    assert held < 1.5 * characters + 256, (held, characters)
    completed = [event for event in parser.feed(openai_args(0, '"}')) if type(event) is ToolCallCompleted]
    assert completed[0].call.arguments == {"a": "x" + "".join(pieces)}


@pytest.mark.parametrize(
    "fragments",
    [
        ['{"a": "', "\ud83d", "\ude80", '"}'],  # a surrogate pair, split in two (lone) halves
        ['{"a": "x\ud800', '"}'],
        ["{", '"a"', ": 1", "}"],
    ],
)
@pytest.mark.parametrize("named_first", [True, False])
@pytest.mark.parametrize("truncated", [True, False])
def test_the_arguments_come_back_as_fed(fragments: list[str], named_first: bool, truncated: bool) -> None:
    """The deltas, and the raw text of a failed call, are the fragments joined; a call named
    last replays the fragments that came before its name."""
    if named_first:
        chunks = [call_chunk(arguments=fragments[0], name="f", call_id="call_1")]
        chunks += [call_chunk(arguments=piece) for piece in fragments[1:]]
    else:
        chunks = [call_chunk(arguments=fragments[0], call_id="call_1")]
        chunks += [call_chunk(arguments=piece) for piece in fragments[1:-1]]
        chunks.append(call_chunk(arguments=fragments[-1], name="f"))
    if truncated:
        chunks.pop()
    fed = "".join(fragments[: len(chunks)])
    parser = StreamParser("openai")
    events = [event for chunk in chunks for event in parser.feed_event(chunk)] + parser.close()
    deltas = "".join(event.arguments_delta for event in events if type(event) is ToolCallDelta)
    ends = [event for event in events if type(event) in (ToolCallCompleted, ToolCallFailed)]
    assert len(ends) == 1
    end = ends[0]
    valid = "\ud800" not in fed and "\ud83d" not in fed
    if truncated or not valid:
        assert type(end) is ToolCallFailed
        assert end.raw == fed
        assert deltas == fed  # (a call never named starts as it fails: its fragments replayed)
    else:
        assert type(end) is ToolCallCompleted
        assert deltas == fed
        assert end.call.arguments == {"a": 1}
