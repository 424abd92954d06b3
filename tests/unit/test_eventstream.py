"""The AWS event-stream framer, against messages built by the test-side encoder."""

from __future__ import annotations

import struct
import zlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcalls import Limits, ParseError, StreamParser
from streamcalls._detect import sniff_framing
from streamcalls._emitter import preview
from streamcalls.framing._eventstream import EventStreamFramer, HeaderError, read_headers, valid_prelude
from tests.support import bytewise, split_at
from tests.support.eventstream import BEDROCK, build, frame, header, message, sources


class Recorder:
    def __init__(self, out: list[Any]) -> None:
        self.out = out

    def on_record(self, name: str | None, data: bytes) -> None:
        self.out.append((name, data))

    def on_done(self) -> None:  # pragma: no cover - event streams have no sentinel
        raise AssertionError("no on_done in an event stream")

    def on_framing_error(self, message: str, raw: bytes | bytearray | str = b"") -> None:
        self.out.append(ParseError(message, raw if isinstance(raw, str) else preview(raw)))


def run(chunks: list[bytes], limit: int = 1 << 20) -> list[Any]:
    out: list[Any] = []
    framer = EventStreamFramer(Recorder(out), limit)
    for chunk in chunks:
        framer.feed(chunk)
    framer.close()
    return out


def event(name: str, payload: bytes = b"{}") -> bytes:
    return message([(":event-type", 7, name), (":message-type", 7, "event")], payload)


A = event("contentBlockDelta", b'{"delta":{"text":"a"}}')
B = event("messageStop", b'{"stopReason":"end_turn"}')


def test_events_exceptions_and_errors() -> None:
    data = (
        A
        + frame({"exception": "throttlingException", "payload": {"message": "slow down"}})
        + frame({"error": "InternalFailure", "message": "boom"})
    )
    assert run([data]) == [
        ("contentBlockDelta", b'{"delta":{"text":"a"}}'),
        ("throttlingException", b'{"message":"slow down"}'),
        (":error", b'{"code":"InternalFailure","message":"boom"}'),
    ]


def test_every_split_and_one_byte_at_a_time() -> None:
    data = A + B + A
    whole = run([data])
    assert len(whole) == 3
    for cut in range(1, len(data)):
        assert run([data[:cut], data[cut:]]) == whole
    assert run(bytewise(data)) == whole


@settings(max_examples=50, deadline=None)
@given(cuts=st.lists(st.integers(0, 300), max_size=30))
def test_random_splits(cuts: list[int]) -> None:
    data = A + B + A + B
    assert run(split_at(data, cuts)) == run([data])


def test_a_record_comes_out_of_the_feed_of_the_message_last_byte() -> None:
    out: list[Any] = []
    framer = EventStreamFramer(Recorder(out), 1 << 20)
    data = A + B
    for i, byte in enumerate(bytewise(data)):
        framer.feed(byte)
        assert len(out) == (i >= len(A) - 1) + (i >= len(data) - 1)


def test_every_header_type() -> None:
    headers = [
        ("t", 0, True),
        ("f", 1, False),
        ("b", 2, -128),
        ("s", 3, -32768),
        ("i", 4, 2**31 - 1),
        ("l", 5, -(2**63)),
        ("raw", 6, b"\x00\xff"),
        ("str", 7, "héllo"),
        ("ts", 8, 1767225600123),
        ("id", 9, "12345678-1234-5678-1234-567812345678"),
    ]
    block = b"".join(header(*h) for h in headers)
    assert read_headers(block) == {
        "t": True,
        "f": False,
        "b": -128,
        "s": -32768,
        "i": 2**31 - 1,
        "l": -(2**63),
        "raw": b"\x00\xff",
        "str": "héllo",
        "ts": 1767225600123,
        "id": bytes.fromhex("12345678123456781234567812345678"),
    }
    # Extra headers of every type do not disturb the event they ride on.
    data = message([(":event-type", 7, "x"), (":message-type", 7, "event"), *headers], b"{}")
    assert run([data]) == [("x", b"{}")]


@pytest.mark.parametrize(
    ("block", "problem"),
    [
        (b"\x01a\x0c", "unknown value type 12"),
        (b"\x01a", "has no value type"),
        (b"\x01a\x07\x00\x09abc", "cut off"),
        (b"\x01a\x04\x00\x01", "cut off"),
        (b"\x01a\x07\x00", "cut off"),
    ],
)
def test_unreadable_headers(block: bytes, problem: str) -> None:
    with pytest.raises(HeaderError, match=problem):
        read_headers(block)


def raw_message(head: bytes, payload: bytes) -> bytes:
    """A message with a hand-made header block and correct CRCs."""
    prelude = struct.pack(">II", 16 + len(head) + len(payload), len(head))
    body = prelude + struct.pack(">I", zlib.crc32(prelude)) + head + payload
    return body + struct.pack(">I", zlib.crc32(body))


def test_a_message_with_unreadable_headers_is_skipped() -> None:
    bad = raw_message(b"\x01a\x0c", b"{}")
    assert run([A + bad + B]) == [
        ("contentBlockDelta", b'{"delta":{"text":"a"}}'),
        ParseError(
            f"event stream message at byte {len(A)}: headers cannot be read: "
            "header 'a' has unknown value type 12; skipped"
        ),
        ("messageStop", b'{"stopReason":"end_turn"}'),
    ]


def test_a_bad_message_crc_skips_that_message_only() -> None:
    corrupt = message([(":event-type", 7, "x"), (":message-type", 7, "event")], b"{}", corrupt="message-crc")
    expected = [
        ("contentBlockDelta", b'{"delta":{"text":"a"}}'),
        ParseError(f"event stream message at byte {len(A)}: message CRC does not match; skipped"),
        ("messageStop", b'{"stopReason":"end_turn"}'),
    ]
    assert run([A + corrupt + B]) == expected
    assert run(bytewise(A + corrupt + B)) == expected


def test_a_bad_prelude_crc_loses_the_rest_of_the_stream() -> None:
    corrupt = message([(":event-type", 7, "x"), (":message-type", 7, "event")], b"{}", corrupt="prelude-crc")
    expected = [
        ("contentBlockDelta", b'{"delta":{"text":"a"}}'),
        ParseError(
            f"event stream message at byte {len(A)}: prelude CRC does not match; "
            "the rest of the stream is ignored"
        ),
    ]
    assert run([A + corrupt + B + A]) == expected
    assert run(bytewise(A + corrupt + B + A)) == expected


@pytest.mark.parametrize(("total", "headers"), [(15, 0), (20, 5), (16, 1)])
def test_impossible_lengths_lose_the_stream(total: int, headers: int) -> None:
    prelude = struct.pack(">II", total, headers)
    data = prelude + struct.pack(">I", zlib.crc32(prelude)) + b"\x00" * 40
    got = run([data + B])
    assert got == [
        ParseError(
            f"event stream message at byte 0: prelude lengths are impossible (total {total}, "
            f"headers {headers}); the rest of the stream is ignored"
        )
    ]


def test_a_message_over_the_limit_stops_framing_before_buffering_it() -> None:
    big = event("contentBlockDelta", b'{"t":"' + b"x" * 5000 + b'"}')
    out: list[Any] = []
    framer = EventStreamFramer(Recorder(out), 1000)
    framer.feed(A + big[:100])
    framer.feed(big[100:] + B)
    framer.close()
    assert out == [
        ("contentBlockDelta", b'{"delta":{"text":"a"}}'),
        ParseError(
            f"event stream message at byte {len(A)}: message of {len(big)} bytes exceeds "
            "max_event_bytes=1000; the rest of the stream is ignored"
        ),
    ]
    assert not framer._buf


def test_a_stream_that_ends_inside_a_message() -> None:
    assert run([A + B[:20]]) == [
        ("contentBlockDelta", b'{"delta":{"text":"a"}}'),
        ParseError(
            f"event stream ended inside a message at byte {len(A)} (20 bytes of it arrived; truncated)"
        ),
    ]


@pytest.mark.parametrize(
    ("headers", "problem"),
    [
        ([(":message-type", 7, "event")], "event message has no :event-type header"),
        ([(":message-type", 7, "telemetry")], "unknown :message-type 'telemetry'"),
        ([(":event-type", 7, "x")], "unknown :message-type None"),
    ],
)
def test_messages_that_are_not_understood_are_skipped(
    headers: list[tuple[str, int, Any]], problem: str
) -> None:
    assert run([message(headers, b"{}") + B]) == [
        ParseError(f"event stream message at byte 0: {problem}; skipped"),
        ("messageStop", b'{"stopReason":"end_turn"}'),
    ]


def test_prelude_check_and_auto_detection() -> None:
    assert valid_prelude(A)
    assert not valid_prelude(A[:11])
    assert not valid_prelude(b"\x00" * 12)
    assert sniff_framing(A[:11]) is None  # a 0x00 first byte waits for the whole prelude
    assert sniff_framing(A[:12]) == "eventstream"
    assert sniff_framing(b"\x00" * 12) == "text"


def test_fixtures_are_built_from_their_sources() -> None:
    assert len(sources()) >= 12
    for source in sources():
        target = BEDROCK / source.name.replace(".frames.jsonl", ".bin")
        assert target.read_bytes() == build(source), (
            f"run python -m tests.support.eventstream ({target.name})"
        )


def test_parser_reports_framing_errors_through_limits() -> None:
    big = event("contentBlockDelta", b'{"delta":{"text":"' + b"x" * 3000 + b'"}}')
    parser = StreamParser("bedrock", limits=Limits(max_event_bytes=2048))
    events = parser.feed(big) + parser.close()
    assert [type(e).__name__ for e in events] == ["ParseError", "ParseError", "StreamFinished"]
    assert "exceeds max_event_bytes=2048" in events[0].message  # type: ignore[union-attr]
