"""The LiteLLM translation rows on tiny streams: each finds the generated calls in what it translated, and
the table and the targets are made from its results (no timing is asserted).  Skipped without litellm (the
``bench`` extra)."""

from __future__ import annotations

import pytest

from benchmarks import translation, writing
from benchmarks.contenders import Contender, Unavailable, contender
from benchmarks.runner import Settings, check, measure_group
from benchmarks.streams import Stream, anthropic_stream, openai_stream

# LiteLLM's own code reads pydantic fields the deprecated way.
pytestmark = pytest.mark.filterwarnings("ignore:Accessing the 'model_:DeprecationWarning")

TINY = [openai_stream(2, 300), anthropic_stream(2, 300), openai_stream(1, 400, live=True)]
ROWS = [(stream, row) for stream in TINY for row in translation.CONTENDERS if row.applies(stream)]


def prepared(row: Contender, stream: Stream) -> object:
    try:
        return row.prepare(stream)
    except Unavailable as exc:
        pytest.skip(f"{row.key}: {exc}")


@pytest.mark.parametrize(("stream", "row"), ROWS, ids=[f"{s.key}-{r.key}" for s, r in ROWS])
def test_each_row_finds_the_calls(stream: Stream, row: Contender) -> None:
    run = prepared(row, stream)
    check(row, stream, run())  # type: ignore[operator]


def test_each_row_is_compared_with_streamcalls_writing_the_other_provider() -> None:
    assert [(row.wires, row.baseline) for row in translation.CONTENDERS] == [
        (frozenset({"anthropic", "anthropic-live"}), "streamcalls-write-openai"),
        (frozenset({"openai", "openai-live"}), "streamcalls-write-anthropic"),
    ]


def test_the_table_and_the_targets() -> None:
    streams = [openai_stream(1, 400, live=True), anthropic_stream(1, 400, live=True)]
    prepared(translation.CONTENDERS[0], streams[1])
    results = measure_group(
        streams,
        [contender("streamcalls"), *writing.CONTENDERS, *translation.CONTENDERS],
        Settings(min_runs=1, min_runs_fast=1, max_runs=1, budget_s=0.0),
        lambda _: None,
    )
    table = translation.markdown_translation(results)
    for stream in streams:
        assert f"| {stream.key} | LiteLLM" in table
    assert "×" in table
    assert translation.targets(results) == []  # the target streams are the big ones
