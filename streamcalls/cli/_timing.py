"""Timing runs against each other: ``streamcalls bench`` and the benchmark package share this.

Each run function is run once to warm up (and be checked), then the runs
are timed in rounds of one sample each, in an order shuffled every round (a
fixed seed per round, so a run's order is reproducible), so that a burst of
load from other processes on a shared machine hits every run alike, and so
that no run always follows the same one: a run timed right after a heavy
one (its memory just freed, the caches full of its data) measured up to
30 % slower, and a fixed neighbour would charge that to one run every
round, where a shuffled order gives every run its share and the median
drops it.  A result is the median of a run's samples; only ratios between
runs timed in the same rounds are meant to be compared.

A run much faster than a sample should be (``Settings.sample_s``) is run
that many times back to back within one sample, and the sample's time is
divided by the runs, as timeit does.  A single run of half a millisecond
timed alone measures its neighbour as much as itself: timed right after a
run that churned through megabytes of objects, the same stream parse took
1.6 times as long as back to back, its first few hundred chunks slowed by
caches and predictors that the other run had filled with its own; a run of
20 ms carries the same cost as 1 %.  Looping spreads that once-a-sample cost
over the sample, so that a fast run and a slow one are measured alike.

Time is the CPU time of this thread (``time.thread_time``), not wall time:
on a machine shared with other work, a run that the scheduler preempts
would otherwise be charged for the other processes' time slices, and long
runs are preempted far more often than short ones, which skews exactly the
ratios between slow and fast runs a benchmark is about.  The heap built
before timing is frozen out of the garbage collector's way, and each run
starts after a collection.
"""

from __future__ import annotations

import gc
import math
import random
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

__all__ = ("Rate", "Settings", "Timing", "measure", "round_order", "timed")


@dataclass(frozen=True)
class Settings:
    """How many times to run each function."""

    min_runs: int = 3  # for runs slower than ``fast_s``
    min_runs_fast: int = 7
    max_runs: int = 21
    budget_s: float = 0.4  # time per run function the repeats aim for
    fast_s: float = 0.1
    slow_s: float = 0.5  # a first run slower than this is kept as a sample
    sample_s: float = 0.0  # a sample's least length: a faster run is repeated within it

    def loops(self, first_s: float) -> int:
        """How many runs one sample takes of a function whose first run took ``first_s``."""
        if first_s >= self.sample_s:
            return 1
        return max(1, math.ceil(self.sample_s / max(first_s, 1e-9)))

    def repeats(self, first_s: float) -> int:
        """How many samples to take of a function whose first run took ``first_s``."""
        least = self.min_runs_fast if first_s < self.fast_s else self.min_runs
        return max(least, min(self.max_runs, int(self.budget_s / max(first_s, 1e-9))))


@dataclass
class Timing:
    """One function to time, and its samples (seconds of CPU time per run)."""

    run: Callable[[], Any]
    runs: list[float] = field(default_factory=list)  # seconds per run, one entry a sample
    loops: int = 1  # runs per sample (Settings.loops)
    first_kept: bool = False  # the warm-up run was slow enough to count as a sample

    @property
    def median(self) -> float:
        return statistics.median(self.runs)


@dataclass(frozen=True)
class Rate:
    """Throughput of a run that fed ``chunks`` reads of ``size`` bytes in all in ``seconds``."""

    seconds: float
    chunks: int
    size: int

    @property
    def chunks_per_s(self) -> float:
        return self.chunks / self.seconds

    @property
    def mb_per_s(self) -> float:
        return self.size / self.seconds / 1e6

    @property
    def us_per_chunk(self) -> float:
        return self.seconds / self.chunks * 1e6


def round_order(round_no: int, count: int) -> list[int]:
    """The order ``count`` runs take in round ``round_no``: shuffled, the same for the same round."""
    return random.Random(round_no).sample(range(count), count)


def timed(run: Callable[[], Any], loops: int = 1) -> tuple[float, Any]:
    """Run ``loops`` times back to back after a garbage collection: (CPU seconds per run, what the
    last run returned)."""
    gc.collect()
    start = time.thread_time()
    out = run()
    for _ in range(loops - 1):
        out = run()
    return (time.thread_time() - start) / loops, out


@contextmanager
def _frozen_heap() -> Iterator[None]:
    # Everything built so far (the inputs, pre-built objects, every imported
    # module) lives until the end: keep it out of the collector's way, so that
    # no run pays for scanning the others' heaps and each collection is cheap.
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def measure(
    timings: Sequence[Timing], settings: Settings, check: Callable[[int, Any], None] | None = None
) -> None:
    """Take the samples of every timing, interleaved.

    ``check(i, returned)`` sees what ``timings[i].run`` returned on every run
    (it raises to stop everything: a run that computes the wrong thing has no
    meaningful time).
    """
    with _frozen_heap():
        repeats = []
        for number, timing in enumerate(timings):
            elapsed, out = timed(timing.run)  # warm-up
            if check is not None:
                check(number, out)
            if elapsed > settings.slow_s:
                timing.runs.append(elapsed)
                timing.first_kept = True
            timing.loops = settings.loops(elapsed)
            if timing.loops > 1:
                # A first run is the slowest (imports, first calls): the pace is taken again over
                # that many runs, and the loops follow it.
                elapsed, out = timed(timing.run, timing.loops)
                if check is not None:
                    check(number, out)
                timing.loops = settings.loops(elapsed)
            repeats.append(settings.repeats(elapsed * timing.loops))
        for round_no in range(max(repeats, default=0)):
            for number in round_order(round_no, len(timings)):
                timing = timings[number]
                if len(timing.runs) >= repeats[number]:
                    continue
                elapsed, out = timed(timing.run, timing.loops)
                if check is not None:
                    check(number, out)
                timing.runs.append(elapsed)
