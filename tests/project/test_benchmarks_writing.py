"""The writer's bench rows on tiny streams: the contender finds the generated calls, and the report and the
targets are made from its results (no timing is asserted)."""

from __future__ import annotations

import pytest

from benchmarks import writing
from benchmarks.contenders import Contender, Unavailable, contender
from benchmarks.runner import Settings, check, measure_group
from benchmarks.streams import Stream, anthropic_stream, openai_stream

TINY = [openai_stream(2, 300), anthropic_stream(1, 300), openai_stream(1, 400, live=True)]


ROWS = [(stream, row) for stream in TINY for row in writing.CONTENDERS]


@pytest.mark.parametrize(("stream", "row"), ROWS, ids=[f"{s.key}-{r.key}" for s, r in ROWS])
def test_each_writing_row_finds_the_calls(stream: Stream, row: Contender) -> None:
    assert row.applies(stream)
    try:
        run = row.prepare(stream)
    except Unavailable:
        pytest.skip(f"{row.key}: its target is not registered")
    check(row, stream, run())
    check(row, stream, run())


def test_a_row_per_target() -> None:
    assert [row.key for row in writing.CONTENDERS] == [f"streamcalls-write-{t}" for t in writing.WRITTEN]
    assert writing.WRITTEN[0] == "ai-sdk"


def test_the_table_and_the_targets() -> None:
    streams = [openai_stream(1, 400, live=True)]
    results = measure_group(
        streams,
        [contender("streamcalls"), *writing.CONTENDERS],
        Settings(min_runs=1, min_runs_fast=1, max_runs=1, budget_s=0.0),
        lambda _: None,
    )
    table = writing.markdown_writing(results)
    assert f"| {streams[0].key} |" in table
    assert writing.targets(results) == []  # the target streams are the big ones
