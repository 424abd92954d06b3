"""ijson's rows, the load run's parser clock, the profile's parts and the open-calls memory row,
on tiny inputs.  No timing is asserted: what each measures, and that it measures that."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable

import pytest

import streamcalls
from benchmarks import ijson_rows, profile
from benchmarks.contenders import Contender, Unavailable
from benchmarks.load import parser_clock
from benchmarks.memory import _reads_into_call, open_calls
from benchmarks.runner import Settings, check, measure_group
from benchmarks.streams import Stream, anthropic_stream, openai_stream
from streamcalls._calls import CallAssembler

TINY = [
    ijson_rows.openai_ijson_stream(3_000),
    ijson_rows.gemini_array_stream(1, 3_000),
    ijson_rows.gemini_array_stream(3, 800, seed=2),
]
PAIRS = [(s, c) for s in TINY for c in ijson_rows.CONTENDERS if c.applies(s)]


@pytest.mark.parametrize(("stream", "contender"), PAIRS, ids=[f"{s.key}-{c.key}" for s, c in PAIRS])
def test_every_row_finds_the_generated_calls(stream: Stream, contender: Contender) -> None:
    try:
        run = contender.prepare(stream)
    except Unavailable as exc:
        pytest.skip(str(exc))
    check(contender, stream, run())
    check(contender, stream, run())


def test_the_gemini_stream_is_a_pretty_printed_array_in_1_to_4_kb_reads() -> None:
    stream = ijson_rows.gemini_array_stream(2, 5_000)
    body = json.loads(stream.data)
    assert isinstance(body, list)
    assert len(body) == 3
    parts = body[1]["candidates"][0]["content"]["parts"]
    assert [(p["functionCall"]["name"], p["functionCall"]["args"]) for p in parts] == [
        (c.name, c.arguments) for c in stream.calls
    ]
    assert b'\n  "candidates"' in stream.data
    assert all(1024 <= len(r) <= 4096 for r in stream.reads[:-1])
    assert (stream.provider, stream.framing) == ("gemini", "json-array")


def test_both_ijson_backends_are_rows_and_the_table_names_the_picked_one() -> None:
    pytest.importorskip("ijson")
    results = measure_group(TINY, ijson_rows.CONTENDERS, Settings(min_runs=1, max_runs=1, budget_s=0.0))
    assert {r.contender for r in results if r.ok} == {"streamcalls", "floor", "ijson", "ijson-python"}
    table = ijson_rows.markdown_ijson(results)
    assert f"ijson ({ijson_rows.backend_name()}) items_coro" in table
    assert "| gemini-array-3x800B |" in table
    assert table.count("\n| ijson-openai-1x3KB |") == 1


def test_the_picked_backend_follows_ijson_backend() -> None:
    pytest.importorskip("ijson")
    program = "from benchmarks import ijson_rows; print(ijson_rows.backend_name())"
    env = {**os.environ, "IJSON_BACKEND": "python"}
    out = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "python"


def test_the_parser_clock_counts_every_feed_and_close_and_puts_the_methods_back() -> None:
    feed, close = streamcalls.StreamParser.feed, streamcalls.StreamParser.close
    stream = openai_stream(1, 500)
    with parser_clock() as clock:
        events = list(streamcalls.parse(list(stream.reads), "openai"))
        parser = streamcalls.StreamParser("openai")
        parser.feed(stream.reads[0])
    assert clock["calls"] == len(stream.reads) + 1 + 1  # parse()'s feeds and close, and one more feed
    assert clock["seconds"] > 0
    assert streamcalls.StreamParser.feed is feed
    assert streamcalls.StreamParser.close is close
    assert any(isinstance(e, streamcalls.ToolCallCompleted) for e in events)


def test_the_profile_finds_each_part_by_the_parser_objects() -> None:
    stream = openai_stream(2, 2_000)
    parser = streamcalls.StreamParser("openai")
    parser.feed(stream.reads[0])
    roles = profile.parts_of(stream)
    assert roles[type(parser._adapter)] == profile.ADAPTER
    assert roles[type(parser._framer)] == profile.FRAMING
    assert roles[type(parser._emit)] == profile.EMITTER
    assert roles[CallAssembler] == profile.CALLS
    assert profile.SCANNER in roles.values()
    shares, _ = profile.profile_by_part(stream, runs=1)
    assert sum(shares.values()) == pytest.approx(1.0)
    assert shares[profile.ADAPTER] > 0
    assert shares[profile.FRAMING] > 0


def test_the_view_structs_row_decodes_with_the_adapters_decoder(monkeypatch: pytest.MonkeyPatch) -> None:
    decoded: list[bytes] = []
    adapter = streamcalls.StreamParser("anthropic")._adapter
    assert adapter is not None
    decode = profile._view_decode(adapter)
    assert decode is not None
    view = type(decode(b'{"type": "ping"}'))
    assert view is type(adapter).view
    real = profile._view_decode

    def spy(target: object) -> object:
        inner = real(target)
        assert inner is not None

        def counted(data: bytes) -> object:
            decoded.append(data)
            return inner(data)

        return counted

    monkeypatch.setattr(profile, "_view_decode", spy)
    stream = anthropic_stream(1, 300)
    profile.layers(stream, rounds=1)
    assert len(decoded) == len(stream.reads)


@pytest.mark.parametrize("make", [openai_stream, anthropic_stream])
def test_open_calls_hold_a_started_call_each(make: Callable[[int, int], Stream]) -> None:
    stream = make(1, 1_000)
    reads = _reads_into_call(stream, 5)
    events = streamcalls.StreamParser(stream.provider).feed(b"".join(reads))
    calls = [e for e in events if isinstance(e, (streamcalls.ToolCallStarted, streamcalls.ToolCallCompleted))]
    assert [type(e) for e in calls] == [streamcalls.ToolCallStarted]  # one call, open
    deltas = [e for e in events if isinstance(e, streamcalls.ToolCallDelta)]
    assert len(deltas) == 5 - (stream.wire == "anthropic")  # Anthropic's first fragment is ""
    row = open_calls(stream, n=20, fragments=5)
    assert (row["parsers"], row["fragments"], row["provider"]) == (20, 5, stream.provider)
    assert row["budget_mb"] == pytest.approx(30.0 * 20 / 10_000)
    assert row["bytes"] > 0
