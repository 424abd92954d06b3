"""The NDJSON framer: one record per line, whatever the chunking.

A chunk that is one whole line is read at once (the fast path); the same
bytes a byte at a time go through the line buffer.  The records and errors
must be the same: the line buffer is the reference.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from streamcalls import Event, ParseError
from streamcalls._emitter import preview
from streamcalls.framing._ndjson import NDJSONFramer
from tests.support import bytewise


class Recorder:
    """A sink: the records, and the framer's reports as the ParseErrors an adapter makes of them."""

    def __init__(self) -> None:
        self.items: list[tuple[str | None, bytes] | Event] = []

    def on_record(self, name: str | None, data: bytes) -> None:
        self.items.append((name, data))

    def on_done(self) -> None:  # pragma: no cover - NDJSON has no sentinel
        raise AssertionError("no on_done in NDJSON")

    def on_framing_error(self, message: str, raw: bytes | bytearray | str = b"") -> None:
        self.items.append(ParseError(message, raw if isinstance(raw, str) else preview(raw)))


def frame(chunks: list[bytes], max_line: int) -> list[tuple[str | None, bytes] | Event]:
    sink = Recorder()
    framer = NDJSONFramer(sink, max_line)
    for chunk in chunks:
        framer.feed(chunk)
    framer.close()
    return sink.items


def test_lines_blank_lines_and_a_last_line_without_its_end() -> None:
    assert frame([b'{"a":1}\n', b"\n", b"  \n", b'{"b":2}\r\n{"c":3}'], 100) == [
        (None, b'{"a":1}'),
        (None, b'{"b":2}'),
        (None, b'{"c":3}'),
    ]


@st.composite
def _line_chunks(draw: st.DrawFn) -> list[bytes]:
    """Chunks of a line each, mostly the shape the fast path reads (one LF-ended line), and
    around them what it must leave to the line buffer: CR line ends, an unfinished line, two
    lines in a chunk, blank lines."""
    chunks = []
    for _ in range(draw(st.integers(1, 6))):
        value = draw(st.text('ab{}": ', max_size=30))
        shape = draw(st.sampled_from(["line", "line", "line", "crlf", "cr", "unfinished", "two", "blank"]))
        text = {
            "line": f"{value}\n",
            "crlf": f"{value}\r\n",
            "cr": f"{value}\r",
            "unfinished": value,
            "two": f"{value}\n{value}\n",
            "blank": " \n",
        }[shape]
        chunks.append(text.encode())
    return chunks


@given(_line_chunks(), st.integers(4, 40))
@example([b'{"a"', b'{"b"}\n'], 40)  # an unfinished line: the next chunk continues it
@example([b'{"a"}\r', b'\n{"b"}\n'], 40)  # a CR at a chunk's end: the LF after it is its line end
@example([b"x" * 12, b"yz\n", b'{"b"}\n'], 8)  # a line over the limit, then one within it
@settings(max_examples=400)
def test_a_line_per_chunk_reads_as_the_line_buffer_does(chunks: list[bytes], max_line: int) -> None:
    assert frame(bytewise(b"".join(chunks)), max_line) == frame(chunks, max_line)
