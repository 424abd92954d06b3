"""The SSE framer against the WHATWG "interpreting an event stream" rules."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamcalls import Event, ParseError
from streamcalls.framing._sse import SSEFramer
from tests.support import bytewise, split_at


class Recorder:
    def __init__(self) -> None:
        self.records: list[tuple[str | None, bytes]] = []
        self.done = 0

    def on_record(self, name: str | None, data: bytes) -> None:
        self.records.append((name, data))

    def on_done(self) -> None:
        self.records.append(("<DONE>", b""))


def frame(
    chunks: list[bytes], max_line: int = 1 << 20, max_event: int = 1 << 20, close: bool = True
) -> tuple[list[tuple[str | None, bytes]], list[Event]]:
    sink = Recorder()
    out: list[Event] = []
    framer = SSEFramer(sink, out, max_line, max_event)
    for chunk in chunks:
        framer.feed(chunk)
    if close:
        framer.close()
    return sink.records, out


def test_data_lines_join_with_lf_and_lose_one_space() -> None:
    records, out = frame([b"data: a\ndata:  b\ndata:c\n\n"])
    assert records == [(None, b"a\n b\nc")]
    assert out == []


@pytest.mark.parametrize("newline", [b"\n", b"\r", b"\r\n"])
def test_every_line_end(newline: bytes) -> None:
    stream = b"event: x" + newline + b"data: 1" + newline + newline + b"data: 2" + newline + newline
    for chunks in ([stream], bytewise(stream)):
        records, _ = frame(chunks, close=False)
        assert records == [("x", b"1"), (None, b"2")]


def test_crlf_split_across_chunks_is_one_line_end() -> None:
    records, _ = frame([b"data: 1\r", b"\n\r", b"\ndata: 2\r\n\r\n"], close=False)
    assert records == [(None, b"1"), (None, b"2")]


def test_cr_dispatches_as_soon_as_it_arrives() -> None:
    records, _ = frame([b"data: 1\r\r"], close=False)
    assert records == [(None, b"1")]


def test_comments_retry_id_and_unknown_fields_are_not_data() -> None:
    records, _ = frame([b": keep-alive\nretry: 10\nid: 5\nfoo: bar\ndata: x\n\n"])
    assert records == [(None, b"x")]


def test_id_is_kept_unless_it_holds_nul() -> None:
    sink = Recorder()
    framer = SSEFramer(sink, [], 1000, 1000)
    framer.feed(b"id: 7\ndata: a\n\nid: 8\0\ndata: b\n\n")
    assert framer.last_event_id == "7"


def test_event_without_data_dispatches_nothing_and_resets_type() -> None:
    records, _ = frame([b"event: ping\n\ndata: x\n\n"])
    assert records == [(None, b"x")]


def test_empty_data_dispatches_empty_string() -> None:
    records, _ = frame([b"data:\n\ndata\n\n"])
    assert records == [(None, b""), (None, b"")]


def test_field_without_colon_has_empty_value() -> None:
    records, _ = frame([b"event\ndata\ndata\n\n"])
    assert records == [("", b"\n")]


def test_done_sentinel() -> None:
    records, _ = frame([b"data: [DONE]\n\n"])
    assert records == [("<DONE>", b"")]


def test_unicode_line_separators_are_content() -> None:
    payload = '{"t": "a\u2028b\u2029c\u0085d\x0ce"}'.encode()
    records, _ = frame([b"data: " + payload + b"\n\n"])
    assert records == [(None, payload)]


def test_last_event_without_blank_line_is_delivered_at_close() -> None:
    records, out = frame([b"data: 1\n\ndata: 2\n"])
    assert records == [(None, b"1"), (None, b"2")]
    records, out = frame([b"data: 1\n\ndata: 2"])  # not even a line end
    assert records == [(None, b"1"), (None, b"2")]
    assert out == []


def test_line_over_the_limit_is_reported_and_skipped() -> None:
    records, out = frame([b"data: 1\n\ndata: " + b"x" * 50, b"y" * 50 + b"\ndata: 3\n\n"], max_line=64)
    assert records == [(None, b"1"), (None, b"3")]
    assert len(out) == 1
    assert isinstance(out[0], ParseError)
    assert "max_line_bytes=64" in out[0].message


def test_event_over_the_limit_is_reported_and_dropped() -> None:
    records, out = frame([b"data: aaaa\ndata: bbbb\ndata: cccc\n\ndata: ok\n\n"], max_event=10)
    assert records == [(None, b"ok")]
    assert len(out) == 1
    assert "max_event_bytes=10" in out[0].message  # type: ignore[union-attr]


def test_memory_is_bounded_by_the_line_limit() -> None:
    sink = Recorder()
    out: list[Event] = []
    framer = SSEFramer(sink, out, 1000, 1000)
    for _ in range(1000):
        framer.feed(b"z" * 100)  # one endless line
    assert len(framer._lines._tail) <= 1000
    assert len(out) == 1


@given(st.lists(st.integers(0, 120), max_size=30))
def test_any_chunking_gives_the_same_records(cuts: list[int]) -> None:
    stream = b'\xef: c\r\ndata: {"a":\r\ndata: 1}\r\n\r\nevent: e\rdata: x\r\rdata: [DONE]\n\n'
    whole, _ = frame([stream])
    assert frame(split_at(stream, cuts))[0] == whole
