"""Checking and timing the contenders, interleaved, on one stream at a time.

For each stream every applicable contender is prepared, run once to check
its calls against the generator's ground truth (a mismatch stops the whole
benchmark), then timed by :func:`streamcalls.cli._timing.measure` -- the timing
code ``streamcalls bench`` uses too: CPU time of this thread, rounds of one
run per contender in an order shuffled each round, the median of each
contender's runs.  Only ratios between results of the same stream, measured
in the same rounds, are meant to be compared.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from streamcalls.cli._timing import Rate, Settings, Timing, measure

from .contenders import CallTuple, Contender, Run, Unavailable
from .streams import Stream, coalesce

__all__ = ("SAMPLE_S", "Mismatch", "Result", "Settings", "check", "contender_reads", "measure_group")

# A sample's least length in a full run: a faster run is repeated back to back within one sample
# (see streamcalls.cli._timing), so that the once-a-sample cost of following another run is
# spread over 10 ms and not charged whole to a run of half a millisecond.
SAMPLE_S = 0.01


class Mismatch(AssertionError):
    """A contender's calls differ from the ground truth: its timings would mean nothing."""


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
    def rate(self) -> Rate:
        return Rate(self.median, self.n_reads, self.n_bytes)

    @property
    def chunks_per_s(self) -> float:
        return self.rate.chunks_per_s

    @property
    def mb_per_s(self) -> float:
        return self.rate.mb_per_s

    @property
    def us_per_chunk(self) -> float:
        return self.rate.us_per_chunk

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
    timings = [Timing(run, result.runs) for result, _, _, run in prepared]

    def check_run(number: int, got: Any) -> None:
        _, contender, stream, _ = prepared[number]
        check(contender, stream, got)

    measure(timings, settings, check_run)
    for (result, _, _, _), timing in zip(prepared, timings, strict=True):
        if timing.first_kept:
            result.note = "first run kept as a sample (slow)"
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
