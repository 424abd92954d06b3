"""What a text channel holds: little, until its text holds markup.

A gateway may hold thousands of parsers, and most of their text is prose.  A channel with
every detector on keeps, until its first markup, no detector, no markup record and no closure
of its own: what it searches with is shared by the channels of the same detectors, and each
detector is built at its first region (one markup record then serves them all, as only one
reads at a time).  Measured with tracemalloc (allocations, not time: stable on a busy machine),
as tests/unit/test_memory.py measures the parser.
"""

from __future__ import annotations

import gc
import tracemalloc
import types

import pytest

from streamcalls import StreamParser, ToolCallCompleted, ToolCallFailed
from streamcalls.detectors import DETECTORS
from streamcalls.detectors._engine.channel import TextChannel
from tests.unit.test_detectors import texts

EVERY = tuple(name for name, kind in DETECTORS.items() if not kind.opens_text)
# Prose with the characters markup begins with, a line end, and the beginnings of markup.
PROSE = b"Prose with <angles>, [brackets], {braces}, ]< and functools,\n~~ and ``` ticks <tool_ and [TOOL"
TOOLS = [{"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}}]


def channel_of(parser: StreamParser) -> TextChannel:
    push = parser._emit.text
    assert isinstance(push, types.MethodType)
    channel = push.__self__
    assert isinstance(channel, TextChannel)
    return channel


def held_per_parser(detect: tuple[str, ...], n: int = 300) -> float:
    """Traced bytes each of ``n`` text parsers holds once fed the prose (the events dropped).  One
    parser is fed first: what it leaves behind (the shared patterns, first-use caches) is not
    counted against the others."""
    StreamParser("text", detect=detect).feed(PROSE)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        parsers = []
        for _ in range(n):
            parser = StreamParser("text", detect=detect)
            parser.feed(PROSE)
            parsers.append(parser)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(parsers) == n
    return held / n


@pytest.mark.parametrize("detect", [EVERY, ("fence", "json")])
def test_a_channel_that_saw_no_markup_holds_a_few_hundred_bytes(detect: tuple[str, ...]) -> None:
    # Against the same parser with the detectors off (no channel at all): the channel's own
    # object and the text it holds back ("[TOOL").  With every detector on it held about 6 KB
    # more while each detector was built with the channel.  (tools= adds the tools' types, the
    # same for one detector or all.)
    extra = held_per_parser(detect) - held_per_parser(())
    assert extra < 400, extra


def test_a_channel_that_saw_no_markup_does_not_grow_with_the_formats_on() -> None:
    assert held_per_parser(EVERY) - held_per_parser(("fence",)) < 100


def test_a_channel_keeps_no_detector_record_or_closure_until_its_first_markup() -> None:
    parsers = [StreamParser("text", detect=EVERY, tools=TOOLS) for _ in range(2)]
    for parser in parsers:
        assert texts(parser.feed(PROSE))
    first, second = (channel_of(parser) for parser in parsers)
    held = {slot: getattr(first, slot) for slot in TextChannel.__slots__}
    assert held["_built"] is None
    assert held["_markup"] is None
    assert held["_candidate"] is None
    assert [s for s, v in held.items() if isinstance(v, (types.FunctionType, types.MethodType))] == []
    # What it searches with, and the names and plans of its detectors, are the other channel's.
    for slot in ("_patterns", "_plans", "_names", "_quiet", "_short", "_line_first"):
        assert getattr(first, slot) is getattr(second, slot), slot


def test_the_first_markup_makes_one_record_and_builds_only_the_detectors_that_read() -> None:
    parser = StreamParser("text", detect=EVERY, tools=TOOLS)
    channel = channel_of(parser)
    events = parser.feed(PROSE + b'\n<TOOLCALL>[{"name": "f", "arguments": {"a": 1}}]</TOOLCALL>')
    record = channel._markup
    assert record is not None
    events += parser.feed(b' and <longcat_tool_call>{"name": "f", "arguments": {"a": 2}}</longcat_tool_call>')
    events += parser.feed(b" then <|tool_call>call:f{a:3}<tool_call|>") + parser.close()
    assert [e.call.arguments for e in events if isinstance(e, ToolCallCompleted)] == [
        {"a": 1},
        {"a": 2},
        {"a": 3},
    ]
    assert not [e for e in events if isinstance(e, ToolCallFailed)]
    assert channel._markup is record  # one record, for every detector's region
    assert channel._built is not None
    assert sorted(d.name for d in channel._built if d is not None) == ["gemma4", "longcat", "nemotron"]
