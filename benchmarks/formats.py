"""Open-weight text formats: prose with every detector on, and text streams full of calls.

``python -m benchmarks --formats`` runs only this part.

- Prose: 1 MB of markdown (code blocks, tildes, brackets, ``<tags>``) with no
  call, in 64 KiB reads, through ``StreamParser("text")`` with the default
  detectors and with every registered one; the target is that every detector
  costs at most 1.3× the defaults.
- Calls: for each format in :data:`FORMATS`, a text stream of 100 KB and one
  of 1 MB that is nothing but calls in that format (with a sentence between
  them), in 256-byte reads, with that format's detector on.  Every call must
  be found; the 1 MB stream must cost at most 11× the 100 KB one (linear).

Both are timed by :func:`streamcalls._timing.measure` (CPU time of the thread,
interleaved rounds, medians): only the ratios within one run mean anything.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable
from typing import Any

import streamcalls
from streamcalls._timing import Rate, Settings, Timing, measure
from streamcalls.detectors import DEFAULT_DETECT, DETECTORS

from .report import Target
from .streams import text_fence_stream

__all__ = ("FORMATS", "calls_text", "format_targets", "markdown_formats", "measure_formats")

PROSE_READ = 64 << 10
CALLS_READ = 256
SIZES = (100_000, 1_000_000)
_SETTINGS = Settings(min_runs=3, min_runs_fast=5, max_runs=9, budget_s=0.6)
_QUICK = Settings(min_runs=2, min_runs_fast=3, max_runs=3, budget_s=0.1)


def _arguments(rng: random.Random) -> dict[str, Any]:
    words = " ".join(rng.choice(("stream", "parser", "token", "call", "tool", "value")) for _ in range(12))
    return {
        "city": rng.choice(("Paris", "Oslo", "Tōkyō", "São Paulo")),
        "days": rng.randint(1, 14),
        "note": f'{words} "quoted" \\ {rng.random():.6f}',
        "tags": [rng.choice("abc") * 3 for _ in range(3)],
        "options": {"metric": rng.random() < 0.5, "limit": None},
    }


def _harmony(rng: random.Random, number: int) -> str:
    arguments = json.dumps(_arguments(rng))
    return (
        f"<|start|>assistant<|channel|>analysis<|message|>Call {number}: the user wants the weather.<|end|>"
        f"<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
        f"{arguments}<|call|>"
    )


def _kimi(rng: random.Random, number: int) -> str:
    arguments = json.dumps(_arguments(rng))
    return (
        f"Checking {number}.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:{number}"
        f"<|tool_call_argument_begin|>{arguments}<|tool_call_end|><|tool_calls_section_end|>\n"
    )


def _pythonic(rng: random.Random, number: int) -> str:
    arguments = ", ".join(f"{key}={value!r}" for key, value in _arguments(rng).items())
    return f"[get_weather({arguments})]\nCall {number} sent.\n"


FORMATS: dict[str, Callable[[random.Random, int], str]] = {
    "harmony": _harmony,
    "kimi": _kimi,
    "pythonic": _pythonic,
}
"""Each format's detector name, and a writer of one call in it (with a little text)."""


def calls_text(fmt: str, total_bytes: int, seed: int = 1) -> tuple[bytes, int]:
    """A text of about ``total_bytes`` that is calls in ``fmt``, and how many calls it holds."""
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    while size < total_bytes:
        part = FORMATS[fmt](rng, len(parts))
        parts.append(part)
        size += len(part.encode())
    return "".join(parts).encode(), len(parts)


def _reads(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def _run(reads: list[bytes], detect: tuple[str, ...]) -> Callable[[], int]:
    limits = streamcalls.Limits(max_calls=1_000_000)

    def run() -> int:
        numbers = itertools.count()
        parser = streamcalls.StreamParser(
            "text", detect=detect, limits=limits, id_factory=lambda: f"call_{next(numbers)}"
        )
        completed = 0
        for read in reads:
            for event in parser.feed(read):
                if type(event) is streamcalls.ToolCallCompleted:
                    completed += 1
        for event in parser.close():
            if type(event) is streamcalls.ToolCallCompleted:
                completed += 1
        return completed

    return run


def measure_formats(quick: bool = False) -> dict[str, Any]:
    settings = _QUICK if quick else _SETTINGS
    every = tuple(DETECTORS)
    prose = text_fence_stream(total_bytes=(256 << 10) if quick else (1 << 20), every=1 << 40).data
    prose_reads = _reads(prose, PROSE_READ)
    prose_timings = [Timing(_run(prose_reads, DEFAULT_DETECT)), Timing(_run(prose_reads, every))]

    def no_calls(number: int, found: int) -> None:
        if found:
            raise AssertionError(f"prose made {found} calls")

    measure(prose_timings, settings, no_calls)
    default, everyone = (Rate(t.median, len(prose_reads), len(prose)) for t in prose_timings)
    out: dict[str, Any] = {
        "prose": {
            "bytes": len(prose),
            "read": PROSE_READ,
            "default_mb_per_s": default.mb_per_s,
            "every_mb_per_s": everyone.mb_per_s,
            "detectors": list(every),
            "ratio": everyone.seconds / default.seconds,
        },
        "calls": [],
    }
    sizes = (10_000, 100_000) if quick else SIZES
    for fmt in FORMATS:
        texts = [calls_text(fmt, size) for size in sizes]
        reads = [_reads(data, CALLS_READ) for data, _ in texts]
        timings = [Timing(_run(r, (fmt,))) for r in reads]

        def all_found(number: int, found: int, texts: list[tuple[bytes, int]] = texts) -> None:
            if found != texts[number][1]:
                raise AssertionError(f"found {found} of {texts[number][1]} calls")

        measure(timings, settings, all_found)
        rows: list[dict[str, Any]] = [
            {
                "format": fmt,
                "bytes": len(data),
                "calls": count,
                "mb_per_s": Rate(timing.median, len(r), len(data)).mb_per_s,
                "seconds": timing.median,
            }
            for (data, count), r, timing in zip(texts, reads, timings, strict=True)
        ]
        first, last = rows[0], rows[-1]
        last["growth"] = float(last["seconds"]) / float(first["seconds"])
        last["size_growth"] = float(last["bytes"]) / float(first["bytes"])
        out["calls"] += rows
    return out


def markdown_formats(result: dict[str, Any]) -> str:
    prose = result["prose"]
    lines = [
        "| stream | detectors | MB/s | |",
        "|---|---|--:|---|",
        f"| {prose['bytes'] / 1e6:.1f} MB of prose, {prose['read'] >> 10} KiB reads | default (fence, json) "
        f"| {prose['default_mb_per_s']:.0f} | |",
        f"| the same | every one ({len(prose['detectors'])}) | {prose['every_mb_per_s']:.0f} "
        f"| {prose['ratio']:.2f}× the defaults' time |",
    ]
    for row in result["calls"]:
        growth = ""
        if "growth" in row:
            growth = f"{row['growth']:.1f}× the time for {row['size_growth']:.1f}× the text"
        lines.append(
            f"| {row['bytes'] / 1000:,.0f} KB of {row['format']} calls ({row['calls']:,}), {CALLS_READ} B reads "
            f"| {row['format']} | {row['mb_per_s']:.1f} | {growth} |"
        )
    return "\n".join(lines)


def format_targets(result: dict[str, Any]) -> list[Target]:
    prose = result["prose"]
    out = [
        Target(
            "1 MB of prose, every detector on, against the defaults",
            "≤ 1.30×",
            f"{prose['ratio']:.2f}×",
            prose["ratio"] <= 1.3,
        )
    ]
    for row in result["calls"]:
        if "growth" in row:
            allowed = 1.1 * row["size_growth"]
            out.append(
                Target(
                    f"{row['format']} calls: linear in the text",
                    f"≤ {allowed:.1f}× for {row['size_growth']:.1f}× the text",
                    f"{row['growth']:.1f}×",
                    row["growth"] <= allowed,
                )
            )
    return out
