"""Hostile input: mutated recorded streams never crash the parser or break the protocol.

The harness is tests/support/fuzzing.py (shared with the atheris runner, fuzz/run.py).
Here hypothesis mutates every recorded stream -- flipped, inserted, deleted and
repeated bytes, truncation, splices of two streams -- under random providers,
detectors, limits and chunk sizes (and writer targets), and every input that
ever found a bug is replayed from tests/fuzz_regressions/, its events written
as every registered writer target's stream.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamcalls import StreamFinished, TextDelta, ToolCall, ToolCallCompleted, ToolCallStarted, write_stream
from streamcalls.writing import TARGETS
from tests.support.fuzzing import HEADER, fixed_ids_and_clock, fuzz_one, seeds

SEEDS = seeds()
REGRESSIONS = sorted((Path(__file__).parent.parent / "fuzz_regressions").glob("*"))
EXAMPLES = int(os.environ.get("STREAMCALLS_FUZZ_EXAMPLES", "400"))


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(0, 6))):
        where = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["flip", "insert", "delete", "repeat", "truncate", "splice"]))
        if kind == "flip" and where < len(data):
            data[where] = draw(st.integers(0, 255))
        elif kind == "insert":
            data[where:where] = draw(st.binary(min_size=1, max_size=16))
        elif kind == "delete":
            del data[where : where + draw(st.integers(1, 64))]
        elif kind == "repeat":
            data[where:where] = data[where : where + draw(st.integers(1, 256))] * draw(st.integers(1, 4))
        elif kind == "truncate":
            del data[max(HEADER, where) :]
        else:
            other = draw(st.sampled_from(SEEDS))
            data[where:] = other[draw(st.integers(HEADER, len(other))) :]
    header = draw(st.binary(min_size=HEADER, max_size=HEADER))
    return header + bytes(data[HEADER:]) if draw(st.booleans()) else bytes(data)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=mutated())
def test_mutated_streams(data: bytes) -> None:
    fuzz_one(data)


@settings(max_examples=EXAMPLES // 2, deadline=None)
@given(data=st.binary(max_size=2000))
def test_random_bytes(data: bytes) -> None:
    fuzz_one(data)


@pytest.mark.parametrize("path", REGRESSIONS, ids=[p.name for p in REGRESSIONS])
def test_regression_inputs(path: Path) -> None:
    data = path.read_bytes()
    for writer in TARGETS:  # (the hash that picks one draws from the targets registered)
        fuzz_one(data, writer=writer)


def test_every_seed_passes() -> None:
    for seed in SEEDS:
        fuzz_one(seed)


@pytest.mark.parametrize("target", list(TARGETS))
def test_what_a_writer_makes_up_is_fixed_for_the_harness(target: str) -> None:
    """The same events give the same bytes under the harness (ids and times made up the same way): the
    gate's inputs depend on its seed alone."""
    events = [
        TextDelta("hi"),
        *[ToolCallStarted(index, "", "f") for index in (0, 1)],
        *[ToolCallCompleted(ToolCall("", "f", {}, index)) for index in (0, 1)],
        StreamFinished("tool_calls"),
    ]
    with fixed_ids_and_clock():
        once = write_stream(events, target)  # type: ignore[arg-type]
    with fixed_ids_and_clock():
        again = write_stream(events, target)  # type: ignore[arg-type]
    assert once == again
