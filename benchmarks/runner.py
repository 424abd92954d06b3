"""Checking and timing the contenders, interleaved, on one stream at a time.

For each stream every applicable contender is prepared, run once to check
its calls against the generator's ground truth (a mismatch stops the whole
benchmark), then timed: rounds of one run per contender, in an order that
rotates each round, so that a burst of load from the other processes on a
shared machine hits every contender alike.  Each result is the median of
its runs.  Only ratios between results of the same stream, measured in the
same rounds, are meant to be compared.

Time is the CPU time of the benchmark's thread (``time.thread_time``), not
wall time: on a machine shared with other work, a run that the scheduler
preempts would otherwise be charged for the other processes' time slices,
and long runs are preempted far more often than short ones, which skews
exactly the ratios between slow and fast contenders this benchmark is about.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .contenders import CallTuple, Contender, Run, Unavailable
from .streams import Stream, coalesce

__all__ = ("Mismatch", "Result", "Settings", "check", "contender_reads", "measure_group")


class Mismatch(AssertionError):
    """A contender's calls differ from the ground truth: its timings would mean nothing."""


@dataclass(frozen=True)
class Settings:
    min_runs: int = 3  # for contenders slower than ``fast_s`` per run
    min_runs_fast: int = 7
    max_runs: int = 21
    budget_s: float = 0.4  # time per contender per stream the repeats aim for
    fast_s: float = 0.1
    slow_s: float = 0.5  # a first run slower than this is kept as a timed sample


@dataclass
class Result:
    stream: str
    wire: str
    n_calls: int
    args_bytes: int
    contender: str
    label: str
    timed: str
    baseline: str
    n_reads: int
    n_bytes: int
    runs: list[float] = field(default_factory=list)
    note: str = ""  # why it was skipped, or what to know about it
    ratio: float | None = None  # median time / the baseline's median time, same stream

    @property
    def ok(self) -> bool:
        return bool(self.runs)

    @property
    def median(self) -> float:
        return statistics.median(self.runs)

    @property
    def chunks_per_s(self) -> float:
        return self.n_reads / self.median

    @property
    def mb_per_s(self) -> float:
        return self.n_bytes / self.median / 1e6

    @property
    def us_per_chunk(self) -> float:
        return self.median / self.n_reads * 1e6

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "stream": self.stream,
            "wire": self.wire,
            "n_calls": self.n_calls,
            "args_bytes": self.args_bytes,
            "contender": self.contender,
            "label": self.label,
            "timed": self.timed,
            "baseline": self.baseline,
            "reads": self.n_reads,
            "bytes": self.n_bytes,
            "runs_s": self.runs,
            "note": self.note,
        }
        if self.ok:
            out.update(
                median_s=self.median,
                chunks_per_s=self.chunks_per_s,
                mb_per_s=self.mb_per_s,
                us_per_chunk=self.us_per_chunk,
                ratio_to_baseline=self.ratio,
            )
        return out


def _canonical(calls: Sequence[CallTuple]) -> list[tuple[str, str, Any]]:
    return [(str(i), str(n), a) for i, n, a in calls]


def check(contender: Contender, stream: Stream, got: list[CallTuple] | None) -> None:
    """Raise :class:`Mismatch` unless ``got`` is the stream's calls (id, name, decoded arguments)."""
    if not contender.checked:
        return
    truth = [(c.id, c.name, c.arguments) for c in stream.calls]
    if got is None or _canonical(got) != truth:
        shown = [(i, n, sorted(a) if isinstance(a, dict) else a) for i, n, a in (got or [])][:3]
        raise Mismatch(
            f"{contender.key} on {stream.key}: expected {len(truth)} calls "
            f"{[(i, n) for i, n, _ in truth][:3]}..., got {len(got or [])}: {shown!r:.600}"
        )


def _timed(run: Run) -> tuple[float, list[CallTuple] | None]:
    gc.collect()
    start = time.thread_time()
    out = run()
    return time.thread_time() - start, out


def measure_group(
    streams: Sequence[Stream],
    contenders: Sequence[Contender],
    settings: Settings,
    log: Callable[[str], None] = print,
) -> list[Result]:
    """Check, then time, every contender that applies to each stream of a group.

    The streams of a group (say one provider at 1, 10 and 100 KB of
    arguments) are timed in the same rounds, so that the scaling ratios
    between them are measured under the same load, like the ratios between
    contenders are.
    """
    results: list[Result] = []
    prepared: list[tuple[Result, Contender, Stream, Run]] = []
    for stream in streams:
        for contender in contenders:
            if contender.applies(stream):
                result = _result(contender, stream)
                results.append(result)
                run = _prepare(contender, stream, result, log)
                if run is not None:
                    prepared.append((result, contender, stream, run))
    # Everything built so far (the streams, the SDKs' pre-built chunk objects,
    # every imported module) lives until the end: keep it out of the garbage
    # collector's way, so that no contender's runs pay for scanning the
    # others' heaps, and the collection before each run is cheap.
    gc.collect()
    gc.freeze()
    try:
        jobs = []
        for result, contender, stream, run in prepared:
            elapsed, got = _timed(run)  # warm-up, and the correctness check
            check(contender, stream, got)
            if elapsed > settings.slow_s:
                result.runs.append(elapsed)
                result.note = "first run kept as a sample (slow)"
            least = settings.min_runs_fast if elapsed < settings.fast_s else settings.min_runs
            repeats = max(least, min(settings.max_runs, int(settings.budget_s / max(elapsed, 1e-9))))
            jobs.append((result, contender, stream, run, repeats))
        for round_no in range(max((job[4] for job in jobs), default=0)):
            shift = round_no % len(jobs)
            for result, contender, stream, run, repeats in jobs[shift:] + jobs[:shift]:
                if len(result.runs) >= repeats:
                    continue
                elapsed, got = _timed(run)
                check(contender, stream, got)
                result.runs.append(elapsed)
    finally:
        gc.unfreeze()
    for stream in streams:
        by_key = {r.contender: r for r in results if r.stream == stream.key}
        for result in by_key.values():
            base = by_key.get(result.baseline)
            if result.ok and base is not None and base.ok:
                result.ratio = result.median / base.median
    return results


def _result(contender: Contender, stream: Stream) -> Result:
    return Result(
        stream.key,
        stream.wire,
        stream.n_calls,
        stream.args_bytes,
        contender.key,
        contender.label,
        contender.timed,
        contender.baseline,
        len(contender_reads(contender, stream)),
        stream.size,
    )


def _prepare(contender: Contender, stream: Stream, result: Result, log: Callable[[str], None]) -> Run | None:
    """Build the contender's run, or say in ``result`` why it does not run."""
    total_args = stream.n_calls * stream.args_bytes
    if contender.max_args_bytes is not None and total_args > contender.max_args_bytes:
        result.note = f"not run: quadratic, too slow above {contender.max_args_bytes // 1000} KB of arguments"
        return None
    try:
        return contender.prepare(stream)
    except Unavailable as exc:
        result.note = f"skipped: {exc}"
        log(f"  note: {contender.key} skipped on {stream.key}: {exc}")
        return None


def contender_reads(contender: Contender, stream: Stream) -> tuple[bytes, ...]:
    return coalesce(stream) if contender.coalesced else stream.reads
