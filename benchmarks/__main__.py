"""``python -m benchmarks``: run everything, print the tables, write JSON and the chart.

``python -m benchmarks --quick`` is a smaller, faster pass (1 and 10 KB
arguments, short budgets) for checking changes; ``python -m benchmarks
--profile openai-4x2KB`` prints where streamcalls spends its time on one
stream instead of benchmarking; ``python -m benchmarks --formats`` runs only
the open-weight text formats' rows (streams of calls in each format, prose
under the default and every detector).  Every run ends with the regression
guard (:mod:`benchmarks.guard`): each row against the committed
``results/latest.json``; ``python -m benchmarks --guard FILE`` prints that
block for a results file written before.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import guard, ijson_rows, live, paths, report, textformats, translation, turns, writing
from .contenders import CONTENDERS
from .endurance import endurance
from .load import load
from .memory import measure_memory
from .profile import layers
from .runner import SAMPLE_S, Result, Settings, measure_group
from .streams import (
    Stream,
    anthropic_stream,
    ollama_stream,
    openai_fence_stream,
    openai_stream,
    text_fence_stream,
)
from .validation import markdown_validation, measure_validation, validation_targets

RESULTS = Path(__file__).parent / "results"
COMMAND = "make bench  (or: python -m benchmarks)"

Group = tuple[str, Callable[[], list[Stream]], Settings]

_NORMAL = Settings(sample_s=SAMPLE_S)
_LONG = Settings(budget_s=1.2, max_runs=31, sample_s=SAMPLE_S)  # the streams the targets name: more runs
# The live-arguments streams: streamcalls' rows get several runs, the quadratic peers
# (seconds to a minute per run at 1 MB) one.
_LIVE = Settings(min_runs=1, min_runs_fast=7, max_runs=15, budget_s=2.0, sample_s=SAMPLE_S)


def groups(quick: bool) -> list[Group]:
    sizes = (1000, 10_000) if quick else (1000, 10_000, 100_000)
    normal = Settings(min_runs=2, min_runs_fast=3, max_runs=5, budget_s=0.2) if quick else _NORMAL
    long = normal if quick else _LONG
    return [
        ("OpenAI Chat, 4 parallel calls × 2 KB", lambda: [openai_stream(4, 2000)], long),
        ("Anthropic, 4 calls × 2 KB", lambda: [anthropic_stream(4, 2000)], long),
        ("OpenAI Chat, 1 call", lambda: [openai_stream(1, s) for s in sizes], normal),
        ("OpenAI Chat, 8 parallel calls × 1 KB", lambda: [openai_stream(8, 1000)], normal),
        ("Anthropic, 1 call", lambda: [anthropic_stream(1, s) for s in sizes], normal),
        ("Ollama", lambda: [ollama_stream(1, s) for s in sizes] + [ollama_stream(8, 10_000)], normal),
        (
            "OpenAI Chat, a fenced call in the text",
            lambda: [openai_fence_stream(1, s) for s in sizes],
            normal,
        ),
        (
            "Plain text with fences, 4-byte reads",
            lambda: [text_fence_stream(total_bytes=(64 << 10) if quick else (1 << 20))],
            normal,
        ),
        (
            "Live arguments: one call, a long string in 40-character deltas",
            lambda: [
                make(1, size, live=True)
                for make in (openai_stream, anthropic_stream)
                for size in ((10_000,) if quick else (10_000, 100_000, 1_000_000))
            ],
            normal if quick else _LIVE,
        ),
        *textformats.groups(quick),
    ]


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run(quick: bool, out_dir: Path, chart: bool) -> int:
    started = time.perf_counter()
    results: list[Result] = []
    for title, make, settings in groups(quick):
        group_start = time.perf_counter()
        streams = make()
        _log(f"{title}: {', '.join(s.key for s in streams)}")
        results += measure_group(
            streams,
            CONTENDERS
            + textformats.FORMAT_CONTENDERS
            + turns.CONTENDERS
            + writing.CONTENDERS
            + translation.CONTENDERS,
            settings,
            _log,
        )
        _log(f"  {time.perf_counter() - group_start:.1f} s")
        del streams
    for title, make, settings in ijson_rows.groups(quick):
        group_start = time.perf_counter()
        streams = make()
        _log(f"{title}: {', '.join(s.key for s in streams)}")
        results += measure_group(streams, ijson_rows.CONTENDERS, settings, _log)
        _log(f"  {time.perf_counter() - group_start:.1f} s")
        del streams
    _log("memory (tracemalloc)")
    memory = measure_memory(n_parsers=1000 if quick else 10_000)
    _log("layers (where streamcalls' time goes)")
    breakdown = {
        s.key: layers(s, rounds=5 if quick else 11)
        for s in (openai_stream(4, 2000), anthropic_stream(4, 2000))
    }
    _log("endurance: one text stream through one parser")
    long_run = endurance(total=(64 if quick else 1024) << 20)
    _log("load: concurrent streams through the async layer, real sockets")
    loaded = load(streams=1000 if quick else 10_000)
    _log("turns: encode_turn of one call, 10 KB to 1 MB")
    encoding = turns.measure_encoding(
        turns.ENCODE_SIZES[:2] if quick else turns.ENCODE_SIZES, runs=5 if quick else 15
    )
    _log("tool arguments: Tool.from_function's check against pydantic's")
    validation = measure_validation(rounds=5 if quick else 15)
    elapsed = time.perf_counter() - started

    checks = (
        report.targets(results, memory)
        + validation_targets(validation)
        + live.targets(results)
        + paths.targets(results)
        + textformats.targets(results)
        + turns.targets(results, encoding)
        + writing.targets(results)
        + translation.targets(results)
    )
    sections = [
        ("Targets", report.markdown_targets(checks)),
        ("Headline (paste into the README)", report.markdown_summary(results)),
        ("The native path and the pure-Python path", paths.markdown_paths(results)),
        ("Scaling from 10 KB to 100 KB arguments", report.markdown_scaling(results)),
        ("Live arguments: a partial value after every delta", live.markdown_live(results)),
        ("Open-weight text formats, and prose under every detector", textformats.markdown_formats(results)),
        ("Turns: accumulating one, and writing it back", turns.markdown_turns(results, encoding)),
        ("Measured and left out: ijson, on the same bytes", ijson_rows.markdown_ijson(results)),
        (
            "Writing a stream back out: as a chat UI's stream or a provider's",
            writing.markdown_writing(results),
        ),
        (
            "Translating a stream between Anthropic and OpenAI Chat: LiteLLM's, on the same bytes",
            translation.markdown_translation(results),
        ),
        ("Where streamcalls' time goes (µs per chunk, by layer)", report.markdown_layers(breakdown)),
        ("Memory", report.markdown_memory(memory)),
        ("Endurance and load", _endurance_and_load(long_run, loaded)),
        ("Tool arguments: the check before the call, and the schema", markdown_validation(validation)),
        ("All results", report.markdown_results(results)),
        ("What each contender's timed loop includes", report.markdown_legend()),
    ]
    env = report.environment(COMMAND)
    print(
        f"streamcalls benchmark: `{COMMAND}`{' --quick' if quick else ''}, {elapsed:.0f} s, "
        f"Python {env['python']}, {env['cpus']} CPUs, streamcalls {env['versions']['streamcalls']}"
    )
    print(
        "A chunk is one network read: one SSE event or NDJSON line per read, unless a row says 1-4 KB reads.\n"
        "Times are CPU time of the benchmark thread, medians of runs interleaved with the other contenders\n"
        "on the same streams (see 'runs'); compare the ratios, which are measured in this one run."
    )
    for heading, body in sections:
        print(f"\n### {heading}\n\n{body}")

    payload: dict[str, Any] = {
        "environment": env,
        "quick": quick,
        "elapsed_s": elapsed,
        "targets": [t.__dict__ for t in checks],
        "results": [r.as_dict() for r in results],
        "scaling": report.scaling(results),
        "memory": memory,
        "layers_us_per_chunk": breakdown,
        "endurance": long_run,
        "load": loaded,
        "validation": validation,
        "turn_encoding": encoding,
    }
    name = "quick" if quick else "latest"
    committed, against = guard.committed_results(RESULTS / "latest.json")  # before it is overwritten
    verdicts = guard.compare(payload, committed)
    payload["guard"] = {
        "threshold": guard.THRESHOLD,
        "against": against,
        "rows": {v.row: v.now.__dict__ for v in verdicts if v.now is not None},
        "flagged": [v.row for v in verdicts if v.flagged],
    }
    report.write_json(out_dir / f"{name}.json", payload)
    written = [str(out_dir / f"{name}.json")]
    if chart and report.write_chart(out_dir / f"{'quick-' if quick else ''}chart.png", results):
        written.append(str(out_dir / f"{'quick-' if quick else ''}chart.png"))
    print(f"\nwrote {', '.join(written)}")
    print(f"\n### Regression guard\n\n{guard.markdown_guard(verdicts, against, quick=quick)}")
    return 0


def guard_only(path: Path) -> int:
    """``--guard FILE``: the guard's block for a results file written before."""
    committed, against = guard.committed_results(RESULTS / "latest.json")
    now = json.loads(path.read_text())
    print(guard.markdown_guard(guard.compare(now, committed), against, quick=bool(now.get("quick"))))
    return 0


def _endurance_and_load(long_run: dict[str, Any], loaded: dict[str, Any]) -> str:
    return "\n".join(
        [
            "| run | result |",
            "|---|---|",
            f"| {long_run['bytes'] / (1 << 20):.0f} MiB of text in 64 KiB reads, default detectors "
            f"| {long_run['mb_per_s']:.0f} MB/s, {long_run['calls']} of {long_run['calls_expected']} fenced calls, "
            f"resident memory {long_run['rss_before_mb']:.0f} MB before, {long_run['rss_after_mb']:.0f} MB after |",
            f"| {loaded['streams']} streams, {loaded['concurrent']} at once, one event loop, real sockets "
            f"| {loaded['exact']} exact, {loaded['streams_per_s']:.0f} streams/s, "
            f"peak resident memory {loaded['peak_rss_mb']:.0f} MiB; the parser (its feed and close "
            f"calls, timed inside the run) took {loaded['parser_share']:.0%} of the process's CPU time "
            f"({loaded['parser_s']:.1f} of {loaded['cpu_s']:.1f} s; client, replay server, httpx and the "
            "event loop share the process) |",
        ]
    )


def formats_only(quick: bool) -> int:
    """``--formats``: the open-weight text formats' groups alone, their table and targets."""
    results = []
    for title, make, settings in textformats.groups(quick):
        streams = make()
        _log(f"{title}: {', '.join(s.key for s in streams)}")
        results += measure_group(streams, textformats.FORMAT_CONTENDERS, settings, _log)
    print(textformats.markdown_formats(results))
    print()
    print(report.markdown_targets(textformats.targets(results)))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="small sizes and short budgets, for a fast check"
    )
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the JSON and the chart")
    parser.add_argument("--no-chart", action="store_true", help="skip the PNG chart")
    parser.add_argument(
        "--profile", metavar="STREAM", help="profile streamcalls on one stream, e.g. openai-4x2KB"
    )
    parser.add_argument(
        "--formats", action="store_true", help="only the open-weight text formats' rows (a few minutes)"
    )
    parser.add_argument(
        "--guard",
        type=Path,
        metavar="FILE",
        help="only compare a results file written before with the committed latest.json",
    )
    args = parser.parse_args(argv)
    if args.guard:
        return guard_only(args.guard)
    if args.profile:
        from .profile import profile

        return profile(args.profile)
    if args.formats:
        return formats_only(args.quick)
    return run(args.quick, args.out, not args.no_chart)


if __name__ == "__main__":
    sys.exit(main())
