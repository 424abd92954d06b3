"""Tables, targets, JSON and the chart, from the runner's results."""

from __future__ import annotations

import json
import os
import platform
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from .contenders import CONTENDERS
from .runner import Result

__all__ = (
    "Target",
    "environment",
    "markdown_layers",
    "markdown_legend",
    "markdown_memory",
    "markdown_results",
    "markdown_scaling",
    "markdown_summary",
    "markdown_targets",
    "targets",
    "write_chart",
    "write_json",
)

_PEERS = ("openai", "anthropic", "langchain-core", "partial-json-parser", "jiter", "msgspec", "matplotlib")

# Families whose 10 KB -> 100 KB scaling is reported: (stream at 10 KB, stream at 100 KB).
SCALING = (
    ("OpenAI, 1 call", "openai-1x10KB", "openai-1x100KB"),
    ("Anthropic, 1 call", "anthropic-1x10KB", "anthropic-1x100KB"),
    ("Ollama, 1 call", "ollama-1x10KB", "ollama-1x100KB"),
    ("OpenAI, fenced call in text", "openai-fence-1x10KB", "openai-fence-1x100KB"),
)


def _find(results: Sequence[Result], stream: str, contender: str) -> Result | None:
    for r in results:
        if r.stream == stream and r.contender == contender:
            return r
    return None


def _num(x: float) -> str:
    if x >= 100_000:
        return f"{x / 1000:,.0f}k"
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def _ratio(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.0f}×" if x >= 20 else f"{x:.2f}×" if x < 2 else f"{x:.1f}×"


# -- the full table ------------------------------------------------------------------------------


def markdown_results(results: Sequence[Result]) -> str:
    lines = [
        "| stream | contender | runs | chunks/s | MB/s | µs/chunk | time ÷ streamcalls |",
        "|---|---|--:|--:|--:|--:|--:|",
    ]
    for r in results:
        if r.ok:
            base = "" if r.baseline in ("streamcalls", r.contender) else f" (÷ {r.baseline})"
            lines.append(
                f"| {r.stream} | {r.label} | {len(r.runs)} | {_num(r.chunks_per_s)} | {_num(r.mb_per_s)} "
                f"| {_num(r.us_per_chunk)} | {_ratio(r.ratio)}{base} |"
            )
        else:
            lines.append(f"| {r.stream} | {r.label} | - | - | - | - | {r.note} |")
    return "\n".join(lines)


def markdown_legend() -> str:
    lines = ["| contender | what its timed loop includes |", "|---|---|"]
    lines += [f"| {c.label} | {c.timed} |" for c in CONTENDERS]
    return "\n".join(lines)


# -- scaling ---------------------------------------------------------------------------------------


def scaling(results: Sequence[Result]) -> list[dict[str, Any]]:
    out = []
    for family, small, large in SCALING:
        for contender in CONTENDERS:
            a, b = _find(results, small, contender.key), _find(results, large, contender.key)
            if a is None or b is None:
                continue
            row: dict[str, Any] = {"family": family, "contender": contender.key, "label": contender.label}
            if a.ok and b.ok:
                row["ratio_100k_to_10k"] = b.median / a.median
                row["reads_ratio"] = b.n_reads / a.n_reads
            else:
                row["note"] = b.note or a.note
            out.append(row)
    return out


def markdown_scaling(results: Sequence[Result]) -> str:
    lines = [
        "| stream family | contender | time at 100 KB ÷ time at 10 KB args |",
        "|---|---|--:|",
    ]
    for row in scaling(results):
        value = f"{row['ratio_100k_to_10k']:.1f}×" if "ratio_100k_to_10k" in row else row["note"]
        lines.append(f"| {row['family']} | {row['label']} | {value} |")
    lines.append("")
    lines.append("(Linear is ~10×: the 100 KB streams have 9.8× the reads of the 10 KB ones.)")
    return "\n".join(lines)


# -- targets ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    name: str
    goal: str
    measured: str
    met: bool | None  # None: could not be measured here


def _time_ratio(results: Sequence[Result], stream: str, contender: str) -> float | None:
    r = _find(results, stream, contender)
    return r.ratio if r is not None and r.ok else None


def _speedup_target(results: Sequence[Result], name: str, stream: str, peer: str, goal: float) -> Target:
    acc = _time_ratio(results, stream, peer)
    e2e = _time_ratio(results, stream, peer + "-e2e")
    measured = f"{_ratio(acc)} (accumulator alone), {_ratio(e2e)} (bytes in, end to end)"
    met = None if acc is None else acc >= goal
    return Target(name, f"≥ {goal:.0f}× the chunks/s", measured, met)


def targets(results: Sequence[Result], memory: dict[str, Any] | None) -> list[Target]:
    out = [
        _speedup_target(
            results, "vs openai SDK accumulator, OpenAI 4 calls × 2 KB", "openai-4x2KB", "openai-sdk", 30
        ),
        _speedup_target(
            results,
            "vs anthropic accumulator, Anthropic 4 calls × 2 KB",
            "anthropic-4x2KB",
            "anthropic-sdk",
            10,
        ),
        _speedup_target(
            results,
            "vs anthropic accumulator, Anthropic 100 KB args",
            "anthropic-1x100KB",
            "anthropic-sdk",
            100,
        ),
    ]
    for stream in ("openai-4x2KB", "anthropic-4x2KB"):
        floor = _time_ratio(results, stream, "floor")
        coalesced = _time_ratio(results, stream, "floor-1-4k")
        if floor is not None:
            slowdown = 1 / floor
            shown = f"{slowdown:.2f}× the floor's time per event read"
            if coalesced is not None:
                shown += f"; {1 / coalesced:.2f}× with 1-4 KB reads"
            out.append(Target(f"within 2× of the msgspec floor, {stream}", "≤ 2.00×", shown, slowdown <= 2))
    for row in scaling(results):
        if row["contender"] != "streamcalls":
            continue
        if "ratio_100k_to_10k" in row:
            value = row["ratio_100k_to_10k"]
            out.append(Target(f"linear, {row['family']}", "100 KB ≤ 11× 10 KB", f"{value:.1f}×", value <= 11))
        else:
            out.append(Target(f"linear, {row['family']}", "100 KB ≤ 11× 10 KB", row["note"], None))
    text_on = _find(results, "text-1MB-4B-reads", "streamcalls")
    text_off = _find(results, "text-1MB-4B-reads", "streamcalls-off")
    if text_on is not None and text_off is not None:
        if text_on.ok and text_off.ok:
            value = text_on.median / text_off.median
            out.append(
                Target("text detectors, 1 MB in 4-byte reads", "on ≤ 2× off", f"{value:.2f}×", value <= 2)
            )
        else:
            out.append(Target("text detectors, 1 MB in 4-byte reads", "on ≤ 2× off", text_on.note, None))
    if memory is not None:
        for idle in memory["idle"]:
            out.append(
                Target(
                    f"memory: {idle['parsers']:,} idle {idle['provider']} parsers",
                    "≤ 50 MB",
                    f"{idle['mb']:.1f} MB ({idle['bytes_per_parser']:,.0f} B each)",
                    idle["mb"] <= 50,
                )
            )
        for row in memory.get("open_calls", ()):
            out.append(
                Target(
                    f"memory: {row['parsers']:,} {row['provider']} parsers each holding an open call",
                    f"≤ {row['budget_mb']:g} MB",
                    f"{row['mb']:.1f} MB ({row['bytes_per_parser']:,.0f} B each)",
                    row["mb"] <= row["budget_mb"],
                )
            )
        calls = memory["open_call"]
        for small, large in zip(calls[::2], calls[1::2], strict=True):
            value = large["bytes"] / small["bytes"]
            out.append(
                Target(
                    f"memory: state of an open call, {large['stream']} vs {small['stream']}",
                    "O(open call size): ≤ 11×",
                    f"{value:.1f}× ({large['bytes'] / 1e6:.2f} MB held at 100 KB, "
                    f"{large['bytes_per_argument_byte']:.1f} B per argument byte)",
                    value <= 11,
                )
            )
    return out


def markdown_targets(items: Sequence[Target]) -> str:
    lines = ["| target | goal | measured | met |", "|---|---|---|:-:|"]
    for t in items:
        mark = "n/a" if t.met is None else "yes" if t.met else "**no**"
        lines.append(f"| {t.name} | {t.goal} | {t.measured} | {mark} |")
    return "\n".join(lines)


# -- the short table for the README ------------------------------------------------------------------

_SUMMARY_STREAMS = ("openai-4x2KB", "openai-1x100KB", "anthropic-4x2KB", "anthropic-1x100KB")
_SUMMARY_PEERS = (
    "floor",
    "openai-sdk",
    "openai-sdk-e2e",
    "anthropic-sdk",
    "anthropic-sdk-e2e",
    "langchain",
    "partial-json-parser",
    "jiter-partial",
)


def markdown_summary(results: Sequence[Result]) -> str:
    """Per headline stream: streamcalls' own numbers, then each peer's time as a multiple of it."""
    lines = [
        "| stream | streamcalls µs/chunk | chunks/s | MB/s | peer | peer µs/chunk "
        "| peer time ÷ streamcalls |",
        "|---|--:|--:|--:|---|--:|--:|",
    ]
    for stream in _SUMMARY_STREAMS:
        own = _find(results, stream, "streamcalls")
        if own is None or not own.ok:
            continue
        head = f"| {stream} | {_num(own.us_per_chunk)} | {_num(own.chunks_per_s)} | {_num(own.mb_per_s)} "
        for key in _SUMMARY_PEERS:
            r = _find(results, stream, key)
            if r is None:
                continue
            if r.ok:
                lines.append(f"{head}| {r.label} | {_num(r.us_per_chunk)} | {_ratio(r.ratio)} |")
            else:
                lines.append(f"{head}| {r.label} | - | {r.note} |")
            head = "| | | | "
    return "\n".join(lines)


def markdown_layers(breakdown: dict[str, dict[str, float]]) -> str:
    streams = list(breakdown)
    lines = ["| layer | " + " | ".join(streams) + " |", "|---|" + "--:|" * len(streams)]
    for layer in next(iter(breakdown.values()), {}):
        lines.append(
            f"| {layer.strip()} | " + " | ".join(f"{breakdown[s][layer]:.2f}" for s in streams) + " |"
        )
    return "\n".join(lines)


def markdown_memory(memory: dict[str, Any]) -> str:
    lines = ["| measurement | traced memory |", "|---|--:|"]
    for idle in memory["idle"]:
        lines.append(
            f"| {idle['parsers']:,} idle {idle['provider']} parsers (first event fed) | "
            f"{idle['mb']:.1f} MB ({idle['bytes_per_parser']:,.0f} B each) |"
        )
    for row in memory.get("open_calls", ()):
        lines.append(
            f"| {row['parsers']:,} {row['provider']} parsers, each inside a call ({row['fragments']} argument "
            f"fragments fed) | {row['mb']:.1f} MB ({row['bytes_per_parser']:,.0f} B each) |"
        )
    for call in memory["open_call"]:
        lines.append(
            f"| one parser inside the last fragment of {call['stream']} | "
            f"{call['bytes'] / 1e3:,.0f} KB ({call['bytes_per_argument_byte']:.1f} B per argument byte) |"
        )
    return "\n".join(lines)


# -- files -------------------------------------------------------------------------------------------


def environment(command: str) -> dict[str, Any]:
    versions: dict[str, str | None] = {}
    for name in ("streamcalls", *_PEERS):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "command": command,
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "versions": versions,
    }


def write_json(path: Path, payload: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n")
    tmp.replace(path)


_CHART_CONTENDERS = (
    "streamcalls",
    "floor",
    "openai-sdk",
    "anthropic-sdk",
    "langchain",
    "partial-json-parser",
    "jiter-partial",
)


def write_chart(path: Path, results: Sequence[Result]) -> bool:
    """Two panels: cost per chunk on the 4-call streams, and its growth with argument size."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    labels = {c.key: c.label for c in CONTENDERS}
    fig, (left, right) = plt.subplots(1, 2, figsize=(15, 5.4))

    streams = ("openai-4x2KB", "anthropic-4x2KB")
    rows = [k for k in _CHART_CONTENDERS if any(_ok(results, s, k) for s in streams)]
    height = 0.38
    for i, stream in enumerate(streams):
        values = [_us(results, stream, k) for k in rows]
        ys = [y + (i - 0.5) * height for y in range(len(rows))]
        left.barh(ys, [v or 0 for v in values], height=height, label=stream, color=("0.3", "0.65")[i])
    left.set_yticks(range(len(rows)), [labels[k] for k in rows])
    left.invert_yaxis()
    left.set_xscale("log")
    left.set_xlabel("µs per chunk (log scale; lower is better)")
    left.set_title("4 parallel calls × 2 KB arguments")
    left.legend(loc="lower right")

    sizes = (1, 10, 100)
    colors = {key: f"C{i}" for i, key in enumerate(_CHART_CONTENDERS)}
    for family, style in (("openai", "-"), ("anthropic", "--")):
        for key in _CHART_CONTENDERS:
            points = [(s, _us(results, f"{family}-1x{s}KB", key)) for s in sizes]
            xs = [s for s, v in points if v is not None]
            ys2 = [v for _, v in points if v is not None]
            if len(xs) >= 2:
                right.plot(xs, ys2, style, color=colors[key], marker="o")
    for key in _CHART_CONTENDERS:
        right.plot([], [], "-", color=colors[key], label=labels[key])
    right.plot([], [], "-", color="black", label="OpenAI stream")
    right.plot([], [], "--", color="black", label="Anthropic stream")
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xticks(sizes, [f"{s} KB" for s in sizes])
    right.set_xlabel("arguments per call (one call)")
    right.set_ylabel("µs per chunk (flat = linear total cost)")
    right.set_title("Cost per chunk as the arguments grow")
    right.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _ok(results: Sequence[Result], stream: str, key: str) -> bool:
    r = _find(results, stream, key)
    return r is not None and r.ok


def _us(results: Sequence[Result], stream: str, key: str) -> float | None:
    r = _find(results, stream, key)
    return r.us_per_chunk if r is not None and r.ok else None
