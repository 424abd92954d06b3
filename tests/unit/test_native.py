"""The native fast path against the pure-Python reference: the same events, field for field.

The pure path is the one reference for every rule (see streamcalls/_native); the
native path may only ever do what it would have done.  So each stream here runs
through both -- the native one as built, the pure one under
``_native.pure_python()`` -- and the events are compared as msgspec encodes them,
one by one.  Here: the SSE framer on its own (generated streams of every field,
line end and limit, split anywhere), and every recording of the corpus, whole,
one byte at a time, at two-piece splits and at random splits, named and under
``provider="auto"``, with and without ``partial_arguments=True``.  The generated
OpenAI and Anthropic streams are in tests/corpus/test_native_streams.py, and the fuzz
harness (tests/support/fuzzing.py) runs each of its inputs through both paths as well.

Each test also checks that the native readers did read records (``counts()``),
so that none passes by running the pure path twice.
"""

from __future__ import annotations

import subprocess
import sys
import tracemalloc
from collections.abc import Callable, Iterable
from typing import Any, cast

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import streamcalls
from streamcalls import Event, _native
from streamcalls.framing._records import RecordFramer
from streamcalls.framing._sse import SSEFramer
from streamcalls.providers.anthropic import reader as anthropic_reader
from streamcalls.providers.openai_chat.reader import OpenAIChatAdapter
from tests.support import DATA, Case, bytewise, corpus, counter_ids, split_at
from tests.support.streams import ANTHROPIC_START, anthropic_json, anthropic_tool_start

speedups = _native.speedups
pytestmark = pytest.mark.skipif(
    speedups is None, reason="the native path is not built here (no compiler), or STREAMCALLS_PURE_PYTHON=1"
)

CASES = corpus()
IDS = [case.id for case in CASES]
NATIVE_PROVIDERS = ("openai", "anthropic")  # the adapters with a native reader


def encoded(events: Iterable[Event]) -> list[bytes]:
    return [msgspec.json.encode(event) for event in events]


def feed(
    chunks: Iterable[bytes | bytearray | memoryview | str], provider: str, **options: Any
) -> list[bytes]:
    parser = streamcalls.StreamParser(
        cast(streamcalls.ProviderName, provider), id_factory=counter_ids(), **options
    )
    events: list[Event] = []
    for chunk in chunks:
        events += parser.feed(chunk)
    events += parser.close()
    return encoded(events)


def same_on_both_paths(chunks: list[bytes], provider: str, **options: Any) -> list[bytes]:
    """The stream's events on the native path, checked equal to the pure path's; returned."""
    native = feed(chunks, provider, **options)
    with _native.pure_python():
        pure = feed(chunks, provider, **options)
    assert native == pure
    return native


# -- the framer on its own -----------------------------------------------------------------------


class Recorder:
    """A sink that records what it is given, in order (no native reader: its class declares none)."""

    def __init__(self) -> None:
        self.records: list[tuple[str | None, bytes | str]] = []

    def on_record(self, name: str | None, data: bytes) -> None:
        self.records.append((name, data))

    def on_done(self) -> None:
        self.records.append(("<DONE>", b""))

    def on_framing_error(self, message: str, raw: bytes | bytearray | str = b"") -> None:
        self.records.append((message, bytes(raw) if isinstance(raw, bytearray) else raw))


def frame(make: Callable[..., RecordFramer], chunks: list[bytes], max_line: int, max_event: int) -> Any:
    sink = Recorder()
    framer = make(sink, max_line, max_event)
    ids = []
    for chunk in chunks:
        assert framer.feed(chunk) is None  # (an SSE framer hands over to no other)
        ids.append(framer.last_event_id)  # type: ignore[attr-defined]
    framer.close()
    return sink.records, ids


_NAMES = [b"data", b"event", b"id", b"retry", b"", b"dat", b"data ", b"x"]
_VALUES = [b"", b" ", b"x", b" y", b"  z", b"[DONE]", b"\xc3\xa9", b"\xff", b"a\0b", b'{"a": 1}', b":"]


@st.composite
def sse_streams(draw: st.DrawFn) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 25))):
        kind = draw(st.integers(0, 5))
        if kind == 0:
            line = b""
        elif kind == 1:
            line = b":" + draw(st.sampled_from(_VALUES))
        elif kind == 2:
            line = draw(st.sampled_from(_NAMES))  # a field without a colon
        elif kind == 3:
            line = b"data: " + draw(st.binary(max_size=40))
        else:
            line = draw(st.sampled_from(_NAMES)) + b":" + draw(st.sampled_from(_VALUES))
        line = line.replace(b"\r", b"").replace(b"\n", b"")
        lines.append(line + draw(st.sampled_from([b"\n", b"\r", b"\r\n"])))
    tail = draw(st.binary(max_size=12)) if draw(st.booleans()) else b""
    return b"".join(lines) + tail


@settings(max_examples=400, deadline=None)
@given(
    stream=sse_streams(),
    cuts=st.lists(st.integers(0, 400), max_size=20),
    max_line=st.sampled_from([4, 9, 16, 1 << 20]),
    max_event=st.sampled_from([3, 10, 1 << 20]),
)
def test_the_native_framer_frames_as_the_pure_one(
    stream: bytes, cuts: list[int], max_line: int, max_event: int
) -> None:
    assert speedups is not None
    for chunks in (split_at(stream, cuts), bytewise(stream)):
        assert frame(speedups.SSEFramer, chunks, max_line, max_event) == frame(
            SSEFramer, chunks, max_line, max_event
        )


def test_a_line_without_end_holds_at_most_the_line_limit() -> None:
    """Bounded memory: an endless line costs the limit and one chunk, whatever comes."""
    assert speedups is not None
    sink = Recorder()
    framer = speedups.SSEFramer(sink, 1000, 1000)
    chunk = b"z" * 4096
    tracemalloc.start()
    try:
        for _ in range(2000):  # 8 MB of one line
            framer.feed(chunk)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held < 64 << 10
    assert len(sink.records) == 1  # reported once


def test_an_event_of_many_lines_holds_at_most_the_event_limit() -> None:
    assert speedups is not None
    sink = Recorder()
    framer = speedups.SSEFramer(sink, 1000, 10_000)
    line = b"data: " + b"d" * 94 + b"\n"
    reported = 0
    tracemalloc.start()
    try:
        for _ in range(20_000):  # 2 MB of data lines, no blank line
            framer.feed(line)
            reported += len(sink.records)
            sink.records.clear()  # (the reports become events: the parser hands them on)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held < 64 << 10
    assert reported > 100  # each time it went over, reported


def test_feeding_while_it_delivers_is_refused() -> None:
    assert speedups is not None

    class Reentrant(Recorder):
        def on_record(self, name: str | None, data: bytes) -> None:
            framer.feed(b"data: again\n\n")

    framer = speedups.SSEFramer(Reentrant(), 1000, 1000)
    with pytest.raises(RuntimeError, match="fed again"):
        framer.feed(b"data: x\n\n")
    framer.feed(b"data: y\n")  # and it goes on


# -- the recordings ------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_every_recording_gives_the_same_events_on_both_paths(case: Case) -> None:
    data = case.data()
    for provider in (case.provider, "auto"):
        for partial in (False, True):
            options = {**case.options(), "partial_arguments": partial}
            same_on_both_paths([data], provider, **options)
            same_on_both_paths(bytewise(data), provider, **options)
    step = max(1, len(data) // 40)
    for cut in range(1, len(data), step):
        same_on_both_paths([data[:cut], data[cut:]], case.provider, **case.options())


@pytest.mark.parametrize("case", [c for c in CASES if c.path.suffix == ".sse"], ids=lambda c: c.id)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_splits_of_every_sse_recording(case: Case, data: st.DataObject) -> None:
    raw = case.data()
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=60))
    provider = data.draw(st.sampled_from([case.provider, "auto"]))
    partial = data.draw(st.booleans())
    same_on_both_paths(split_at(raw, cuts), provider, partial_arguments=partial, **case.options())


def test_the_native_readers_read_most_records_of_the_recordings() -> None:
    """The comparisons above would pass with no native reader at all: here is what they read."""
    assert speedups is not None
    read = handed = 0
    for case in CASES:
        if case.provider in NATIVE_PROVIDERS and case.path.suffix == ".sse":
            native, pure = speedups.counts()
            feed([case.data()], case.provider, **case.options())
            read += speedups.counts()[0] - native
            handed += speedups.counts()[1] - pure
    # The recordings are short and full of odd shapes, so the adapters read more of their records
    # (a stream's first, a call's first and last fragment, the finish) than in real traffic, where
    # the native readers read nearly all (tests/corpus/test_native_streams.py); still, a good share.
    assert read > 100
    assert read > handed / 2


# -- the parser's feed, whose common case is native ----------------------------------------------


def progress_run(chunks: list[bytes], provider: str) -> tuple[list[bytes], list[int]]:
    """Events and StreamParser.progress after each chunk (reading it makes every feed count events)."""
    parser = streamcalls.StreamParser(cast(streamcalls.ProviderName, provider), id_factory=counter_ids())
    events: list[Event] = []
    seen = [parser.progress]
    for chunk in chunks:
        events += parser.feed(chunk)
        seen.append(parser.progress)
    events += parser.close()
    return encoded(events), seen


@pytest.mark.parametrize("name", ["openai/parallel_interleaved.sse", "anthropic/interleaved_thinking.sse"])
def test_progress_is_counted_the_same_on_both_paths(name: str) -> None:
    data = (DATA / name).read_bytes()
    provider = name.split("/", maxsplit=1)[0]
    for chunks in ([data], bytewise(data)):
        native = progress_run(chunks, provider)
        with _native.pure_python():
            pure = progress_run(chunks, provider)
        assert native == pure
        assert native[1][-1] > 0


@pytest.mark.parametrize("name", ["openai/error_midstream.sse", "anthropic/error_midstream.sse"])
def test_a_provider_error_raises_the_same_on_both_paths(name: str) -> None:
    data = (DATA / name).read_bytes()
    provider = cast(streamcalls.ProviderName, name.split("/", maxsplit=1)[0])

    def feed_all(parser: streamcalls.StreamParser) -> None:
        for line in data.splitlines(keepends=True):
            parser.feed(line)

    def failure() -> tuple[bytes, list[bytes]]:
        parser = streamcalls.StreamParser(provider, raise_provider_errors=True, id_factory=counter_ids())
        with pytest.raises(streamcalls.ProviderFailure) as caught:
            feed_all(parser)
        return msgspec.json.encode(caught.value.error), encoded(caught.value.events)

    native = failure()
    with _native.pure_python():
        assert failure() == native


def test_chunks_that_are_not_bytes_give_the_same_events() -> None:
    data = (DATA / "openai" / "parallel_interleaved.sse").read_bytes()
    pieces = [data[i : i + 7] for i in range(0, len(data), 7)]
    as_bytes = feed(pieces, "openai")
    assert feed([bytearray(p) for p in pieces], "openai") == as_bytes
    assert feed([memoryview(p) for p in pieces], "openai") == as_bytes
    assert feed([p.decode("latin-1").encode("latin-1") for p in pieces], "openai") == as_bytes
    assert feed([data.decode()], "openai") == as_bytes


def test_the_native_feed_is_the_python_feed_s_stand_in() -> None:
    """Its signature and doc are the Python feed's; a parser on the pure path takes the Python feed."""
    feed_method = streamcalls.StreamParser.feed
    assert (feed_method.__doc__ or "").startswith("Add the next chunk of the stream")
    with _native.pure_python():
        parser = streamcalls.StreamParser("openai")
        assert parser.feed(b"data: {}\n\n") == []
        assert type(parser._framer) is SSEFramer


# -- which path a stream takes -------------------------------------------------------------------


def test_the_c_reader_knows_the_anthropic_block_kinds() -> None:
    assert speedups is not None
    kinds = (anthropic_reader._TEXT, anthropic_reader._THINKING, anthropic_reader._IGNORED)
    assert kinds == speedups.ANTHROPIC_BLOCK_KINDS
    assert anthropic_reader.AnthropicAdapter.__dict__["native_records"] == "anthropic"


def test_a_subclass_of_an_adapter_gets_no_native_reader() -> None:
    """The declaration is read from the class itself: a subclass may read records its own way."""
    seen: list[bytes] = []

    class Watching(OpenAIChatAdapter):
        def on_record(self, name: str | None, data: bytes) -> None:
            seen.append(data)
            super().on_record(name, data)

    assert speedups is not None
    emit = streamcalls.StreamParser("openai")._emit
    framer = speedups.SSEFramer(Watching(emit), 1000, 1000)
    first = b'data: {"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"content": "a"}}]}\n\n'
    framer.feed(first + b'data: {"choices": [{"index": 0, "delta": {"content": "b"}}]}\n\n')
    assert len(seen) == 2
    assert OpenAIChatAdapter.__dict__["native_records"] == "openai"


def test_any_number_of_other_sink_classes_leaves_the_native_readers_on() -> None:
    """The C module remembers the classes that declare a native reader, not every sink class it meets."""
    assert speedups is not None
    for number in range(40):
        sink = type(f"Sink{number}", (Recorder,), {})()
        framer = speedups.SSEFramer(sink, 1000, 1000)
        framer.feed(b"data: {}\n\n")
        assert sink.records == [(None, b"{}")]
    native = speedups.counts()[0]
    feed([(DATA / "openai" / "parallel_interleaved.sse").read_bytes()], "openai")
    assert speedups.counts()[0] > native


def test_pure_python_env_turns_the_native_path_off() -> None:
    code = (
        "import streamcalls, streamcalls._native as n; p = streamcalls.StreamParser('openai'); "
        "p.feed(b'data: {}\\n\\n'); print(n.speedups, n.active(), type(p._framer).__module__)"
    )
    shown = subprocess.run(
        [sys.executable, "-c", code],
        env={"STREAMCALLS_PURE_PYTHON": "1", "PYTHONPATH": ":".join(sys.path)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert shown == ["None", "False", "streamcalls.framing._sse"]


def test_the_native_framer_is_the_one_a_stream_gets() -> None:
    parser = streamcalls.StreamParser("anthropic")
    parser.feed(b"event: ping\ndata: {}\n\n")
    assert type(parser._framer).__module__ == "streamcalls._native._speedups"
    with _native.pure_python():
        parser = streamcalls.StreamParser("anthropic")
        parser.feed(b"event: ping\ndata: {}\n\n")
    assert type(parser._framer) is SSEFramer


# -- counts changed in place -----------------------------------------------------------------------


def test_a_count_held_elsewhere_is_never_changed_in_place() -> None:
    """A call's size and the held count grow in place only while their slot alone holds the int.

    An int is immutable to everyone who can see it: the size read out before a fragment keeps
    its value, and the call's own count still moves on.
    """
    assert speedups is not None
    text = "x" * 300
    fragments = ['{"text": "', text, text, text]
    chunks = [
        ANTHROPIC_START,
        anthropic_tool_start(0, "toolu_1", "write"),
        *(anthropic_json(0, fragment) for fragment in fragments),
    ]
    parser = streamcalls.StreamParser("anthropic")
    for chunk in chunks[:4]:
        parser.feed(chunk)
    adapter = cast(Any, parser._framer).sink
    call, calls = adapter._call, adapter.emit
    size_before, held_before = call.size, calls.held  # (held here: the ints are shared now)
    assert size_before == held_before == 310
    native = speedups.counts()[0]
    [delta] = parser.feed(chunks[4])
    assert speedups.counts()[0] == native + 1  # (read natively)
    assert delta == streamcalls.ToolCallDelta(0, text)
    assert (size_before, held_before) == (310, 310)
    assert (call.size, calls.held) == (610, 610)
    del size_before, held_before  # the slots alone hold them now: the next fragment adds in place
    parser.feed(chunks[5])
    assert (call.size, calls.held) == (910, 910)
    assert same_on_both_paths(chunks, "anthropic")
