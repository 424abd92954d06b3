"""The open-weight text format rows of ``make bench`` on tiny streams: every contender finds the
generated calls, typed exactly as generated; the tables and targets render.  No timing is asserted."""

from __future__ import annotations

import pytest

from benchmarks import textformats
from benchmarks.contenders import Contender
from benchmarks.runner import Settings, check, measure_group
from benchmarks.streams import Stream
from streamcalls.detectors import DETECTORS
from tests.support.fuzzing import DETECTORS as FUZZED

CALLS = [textformats.format_stream(fmt, 6000, args_bytes=500) for fmt in textformats.FORMATS]
PROSE = [textformats.prose_stream(6000, read) for read in textformats.PROSE_READS]
TINY = CALLS + PROSE
PAIRS = [(s, c) for s in TINY for c in textformats.FORMAT_CONTENDERS if c.applies(s)]


@pytest.mark.parametrize(("stream", "contender"), PAIRS, ids=[f"{s.key}-{c.key}" for s, c in PAIRS])
def test_contender_finds_the_generated_typed_calls(stream: Stream, contender: Contender) -> None:
    run = contender.prepare(stream)
    check(contender, stream, run())
    check(contender, stream, run())


def test_streams_hold_calls_and_prose_holds_none() -> None:
    assert [stream.wire for stream in CALLS] == [f"text-{fmt}" for fmt in textformats.FORMATS]
    for stream in CALLS:
        assert stream.n_calls >= 2
        assert stream.size >= 6000
    assert all(stream.n_calls == 0 for stream in PROSE)


def test_the_table_and_targets_render() -> None:
    results = measure_group(
        TINY, textformats.FORMAT_CONTENDERS, Settings(min_runs=1, max_runs=1, budget_s=0.0)
    )
    table = textformats.markdown_formats(results)
    assert "| text-qwen3_coder-6KB | streamcalls, the format's detector |" in table
    assert textformats.targets(results) == []  # the targets name the 100 KB, 1 MB streams only


def test_every_registered_detector_is_benched_or_said_not_to_be() -> None:
    # The formats are read from the registry, as the fuzz harness's detectors are: a new format
    # is benched unless NOT_BENCHED names it (and render() refuses a format it cannot write).
    assert set(textformats.NOT_BENCHED) <= set(DETECTORS)
    assert set(textformats.FORMATS) | set(textformats.NOT_BENCHED) == set(DETECTORS) == set(FUZZED)
    with pytest.raises(ValueError, match="no renderer"):
        textformats.render("not_a_format", "f", {})
