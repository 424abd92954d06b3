"""The streamed-JSON-array framer: elements out as they close, whatever the chunking."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcalls import ParseError
from streamcalls._emitter import preview
from streamcalls.framing import _jsonarray as jsonarray
from streamcalls.framing._jsonarray import JSONArrayFramer
from tests.support import bytewise, split_at


class Recorder:
    """A sink that writes into the framer's own output list, so the order of
    records, the end and ParseErrors is kept."""

    def __init__(self, out: list[Any] | None = None) -> None:
        self.items: list[Any] = [] if out is None else out

    def on_record(self, name: str | None, data: bytes) -> None:
        assert name is None
        self.items.append(("record", data))

    def on_done(self) -> None:
        self.items.append(("done", None))

    def on_framing_error(self, message: str, raw: bytes | bytearray | str = b"") -> None:
        self.items.append(ParseError(message, raw if isinstance(raw, str) else preview(raw)))


def run(chunks: list[bytes], limit: int = 1 << 20) -> list[Any]:
    """Records, "done" and ParseErrors, in the order they happened."""
    out: list[Any] = []
    framer = JSONArrayFramer(Recorder(out), limit)
    for chunk in chunks:
        framer.feed(chunk)
    framer.close()
    return out


def elements(*objects: object, separator: bytes = b"\n,\r\n") -> bytes:
    parts = [json.dumps(obj, indent=2, ensure_ascii=False).encode() for obj in objects]
    return b"[" + separator.join(parts) + b"\n]"


TRICKY = [
    {"text": 'a "quoted" ] , } { [ string'},
    {"text": "ends with a backslash \\"},
    {"text": '\\\\\\"', "n": [1, 2, {"deep": [[], {}]}]},
    {"text": "unicode \u2028 é ✓ \U0001f600", "empty": ""},
    {},
]


def test_pretty_printed_elements_come_out_whole() -> None:
    data = elements(*TRICKY)
    got = run([data])
    records = [json.loads(item[1]) for item in got if isinstance(item, tuple) and item[0] == "record"]
    assert records == TRICKY
    assert got[-1] == ("done", None)
    assert not [item for item in got if isinstance(item, ParseError)]


def test_element_bytes_are_passed_as_sent() -> None:
    data = b'[{"a": "x]"}\r\n,\r\n{"b":\r\n  [1]}\n]'
    assert run([data]) == [("record", b'{"a": "x]"}'), ("record", b'{"b":\r\n  [1]}'), ("done", None)]


def test_every_split_gives_the_same_items() -> None:
    data = elements(*TRICKY)
    whole = run([data])
    for cut in range(1, len(data)):
        assert run([data[:cut], data[cut:]]) == whole, cut
    assert run(bytewise(data)) == whole


@settings(max_examples=60, deadline=None)
@given(cuts=st.lists(st.integers(0, 400), max_size=40))
def test_random_splits(cuts: list[int]) -> None:
    data = elements(*TRICKY)
    assert run(split_at(data, cuts)) == run([data])


def test_each_element_comes_out_of_the_feed_of_its_closing_brace() -> None:
    data = b'[{"a": "}"},{"b": {"c": "\\"}"}}]'
    closing = [data.index(b"},"), len(data) - 2]
    sink = Recorder()
    framer = JSONArrayFramer(sink, 1 << 20)
    delivered_at = []
    for i, chunk in enumerate(bytewise(data)):
        framer.feed(chunk)
        if sink.items and sink.items[-1][0] == "record":
            delivered_at.append(i)
            sink.items.clear()
    assert delivered_at == closing


def test_empty_array_and_whitespace() -> None:
    assert run([b" \r\n[ \n ]\r\n "]) == [("done", None)]
    assert run([b""]) == []


def test_a_bare_object_is_one_element() -> None:
    body = b'{\n  "error": {\n    "code": 400,\n    "message": "bad [key]"\n  }\n}\n'
    assert run([body]) == [("record", body.rstrip())]


def test_garbage_between_elements_is_reported_once_per_run_and_skipped() -> None:
    data = b'[{"a": 1},\r\n  Internal Server Error \r\n, {"b": 2}, 1234 ,{"c": 3}]'
    expected = [
        ("record", b'{"a": 1}'),
        ParseError("unexpected bytes between JSON array elements; skipped", "Internal Server Error"),
        ("record", b'{"b": 2}'),
        ParseError("unexpected bytes between JSON array elements; skipped", "1234"),
        ("record", b'{"c": 3}'),
        ("done", None),
    ]
    assert run([data]) == expected
    assert run(bytewise(data)) == expected


def test_a_long_garbage_run_is_shown_cut() -> None:
    got = run([b"[" + b"x" * 5000 + b'{"a": 1}]'])
    assert got[0] == ParseError("unexpected bytes between JSON array elements; skipped", "x" * 200 + "...")
    assert got[1:] == [("record", b'{"a": 1}'), ("done", None)]


def test_elements_that_are_not_objects_are_reported() -> None:
    data = b'["a ] string", [1, {"x": "]"}], {"ok": true}]'
    assert run([data]) == [
        ParseError("JSON array element is not an object; skipped", '"a ] string"'),
        ParseError("JSON array element is not an object; skipped", '[1, {"x": "]"}]'),
        ("record", b'{"ok": true}'),
        ("done", None),
    ]


def test_an_element_over_the_limit_is_skipped_and_the_next_one_read() -> None:
    big = b'{"text": "' + b"y" * 500 + b'"}'
    data = b"[" + big + b',{"small": 1}]'
    expected = [
        ParseError("JSON array element exceeds max_line_bytes=100; skipped", big[:101].decode()),
        ("record", b'{"small": 1}'),
        ("done", None),
    ]
    assert run([data], limit=100) == expected
    assert run(bytewise(data), limit=100) == expected


def test_memory_stays_bounded_while_skipping() -> None:
    framer = JSONArrayFramer(Recorder(), 1000)
    framer.feed(b'[{"text": "')
    for _ in range(100):
        framer.feed(b"z" * 1000)
        assert len(framer._buf) <= 1000


def test_data_after_the_array_is_reported_once() -> None:
    data = b'[{"a": 1}]\r\n junk, more'
    expected = [
        ("record", b'{"a": 1}'),
        ("done", None),
        ParseError("data after the end of the JSON array; ignored", "junk, more"),
    ]
    assert run([data]) == expected
    assert run(bytewise(data)) == expected
    long = run([b"[]" + b"z" * 1000, b"z" * 1000])
    assert long == [
        ("done", None),
        ParseError("data after the end of the JSON array; ignored", "z" * 200 + "..."),
    ]


def test_a_stream_that_ends_inside_an_element() -> None:
    got = run([b'[{"a": 1},\r\n{"b": "unfini', b"shed"])
    assert got == [
        ("record", b'{"a": 1}'),
        ParseError("JSON array stream ended inside an element (truncated)", '{"b": "unfinished'),
    ]


def test_closing_brackets_outside_an_array_are_garbage() -> None:
    expected = [
        ParseError("unexpected bytes between JSON array elements; skipped", "]] ]"),
        ("record", b'{"a": 1}'),
        ParseError("unexpected bytes between JSON array elements; skipped", "]"),
    ]
    assert run([b']] ]{"a": 1}]']) == expected
    assert run(bytewise(b']] ]{"a": 1}]')) == expected


def test_a_stream_that_ends_inside_garbage() -> None:
    assert run([b"[oops"]) == [ParseError("unexpected bytes between JSON array elements; skipped", "oops")]


def test_a_backslash_at_every_chunk_boundary() -> None:
    text = '\\"' * 50 + "\\\\" * 50
    data = b'[{"t": ' + json.dumps(text).encode() + b"}]"
    expected = [("record", data[1:-1]), ("done", None)]
    for size in (1, 2, 3, 7):
        chunks = [data[i : i + size] for i in range(0, len(data), size)]
        assert run(chunks) == expected


class CountingPattern:
    """Wraps a compiled pattern and counts the bytes its matches consume."""

    def __init__(self, pattern: re.Pattern[bytes]) -> None:
        self.pattern = pattern
        self.consumed = 0

    def match(self, data: bytes, pos: int = 0) -> re.Match[bytes] | None:
        found = self.pattern.match(data, pos)
        if found is not None:
            self.consumed += found.end() - pos
        return found


@pytest.mark.parametrize("chunk_size", [1, 7, 1024])
def test_each_byte_of_a_long_string_is_scanned_once(chunk_size: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # ijson's yajl2_c backend re-lexes an unfinished string on every chunk (quadratic
    # time); this framer must consume each byte once, whatever the chunking.  Counting
    # the bytes its scanning patterns consume proves it without timing anything.
    plain = CountingPattern(jsonarray._PLAIN)
    body = CountingPattern(jsonarray._STRING_BODY)
    monkeypatch.setattr(jsonarray, "_PLAIN", plain)
    monkeypatch.setattr(jsonarray, "_STRING_BODY", body)
    data = b'[{"text": "' + b'word \\" ]}, ' * 20_000 + b'"}]'
    chunks = [data[i : i + chunk_size] for i in range(0, len(data), chunk_size)]
    assert len(run(chunks)) == 2
    assert plain.consumed + body.consumed <= len(data)
