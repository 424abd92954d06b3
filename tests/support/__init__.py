"""Shared helpers for the tests: feeding streams in chunks, normalizing events, the corpus."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import msgspec

import streamcalls
from streamcalls import (
    Event,
    ParseError,
    ReasoningCompleted,
    ReasoningDelta,
    ReasoningStarted,
    StreamFinished,
    StreamStarted,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallStarted,
)

DATA = Path(__file__).parent.parent / "data"

# Extensions of recorded streams; the expected events sit beside each as NAME.events.jsonl.
STREAM_SUFFIXES = (".sse", ".ndjson", ".json", ".bin", ".txt", ".html")


def counter_ids(prefix: str = "call_gen_") -> Callable[[], str]:
    """A deterministic id factory: call_gen_0, call_gen_1, ..."""
    numbers = itertools.count()
    return lambda: f"{prefix}{next(numbers)}"


def feed_chunks(chunks: Iterable[bytes], provider: str = "auto", **options: Any) -> list[Event]:
    options.setdefault("id_factory", counter_ids())
    parser = streamcalls.StreamParser(cast(streamcalls.ProviderName, provider), **options)
    events: list[Event] = []
    for chunk in chunks:
        events += parser.feed(chunk)
    events += parser.close()
    return events


def after_start(events: Sequence[Event]) -> list[Event]:
    """The events without the stream's :class:`~streamcalls.StreamStarted` (for tests about what
    follows it; :func:`check_reasoning_blocks` checks the start itself).  It is never anywhere but
    before the stream's content: only framing errors may come before it."""
    kept = [event for event in events if type(event) is not StreamStarted]
    if len(kept) < len(events):
        assert len(events) - len(kept) == 1, events
        first = next(i for i, event in enumerate(events) if type(event) is StreamStarted)
        assert all(type(event) is ParseError for event in events[:first]), events
    return kept


def feed_content(chunks: Iterable[bytes], provider: str = "auto", **options: Any) -> list[Event]:
    """:func:`feed_chunks`, then :func:`after_start`: the events a stream's start leads to."""
    return after_start(feed_chunks(chunks, provider, **options))


def plain(messages: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Messages typed as an SDK's TypedDicts, as plain dicts a test can index freely."""
    return [dict(message) for message in messages]


def sse_payloads(path: Path) -> list[Any]:
    """The decoded data of every SSE event in a recording (what an SDK iterates)."""
    payloads = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("data: ") and line != "data: [DONE]":
            payloads.append(msgspec.json.decode(line[6:]))
    return payloads


def split_at(data: bytes, cuts: Iterable[int]) -> list[bytes]:
    points = sorted({c for c in cuts if 0 < c < len(data)})
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def bytewise(data: bytes) -> list[bytes]:
    return [data[i : i + 1] for i in range(len(data))]


def normalize(events: Sequence[Event]) -> list[Event]:
    """Merge adjacent text, reasoning and same-call argument deltas.

    How a chunking splits text into deltas is not part of the contract; the
    concatenated text and every other event are.
    """
    merged: list[Event] = []
    for event in events:
        last = merged[-1] if merged else None
        if type(event) is TextDelta and type(last) is TextDelta:
            merged[-1] = TextDelta(last.text + event.text)
        elif type(event) is ReasoningDelta and type(last) is ReasoningDelta:
            merged[-1] = ReasoningDelta(last.text + event.text)
        elif type(event) is ToolCallDelta and type(last) is ToolCallDelta and last.index == event.index:
            merged[-1] = ToolCallDelta(event.index, last.arguments_delta + event.arguments_delta)
        else:
            merged.append(event)
    return merged


_event_decoder = msgspec.json.Decoder(Event)


def read_events(path: Path) -> list[Event]:
    return [_event_decoder.decode(line) for line in path.read_bytes().splitlines() if line.strip()]


def write_events(path: Path, events: Sequence[Event]) -> None:
    path.write_bytes(b"".join(msgspec.json.encode(e) + b"\n" for e in events))


@dataclass(frozen=True)
class Case:
    """One recorded stream: tests/data/<provider>/<name>.<ext>."""

    path: Path
    provider: str

    @property
    def id(self) -> str:
        return f"{self.provider}/{self.path.name}"

    @property
    def expected_path(self) -> Path:
        return self.path.with_suffix(".events.jsonl")

    def options(self) -> dict[str, Any]:
        """StreamParser options for this stream, from NAME.options.json if there is one."""
        path = self.path.with_suffix(".options.json")
        return msgspec.json.decode(path.read_bytes()) if path.exists() else {}

    def data(self) -> bytes:
        return self.path.read_bytes()

    def expected(self) -> list[Event]:
        return read_events(self.expected_path)


#: Folders under tests/data that hold no recorded streams: formats/ holds the text formats' specifications.
NOT_RECORDINGS = ("formats",)


def corpus() -> list[Case]:
    cases = []
    for path in sorted(DATA.glob("*/*")):
        if path.parent.name in NOT_RECORDINGS:
            continue
        if path.suffix in STREAM_SUFFIXES and not path.name.endswith((".events.jsonl", ".options.json")):
            cases.append(Case(path, path.parent.name))
    return cases


def completed_calls(events: Sequence[Event]) -> list[ToolCall]:
    return [e.call for e in events if isinstance(e, ToolCallCompleted)]


def failed_calls(events: Sequence[Event]) -> list[ToolCallFailed]:
    return [e for e in events if isinstance(e, ToolCallFailed)]


def text_of(events: Sequence[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def reasoning_of(events: Sequence[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, ReasoningDelta))


def text_run(detect: tuple[str, ...]) -> Callable[..., list[Event]]:
    """A function that parses a whole text with these detectors (and deterministic ids)."""

    def run(text: str, **options: Any) -> list[Event]:
        options.setdefault("detect", detect)
        return feed_chunks([text.encode()], "text", **options)

    return run


CALL_EVENTS = (ToolCallStarted, ToolCallDelta, ToolCallCompleted, ToolCallFailed)


def check_reasoning_blocks(events: Sequence[Event]) -> None:
    """The start and the reasoning blocks: StreamStarted at most once, before any content (only
    parse errors before it); each ReasoningStarted followed by ReasoningDelta* and exactly one
    ReasoningCompleted, with nothing else in between (but a ParseError: bytes that could not be read
    are reported where they are found); no ReasoningCompleted without its start.
    (A text detector's bare ReasoningDelta, outside any block, is allowed.)"""
    starts = [i for i, event in enumerate(events) if type(event) is StreamStarted]
    assert len(starts) <= 1, "StreamStarted twice"
    if starts:
        assert all(type(event) is ParseError for event in events[: starts[0]]), "content before StreamStarted"
    open_block = False
    for event in events:
        kind = type(event)
        if kind is ReasoningStarted:
            assert not open_block, "a reasoning block inside another"
            open_block = True
        elif kind is ReasoningCompleted:
            assert open_block, "ReasoningCompleted without its ReasoningStarted"
            open_block = False
        elif open_block:
            assert kind is ReasoningDelta or kind is ParseError, f"{kind.__name__} inside a reasoning block"
    assert not open_block, "a reasoning block never ended"


def check_protocol(events: list[Event]) -> None:
    check_reasoning_blocks(events)
    started: list[int] = []
    ended: set[int] = set()
    deltas: dict[int, list[str]] = {}
    ids: set[str] = set()
    finished_at = None
    for position, event in enumerate(events):
        if isinstance(event, StreamFinished):
            assert finished_at is None, "StreamFinished twice"
            finished_at = position
            continue
        if not isinstance(event, CALL_EVENTS):
            continue
        assert finished_at is None, f"call event after StreamFinished: {event}"
        if isinstance(event, ToolCallStarted):
            assert event.index == len(started), "indices must be 0, 1, 2, ... in start order"
            assert event.id not in ids, "ids must be unique"
            ids.add(event.id)
            started.append(event.index)
            deltas[event.index] = []
            continue
        index = event.call.index if isinstance(event, ToolCallCompleted) else event.index
        assert index in started, f"{type(event).__name__} before ToolCallStarted"
        assert index not in ended, f"event after the call ended: {event}"
        if isinstance(event, ToolCallDelta):
            deltas[index].append(event.arguments_delta)
        else:
            ended.add(index)
            if isinstance(event, ToolCallCompleted) and event.call.source == "native" and deltas[index]:
                raw = "".join(deltas[index]).strip()
                if raw.startswith("{"):
                    assert msgspec.json.decode(raw) == event.call.arguments
    assert finished_at is not None, "no StreamFinished"
    assert set(started) == ended, "a call never ended"
