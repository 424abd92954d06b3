"""The SSE framer against the WHATWG "interpreting an event stream" rules."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from streamcalls import Event, ParseError
from streamcalls._emitter import preview
from streamcalls.framing._sse import SSEFramer
from tests.support import bytewise, split_at


class Recorder:
    """A sink: the records, and the framer's reports as the ParseErrors an adapter makes of them."""

    def __init__(self, out: list[Event] | None = None) -> None:
        self.records: list[tuple[str | None, bytes]] = []
        self.out: list[Event] = [] if out is None else out
        self.done = 0

    def on_record(self, name: str | None, data: bytes) -> None:
        self.records.append((name, data))

    def on_done(self) -> None:
        self.records.append(("<DONE>", b""))

    def on_framing_error(self, message: str, raw: bytes | bytearray | str = b"") -> None:
        self.out.append(ParseError(message, raw if isinstance(raw, str) else preview(raw)))


def frame(
    chunks: list[bytes], max_line: int = 1 << 20, max_event: int = 1 << 20, close: bool = True
) -> tuple[list[tuple[str | None, bytes]], list[Event]]:
    out: list[Event] = []
    sink = Recorder(out)
    framer = SSEFramer(sink, max_line, max_event)
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
    framer = SSEFramer(sink, 1000, 1000)
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
    out: list[Event] = []
    sink = Recorder(out)
    framer = SSEFramer(sink, 1000, 1000)
    for _ in range(1000):
        framer.feed(b"z" * 100)  # one endless line
    assert len(framer._lines._tail or b"") <= 1000
    assert len(out) == 1


@given(st.lists(st.integers(0, 120), max_size=30))
def test_any_chunking_gives_the_same_records(cuts: list[int]) -> None:
    stream = b'\xef: c\r\ndata: {"a":\r\ndata: 1}\r\n\r\nevent: e\rdata: x\r\rdata: [DONE]\n\n'
    whole, _ = frame([stream])
    assert frame(split_at(stream, cuts))[0] == whole


_words = st.text("ab", max_size=4)
_values = st.text('ab{}": []DONE', max_size=24)


@st.composite
def _event_chunks(draw: st.DrawFn) -> list[bytes]:
    """Chunks of one event each, mostly the shapes the fast path reads (``data: x`` after an
    ``event:`` line or not), and around them what it must leave to the line reader: an event
    name, a data line or a comment alone, an unfinished line, several data lines, CR line ends,
    ``[DONE]``."""
    chunks = []
    for _ in range(draw(st.integers(1, 6))):
        end = draw(st.sampled_from(["\n", "\n", "\n", "\r\n", "\r"]))
        shape = draw(
            st.sampled_from(
                [
                    "data",
                    "named",
                    "named",
                    "name alone",
                    "data alone",
                    "unfinished",
                    "comment",
                    "two lines",
                    "done",
                ]
            )
        )
        value = draw(_values)
        if shape == "data":
            text = f"data: {value}{end}{end}"
        elif shape == "named":
            text = f"event: {draw(_words)}{end}data: {value}{end}{end}"
        elif shape == "name alone":
            text = f"event: {draw(_words)}{end}"
        elif shape == "data alone":
            text = f"data: {value}{end}"
        elif shape == "unfinished":
            text = f"data: {value}"
        elif shape == "comment":
            text = f": {value}{end}{end}"
        elif shape == "two lines":
            text = f"data: {value}{end}data: {draw(_values)}{end}{end}"
        else:
            text = f"data: [DONE]{end}{end}"
        chunks.append(text.encode())
    return chunks


@given(_event_chunks(), st.integers(8, 80), st.integers(4, 80))
@example([b"data: v", b"data: x\n\n"], 40, 40)  # an unfinished line: the next chunk continues it
@example([b"data: v\n", b"event: e\ndata: x\n\n"], 40, 40)  # data lines held for the next blank line
@example([b"event: x\n", b"event: y\ndata: v\n\n", b"data: w\n\n"], 40, 40)  # a name held, then replaced
@settings(max_examples=400)
def test_an_event_per_chunk_reads_as_line_by_line(chunks: list[bytes], max_line: int, max_event: int) -> None:
    """A chunk that is one whole event is read at once (the fast path); a byte at a time, every
    chunk is read line by line.  Records, names and errors are the same, limits included."""
    whole = frame(chunks, max_line=max_line, max_event=max_event)
    assert frame(bytewise(b"".join(chunks)), max_line=max_line, max_event=max_event) == whole
