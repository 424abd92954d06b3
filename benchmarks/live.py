"""The live-arguments rows of ``make bench``: their table and their targets.

One call whose arguments are mostly one long string, in 40-character deltas
(``streams.openai_stream(..., live=True)``), at 10 KB, 100 KB and 1 MB:
streamcalls with and without ``partial_arguments=True`` (and with the patches
applied to ``PartialArguments``), against the peers' ways of having a partial
value after every delta -- the SDKs' snapshots and the partial-JSON re-parsers.
"""

from __future__ import annotations

from collections.abc import Sequence

from .contenders import CONTENDERS
from .report import Target, _find, _num, _ratio
from .runner import Result

__all__ = ("LIVE_SIZES", "LIVE_WIRES", "markdown_live", "targets")

LIVE_WIRES = ("openai-live", "anthropic-live")
LIVE_SIZES = ("10KB", "100KB", "1MB")
# streamcalls' rows, then the peers' ways of getting a partial value after every delta.
_LIVE_OWN = ("streamcalls", "streamcalls-partial", "streamcalls-live")
_LIVE_PEERS = ("anthropic-sdk", "openai-sdk-parsed", "partial-json-parser-live", "jiter-partial")


def _live_key(wire: str, size: str) -> str:
    return f"{wire}-1x{size}"


def _median_ratio(results: Sequence[Result], stream: str, top: str, bottom: str) -> float | None:
    a, b = _find(results, stream, top), _find(results, stream, bottom)
    return a.median / b.median if a is not None and b is not None and a.ok and b.ok else None


def markdown_live(results: Sequence[Result]) -> str:
    """One call, one long string in 40-character deltas: a partial value after every delta."""
    lines = [
        "| stream | contender | runs | ms per stream | µs/chunk | ÷ streamcalls | ÷ streamcalls + PartialArguments |",
        "|---|---|--:|--:|--:|--:|--:|",
    ]
    for wire in LIVE_WIRES:
        for size in LIVE_SIZES:
            stream = _live_key(wire, size)
            for key in (*_LIVE_OWN, *_LIVE_PEERS):
                r = _find(results, stream, key)
                if r is None:
                    continue
                if not r.ok:
                    lines.append(f"| {stream} | {r.label} | - | - | - | - | {r.note} |")
                    continue
                to_default = _median_ratio(results, stream, key, "streamcalls")
                to_live = _median_ratio(results, stream, key, "streamcalls-live")
                lines.append(
                    f"| {stream} | {r.label} | {len(r.runs)} | {_num(r.median * 1e3)} | {_num(r.us_per_chunk)} "
                    f"| {_ratio(to_default)} | {_ratio(to_live)} |"
                )
    lines.append("")
    lines.append("| growth, 100 KB → 1 MB (linear: 10×) | " + " | ".join(LIVE_WIRES) + " |")
    lines.append("|---|" + "--:|" * len(LIVE_WIRES))
    for key in (*_LIVE_OWN, *_LIVE_PEERS):
        cells = []
        for wire in LIVE_WIRES:
            growth = _growth(results, wire, key)
            cells.append("-" if growth is None else f"{growth:.1f}×")
        if any(cell != "-" for cell in cells):
            label = next(c.label for c in CONTENDERS if c.key == key)
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _growth(results: Sequence[Result], wire: str, key: str) -> float | None:
    a, b = _find(results, _live_key(wire, "100KB"), key), _find(results, _live_key(wire, "1MB"), key)
    return b.median / a.median if a is not None and b is not None and a.ok and b.ok else None


def targets(results: Sequence[Result]) -> list[Target]:
    out = []
    for wire in LIVE_WIRES:
        big = _live_key(wire, "1MB")
        cost = _median_ratio(results, big, "streamcalls-partial", "streamcalls")
        applied = _median_ratio(results, big, "streamcalls-live", "streamcalls")
        if cost is not None:
            shown = f"{cost:.2f}×" + (
                "" if applied is None else f" ({applied:.2f}× with PartialArguments applied)"
            )
            out.append(
                Target(f"live arguments cost, {big}", "partial_arguments=True ≤ 1.5× off", shown, cost <= 1.5)
            )
        growth = _growth(results, wire, "streamcalls-partial")
        if growth is not None:
            out.append(
                Target(f"live arguments linear, {wire}", "1 MB ≤ 11× 100 KB", f"{growth:.1f}×", growth <= 11)
            )
    peers = (
        ("anthropic SDK input_json snapshot", "anthropic-live", "1MB", "anthropic-sdk", 20.0),
        ("partial_json_parser per delta", "openai-live", "100KB", "partial-json-parser-live", 1000.0),
        ("partial_json_parser per delta", "anthropic-live", "100KB", "partial-json-parser-live", 1000.0),
    )
    for name, wire, size, key, goal in peers:
        stream = _live_key(wire, size)
        value = _median_ratio(results, stream, key, "streamcalls-live")
        if value is not None:
            out.append(
                Target(
                    f"live arguments vs {name}, {stream}", f"≥ {goal:.0f}×", f"{_ratio(value)}", value >= goal
                )
            )
    for wire in LIVE_WIRES:
        at_1mb = _median_ratio(results, _live_key(wire, "1MB"), "jiter-partial", "streamcalls-live")
        at_100kb = _median_ratio(results, _live_key(wire, "100KB"), "jiter-partial", "streamcalls-live")
        if at_1mb is not None and at_100kb is not None:
            out.append(
                Target(
                    f"live arguments vs jiter partial_mode per delta, {wire}",
                    "ahead at 1 MB, the gap growing",
                    f"{_ratio(at_100kb)} at 100 KB, {_ratio(at_1mb)} at 1 MB",
                    at_1mb > 1 and at_1mb > at_100kb,
                )
            )
    return out
