"""Invalid UTF-8: replaced by U+FFFD, or (``invalid_utf8="report"``) dropped byte by byte and reported.

The oracle is a UTF-8 reader written here from the Unicode standard's table
of well-formed byte sequences (Unicode 15, table 3-7), independent of the
codec the library uses: it says which bytes of a stream are invalid.  With
``"report"``, a stream must give exactly the events its valid bytes alone
give, plus one ParseError per run of invalid bytes naming the run's offset
in the stream, however the stream is chunked.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcalls import Event, ParseError, StreamParser, TextDelta, ToolCallCompleted
from streamcalls.framing._utf8 import Utf8Filter
from tests.support import DATA, bytewise, normalize, split_at
from tests.support import feed_content as feed_chunks
from tests.support.eventstream import frame, message
from tests.support.streams import OPENAI_DONE, openai_args, openai_call_start, openai_chunk, openai_finish

# -- the oracle --------------------------------------------------------------------------------------

# Lead byte -> the allowed range of each byte after it (table 3-7).
_TAIL = (0x80, 0xBF)
_SEQUENCES: dict[int, tuple[tuple[int, int], ...]] = {}
for _lead in range(0xC2, 0xE0):
    _SEQUENCES[_lead] = (_TAIL,)
_SEQUENCES[0xE0] = ((0xA0, 0xBF), _TAIL)
for _lead in (*range(0xE1, 0xED), 0xEE, 0xEF):
    _SEQUENCES[_lead] = (_TAIL, _TAIL)
_SEQUENCES[0xED] = ((0x80, 0x9F), _TAIL)
_SEQUENCES[0xF0] = ((0x90, 0xBF), _TAIL, _TAIL)
for _lead in (0xF1, 0xF2, 0xF3):
    _SEQUENCES[_lead] = (_TAIL, _TAIL, _TAIL)
_SEQUENCES[0xF4] = ((0x80, 0x8F), _TAIL, _TAIL)


def units(data: bytes) -> list[tuple[int, int, bool]]:
    """(offset, length, well-formed) of each character, or maximal invalid subpart, of ``data``."""
    out = []
    pos = 0
    while pos < len(data):
        lead = data[pos]
        tails = () if lead < 0x80 else _SEQUENCES.get(lead)
        if tails is None:  # 80..C1, F5..FF: never a lead byte
            out.append((pos, 1, False))
            pos += 1
            continue
        matched = 0
        for low, high in tails:
            at = pos + 1 + matched
            if at < len(data) and low <= data[at] <= high:
                matched += 1
            else:
                break
        out.append((pos, 1 + matched, matched == len(tails)))
        pos += 1 + matched
    return out


def invalid_runs(data: bytes) -> list[tuple[int, int]]:
    """(offset, length) of each run of bytes that are not part of a well-formed sequence."""
    runs: list[tuple[int, int]] = []
    for offset, length, valid in units(data):
        if valid:
            continue
        if runs and sum(runs[-1]) == offset:
            runs[-1] = (runs[-1][0], runs[-1][1] + length)
        else:
            runs.append((offset, length))
    return runs


def replaced(data: bytes) -> str:
    """The text with one U+FFFD per maximal invalid subpart (the WHATWG decoder's rule)."""
    return "".join(
        data[offset : offset + length].decode() if valid else "\ufffd"
        for offset, length, valid in units(data)
    )


def without(data: bytes, runs: list[tuple[int, int]]) -> bytes:
    kept, pos = [], 0
    for offset, length in runs:
        kept.append(data[pos:offset])
        pos = offset + length
    return b"".join(kept) + data[pos:]


def reports(events: list[Event]) -> list[tuple[int, int]]:
    """(offset, length) named by each invalid-UTF-8 report."""
    out = []
    for event in events:
        if isinstance(event, ParseError) and event.message.startswith("invalid UTF-8"):
            words = event.message.split()
            out.append((int(words[5]), int(words[6].lstrip("("))))
    return out


def others(events: list[Event]) -> list[Event]:
    return [e for e in events if not (isinstance(e, ParseError) and e.message.startswith("invalid UTF-8"))]


def test_the_oracle_agrees_with_known_sequences() -> None:
    assert invalid_runs("é€😀".encode()) == []
    assert invalid_runs(b"a\xffb") == [(1, 1)]
    assert invalid_runs(b"\xe2\x82\xe2\x82\xac") == [(0, 2)]
    assert invalid_runs(b"\xed\xa0\x80") == [(0, 3)]  # a surrogate: ED takes 80..9F only
    assert invalid_runs(b"\xc0\xaf\xf0\x9f\x98") == [(0, 5)]
    assert replaced(b"a\xe2\x82\xe2\x82\xacb\xc0\xaf") == "a\ufffd€b\ufffd\ufffd"


# -- the rule, on every framing ----------------------------------------------------------------------


def _sse_text(text: bytes) -> bytes:
    return b"data: " + openai_chunk({"content": "@"})[6:].replace(b"@", text, 1)


def _junk() -> st.SearchStrategy[bytes]:
    pieces = st.sampled_from(
        [b"\xff", b"\xfe\xfe", b"\x80", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98", b"\xed\xa0\x80"]
    )
    return st.lists(pieces, min_size=1, max_size=3).map(b"".join)


@st.composite
def texts_with_junk(draw: st.DrawFn) -> bytes:
    words = draw(st.lists(st.sampled_from(["plain", "café", "€5", "😀", " ", "\\n", "tab\\t"]), max_size=8))
    pieces = [word.encode() for word in words]
    for _ in range(draw(st.integers(1, 4))):
        pieces.insert(draw(st.integers(0, len(pieces))), draw(_junk()))
    return b"".join(pieces)


@st.composite
def streams(draw: st.DrawFn) -> tuple[str, bytes]:
    """A stream of some framing, with invalid bytes inside its strings and between its records."""
    kind = draw(st.sampled_from(["openai", "ollama", "gemini", "text"]))
    texts = draw(st.lists(texts_with_junk(), min_size=1, max_size=3))
    if kind == "openai":
        body = b"".join(_sse_text(t) for t in texts) + openai_finish("stop") + OPENAI_DONE
        body = body.replace(b"\n\ndata", b"\n\n: ping \xff\n\ndata", 1)
    elif kind == "ollama":
        line = b'{"model":"m","message":{"role":"assistant","content":"@"},"done":false}\n'
        body = b"".join(line.replace(b"@", t) for t in texts)
        body += (
            b'{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}\n'
        )
    elif kind == "gemini":
        element = b'{"candidates": [{"content": {"parts": [{"text": "@"}], "role": "model"}, "index": 0}]}'
        body = b"[" + b",\r\n\x80".join(element.replace(b"@", t) for t in texts) + b"]"
    else:
        body = b"\n".join(texts)
    if draw(st.booleans()):
        body = b"\xef\xbb\xbf" + body
    return kind, body


@settings(max_examples=300, deadline=None)
@given(case=streams(), data=st.data())
def test_report_drops_only_the_invalid_bytes_and_names_their_offsets(
    case: tuple[str, bytes], data: st.DataObject
) -> None:
    provider, stream = case
    runs = invalid_runs(stream)
    cuts = data.draw(st.lists(st.integers(0, len(stream)), max_size=12))
    name = data.draw(st.sampled_from([provider, "auto"]))
    got = feed_chunks(split_at(stream, cuts), name, invalid_utf8="report")
    # The reports name exactly the oracle's runs, offsets counted from the stream's first byte ...
    assert reports(got) == runs
    # ... and everything else is what the valid bytes alone give.
    clean = without(stream, runs)
    assert invalid_runs(clean) == []
    assert normalize(others(got)) == normalize(feed_chunks([clean], name))
    # Chunking moves nothing: not the reports among the other events, not the text around them.
    assert normalize(got) == normalize(feed_chunks([stream], name, invalid_utf8="report"))


@settings(max_examples=100, deadline=None)
@given(text=st.lists(texts_with_junk(), min_size=1, max_size=3).map(b"\n".join), data=st.data())
def test_replace_puts_a_replacement_character_per_invalid_sequence(text: bytes, data: st.DataObject) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=12))
    got = feed_chunks(split_at(text, cuts), "text", detect=())
    assert reports(got) == []
    assert "".join(e.text for e in got if isinstance(e, TextDelta)) == replaced(text)


def test_an_event_keeps_its_valid_text() -> None:
    payload = b'{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"a\xffb"}}]}'
    stream = b"data: " + payload + b"\n\n" + OPENAI_DONE
    events = feed_chunks([stream], "openai", invalid_utf8="report")
    offset = stream.index(b"\xff")
    assert events[0] == ParseError(f"invalid UTF-8 at stream byte {offset} (1 byte); dropped", "ff")
    assert events[1] == TextDelta("ab")


def test_replace_is_the_default() -> None:
    payload = b'{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"a\xff\xfeb"}}]}'
    events = feed_chunks([b"data: " + payload + b"\n\n" + OPENAI_DONE], "openai")
    assert events[0] == TextDelta("a\ufffd\ufffdb")


@pytest.mark.parametrize("split", range(14))
def test_text_runs_reported_at_their_stream_offsets(split: int) -> None:
    data = "é".encode() + b"a\xffb\xe2\x82c" + "€".encode() + b"\xff\xe2\x82"  # ends inside a character
    events = feed_chunks([data[:split], data[split:]], "text", invalid_utf8="report", detect=())
    assert normalize(events)[:-1] == [
        TextDelta("éa"),
        ParseError("invalid UTF-8 at stream byte 3 (1 byte); dropped", "ff"),
        TextDelta("b"),
        ParseError("invalid UTF-8 at stream byte 5 (2 bytes); dropped", "e2 82"),
        TextDelta("c€"),
        ParseError("invalid UTF-8 at stream byte 11 (3 bytes); dropped", "ff e2 82"),
    ]
    replaced = feed_chunks([data[:split], data[split:]], "text", detect=())
    assert "".join(e.text for e in replaced if isinstance(e, TextDelta)) == "éa\ufffdb\ufffdc€\ufffd\ufffd"


def test_a_call_loses_only_the_invalid_bytes_of_its_arguments() -> None:
    stream = openai_call_start(0, "c1", "f") + openai_args(0, '{"q": "cr@me"}').replace(b"@", b"\xe8")
    stream += openai_finish() + OPENAI_DONE
    events = feed_chunks(bytewise(stream), "openai", invalid_utf8="report")
    assert reports(events) == [(stream.index(b"\xe8"), 1)]
    calls = [e.call for e in events if isinstance(e, ToolCallCompleted)]
    assert [c.arguments for c in calls] == [{"q": "crme"}]


def test_a_bom_counts_in_the_offsets() -> None:
    stream = b"\xef\xbb\xbf" + _sse_text(b"x\xffy") + OPENAI_DONE
    for chunks in ([stream], bytewise(stream)):
        events = feed_chunks(chunks, "auto", invalid_utf8="report")
        assert reports(events) == [(stream.index(b"\xff"), 1)]


def test_a_long_run_is_one_report_in_linear_time() -> None:
    stream = b"before " + b"\xff" * 1_000_000 + b" after"
    events = feed_chunks([stream], "text", invalid_utf8="report", detect=())
    assert normalize(events)[:3] == [
        TextDelta("before "),
        ParseError("invalid UTF-8 at stream byte 7 (1000000 bytes); dropped", " ".join(["ff"] * 16) + " ..."),
        TextDelta(" after"),
    ]
    events = feed_chunks(bytewise(b"\xfe" * 20_000 + b"!"), "text", invalid_utf8="report", detect=())
    assert reports(events) == [(0, 20_000)]


# -- binary event streams --------------------------------------------------------------------------


def _bedrock(text: bytes) -> bytes:
    head = [(":event-type", 7, "contentBlockDelta"), (":content-type", 7, "application/json")]
    head.append((":message-type", 7, "event"))
    delta = json.dumps({"contentBlockIndex": 0, "delta": {"text": "@"}}).encode().replace(b"@", text)
    start = frame({"event": "messageStart", "payload": {"role": "assistant"}})
    stop = frame({"event": "messageStop", "payload": {"stopReason": "end_turn"}})
    return start + message(head, delta) + stop


@pytest.mark.parametrize("provider", ["bedrock", "auto"])
def test_event_stream_payloads_lose_only_their_invalid_bytes(provider: str) -> None:
    stream = _bedrock(b"caf\xe9 \xc3\xa9t\xe9")
    for chunks in ([stream], bytewise(stream)):
        events = feed_chunks(chunks, provider, invalid_utf8="report")
        assert reports(events) == [(stream.index(b"f\xe9") + 1, 1), (stream.rindex(b"t\xe9") + 1, 1)]
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "caf ét"


def test_event_stream_framing_bytes_are_not_text() -> None:
    # Preludes and CRCs are full of bytes that are not UTF-8: with "report",
    # a clean binary stream still gives exactly its events, and no report.
    for path in sorted((DATA / "bedrock").glob("*.bin")):
        stream = path.read_bytes()
        expected = normalize(feed_chunks([stream], "bedrock"))
        for provider in ("bedrock", "auto"):
            assert normalize(feed_chunks(bytewise(stream), provider, invalid_utf8="report")) == expected, path


def test_filter_holds_a_possible_prelude_only_while_it_could_be_one() -> None:
    utf8 = Utf8Filter(binary_gate=True)
    assert utf8.split(b"\0\0\0") == []  # could open an event stream
    assert utf8.split(b"\xff") == []  # still could: 12 bytes decide
    assert utf8.flush() == [b"\0\0\0", ParseError("invalid UTF-8 at stream byte 3 (1 byte); dropped", "ff")]
    utf8 = Utf8Filter(binary_gate=True)
    assert utf8.split(b"a\xff") == [b"a"]  # text from its first byte
    assert not utf8.binary


def test_the_parser_only_checks_when_asked() -> None:
    parser = StreamParser("openai")
    assert parser._utf8 is None  # the default path pays nothing
    assert StreamParser("bedrock", invalid_utf8="report")._utf8 is None  # checked per payload instead
