"""The benchmark's machinery on tiny streams: generators, contenders, the equality check, the report.

No timing is asserted anywhere: only that every contender that can run
here finds exactly the generated calls, and that a wrong answer is caught.
Peers that are not installed (they are the ``bench`` extra) are skipped.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import live, report
from benchmarks.contenders import CONTENDERS, Contender, Unavailable
from benchmarks.memory import idle_parsers
from benchmarks.profile import layers
from benchmarks.runner import Mismatch, Settings, check, measure_group
from benchmarks.streams import (
    Stream,
    anthropic_stream,
    coalesce,
    ollama_stream,
    openai_fence_stream,
    openai_stream,
    text_fence_stream,
)

TINY = [
    openai_stream(1, 300),
    openai_stream(3, 200),
    anthropic_stream(2, 300),
    ollama_stream(2, 300),
    openai_fence_stream(2, 300),
    text_fence_stream(total_bytes=6000, args_bytes=300, every=2000),
    openai_stream(1, 400, live=True),
    anthropic_stream(1, 400, live=True),
]
PAIRS = [(s, c) for s in TINY for c in CONTENDERS if c.applies(s)]


@pytest.mark.parametrize(("stream", "contender"), PAIRS, ids=[f"{s.key}-{c.key}" for s, c in PAIRS])
def test_contender_finds_the_generated_calls(stream: Stream, contender: Contender) -> None:
    try:
        run = contender.prepare(stream)
    except Unavailable as exc:
        pytest.skip(str(exc))
    check(contender, stream, run())
    check(contender, stream, run())  # a second run starts from scratch


def test_streams_are_reproducible_and_consistent() -> None:
    a, b = openai_stream(2, 500, seed=3), openai_stream(2, 500, seed=3)
    assert a.reads == b.reads
    assert a.reads != openai_stream(2, 500, seed=4).reads
    assert b"".join(coalesce(a)) == a.data
    assert a.size == len(a.data)
    for stream in TINY:
        assert stream.calls
        assert len(stream.calls) == stream.n_calls


def test_arguments_size_is_about_what_was_asked() -> None:
    stream = openai_stream(1, 10_000)
    text = json.dumps(stream.calls[0].arguments, ensure_ascii=False)
    assert 9_500 <= len(text) <= 10_500


def test_check_catches_a_wrong_answer() -> None:
    stream = openai_stream(2, 300)
    streamcalls_row = CONTENDERS[0]
    right = [(c.id, c.name, c.arguments) for c in stream.calls]
    check(streamcalls_row, stream, right)
    with pytest.raises(Mismatch):
        check(streamcalls_row, stream, right[:1])
    with pytest.raises(Mismatch):
        check(streamcalls_row, stream, [(right[0][0], right[0][1], {}), right[1]])
    with pytest.raises(Mismatch):
        check(streamcalls_row, stream, None)


def test_live_streams_are_one_long_string_in_40_character_deltas() -> None:
    stream = openai_stream(1, 10_000, live=True)
    assert stream.key == "openai-live-1x10KB"
    arguments = stream.calls[0].arguments
    assert set(arguments) == {"path", "content"}
    assert len(json.dumps(arguments, ensure_ascii=False)) >= 10_000
    payloads = [json.loads(read[6:]) for read in stream.reads if read.startswith(b"data: {")]
    pieces = [
        tc["function"]["arguments"]
        for p in payloads
        for tc in (p["choices"] or [{}])[0].get("delta", {}).get("tool_calls") or ()
        if tc["function"].get("arguments")
    ]
    assert all(len(piece) == 40 for piece in pieces[:-1])
    assert json.loads("".join(pieces)) == arguments


def test_runner_and_report(tmp_path: Path) -> None:
    streams = [openai_stream(1, 300), anthropic_stream(1, 300)]
    results = measure_group(
        streams,
        CONTENDERS,
        Settings(min_runs=1, min_runs_fast=1, max_runs=1, budget_s=0.0),
        log=lambda _: None,
    )
    own = [r for r in results if r.contender == "streamcalls"]
    assert len(own) == 2
    assert all(r.ok and r.ratio == 1.0 for r in own)
    for r in results:
        assert r.ok or r.note  # a row is measured, or says why not
    memory = {"idle": [idle_parsers("openai", streams[0].reads[0], n=50)], "open_call": []}
    for text in (
        report.markdown_results(results),
        report.markdown_summary(results),
        report.markdown_scaling(results),
        live.markdown_live(results),
        report.markdown_targets(report.targets(results, memory)),
        report.markdown_memory(memory),
        report.markdown_legend(),
        report.markdown_layers({streams[0].key: layers(streams[0], rounds=1)}),
    ):
        assert text.startswith("|")
    report.write_json(tmp_path / "r.json", {"results": [r.as_dict() for r in results]})
    assert json.loads((tmp_path / "r.json").read_text())["results"]


def test_live_table_and_targets_from_results() -> None:
    from benchmarks.runner import Result

    times = {  # seconds per stream: the targets' ratios, made up
        ("streamcalls", "100KB"): 0.010,
        ("streamcalls-partial", "100KB"): 0.012,
        ("streamcalls-live", "100KB"): 0.013,
        ("jiter-partial", "100KB"): 0.13,
        ("partial-json-parser-live", "100KB"): 20.0,
        ("streamcalls", "1MB"): 0.10,
        ("streamcalls-partial", "1MB"): 0.12,
        ("streamcalls-live", "1MB"): 0.13,
        ("jiter-partial", "1MB"): 26.0,
        ("anthropic-sdk", "1MB"): 13.0,
    }
    results = []
    for wire in live.LIVE_WIRES:
        for (key, size), seconds in times.items():
            if key == "anthropic-sdk" and wire != "anthropic-live":
                continue
            r = Result(f"{wire}-1x{size}", wire, 1, 0, key, key, "", "streamcalls", 1000, 1000)
            r.runs = [seconds]
            results.append(r)
    table = live.markdown_live(results)
    assert "| openai-live-1x1MB | jiter-partial | 1 | 26,000 | 26,000 | 260× | 200× |" in table
    got = {t.name: (t.measured, t.met) for t in live.targets(results)}
    assert got["live arguments cost, openai-live-1x1MB"] == (
        "1.20× (1.30× with PartialArguments applied)",
        True,
    )
    assert got["live arguments linear, anthropic-live"] == ("10.0×", True)
    assert got["live arguments vs anthropic SDK input_json snapshot, anthropic-live-1x1MB"] == ("100×", True)
    assert got["live arguments vs partial_json_parser per delta, openai-live-1x100KB"] == ("1538×", True)
    assert got["live arguments vs jiter partial_mode per delta, openai-live"] == (
        "10.0× at 100 KB, 200× at 1 MB",
        True,
    )
