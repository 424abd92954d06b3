"""The native path and the pure-Python path, side by side: their table and their targets.

Every stream streamcalls is timed on has a row for each path: ``streamcalls``
(the native path where it is built, see streamcalls/_native) and
``streamcalls-pure`` (the same loop under ``pure_python()``), and so do the
coalesced reads and the live rows with ``partial_arguments=True``.  Without the
native path (no compiler, ``STREAMCALLS_PURE_PYTHON=1``) the two rows time the
same code, and the table says so.
"""

from __future__ import annotations

from collections.abc import Sequence

from streamcalls import _native

from .live import LIVE_WIRES
from .report import Target, _find, _num, _ratio
from .runner import Result

__all__ = ("markdown_paths", "targets")

# The pairs of rows, (native, pure), and the floor each is measured against.
PAIRS = (
    ("streamcalls", "streamcalls-pure", "floor"),
    ("streamcalls-1-4k", "streamcalls-1-4k-pure", "floor-1-4k"),
    ("streamcalls-partial", "streamcalls-partial-pure", "floor"),
)
HEADLINE = ("openai-4x2KB", "anthropic-4x2KB")
NATIVE_GOAL = 0.7  # × the floor, with the native path
PURE_GOALS = {"openai-4x2KB": 1.7, "anthropic-4x2KB": 2.6}  # × the floor, on the pure path
SDK_GOALS = (("anthropic-4x2KB", "anthropic-sdk-e2e", 50.0), ("openai-4x2KB", "openai-sdk", 100.0))


def _to(results: Sequence[Result], stream: str, top: str, bottom: str) -> float | None:
    a, b = _find(results, stream, top), _find(results, stream, bottom)
    return a.median / b.median if a is not None and b is not None and a.ok and b.ok else None


def built() -> str:
    """Which native path the rows measure."""
    speedups = _native.speedups
    if speedups is None:
        return "not built (or STREAMCALLS_PURE_PYTHON=1): both rows are the pure path"
    return "the C extension" + (" (abi3)" if speedups.LIMITED_API else "")


def markdown_paths(results: Sequence[Result]) -> str:
    """Each stream's two paths: µs per chunk, each as a multiple of the floor, and pure ÷ native."""
    lines = [
        f"Native path: {built()}.",
        "",
        "| stream | reads | native µs/chunk | ÷ floor | pure µs/chunk | ÷ floor | pure ÷ native |",
        "|---|---|--:|--:|--:|--:|--:|",
    ]
    streams = list(dict.fromkeys(r.stream for r in results if r.contender == "streamcalls-pure"))
    for stream in streams:
        for native, pure, floor in PAIRS:
            a, b = _find(results, stream, native), _find(results, stream, pure)
            if a is None or b is None or not (a.ok and b.ok):
                continue
            reads = "1-4 KB" if "1-4k" in native else "as sent"
            if "partial" in native:
                reads += ", partial_arguments"
            lines.append(
                f"| {stream} | {reads} | {_num(a.us_per_chunk)} | {_ratio(_to(results, stream, native, floor))} "
                f"| {_num(b.us_per_chunk)} | {_ratio(_to(results, stream, pure, floor))} "
                f"| {_ratio(b.median / a.median)} |"
            )
    return "\n".join(lines)


def _growth(results: Sequence[Result], wire: str, key: str) -> float | None:
    a, b = _find(results, f"{wire}-1x100KB", key), _find(results, f"{wire}-1x1MB", key)
    return b.median / a.median if a is not None and b is not None and a.ok and b.ok else None


def targets(results: Sequence[Result]) -> list[Target]:
    native = _native.speedups is not None
    out = []
    for stream in HEADLINE:
        value = _to(results, stream, "streamcalls", "floor")
        shown = "-" if value is None else f"{value:.2f}× the floor's time"
        met = None if value is None or not native else value <= NATIVE_GOAL
        if not native:
            shown += " (native path not built)"
        out.append(Target(f"native path, {stream}", f"≤ {NATIVE_GOAL:.1f}× the floor", shown, met))
        value = _to(results, stream, "streamcalls-pure", "floor")
        goal = PURE_GOALS[stream]
        out.append(
            Target(
                f"pure-Python path, {stream}",
                f"≤ {goal:.1f}× the floor",
                "-" if value is None else f"{value:.2f}× the floor's time",
                None if value is None else value <= goal,
            )
        )
    for stream, peer, goal in SDK_GOALS:
        value = _to(results, stream, peer, "streamcalls")
        label = next((r.label for r in results if r.contender == peer), peer)
        out.append(
            Target(
                f"native path vs {label}, {stream}",
                f"≥ {goal:.0f}×",
                _ratio(value),
                None if value is None or not native else value >= goal,
            )
        )
    for wire in LIVE_WIRES:
        for key in ("streamcalls", "streamcalls-pure", "streamcalls-partial-pure"):
            growth = _growth(results, wire, key)
            if growth is not None:
                out.append(
                    Target(f"linear, {wire}, {key}", "1 MB ≤ 11× 100 KB", f"{growth:.1f}×", growth <= 11)
                )
        cost = _to(results, f"{wire}-1x1MB", "streamcalls-partial-pure", "streamcalls-pure")
        if cost is not None:
            out.append(
                Target(
                    f"live arguments cost, pure-Python path, {wire}-1x1MB",
                    "partial_arguments=True ≤ 1.5× off",
                    f"{cost:.2f}×",
                    cost <= 1.5,
                )
            )
    return out
