"""The regression guard of ``make bench``: this run against the committed one.

Absolute times mean little on a shared machine (the same code measures 10-20 %
apart from one run to the next, more under load), so each row is compared on a
quantity that carries its own reference, measured in the same run:

- A row that times streamcalls (its label starts with ``streamcalls``): its
  median time ÷ the median of the floor (split + msgspec decode, nothing else)
  on the same stream with the same reads, timed in the same interleaved rounds
  (``floor`` for one event per read, ``floor-1-4k`` for the coalesced reads).
  Where a stream has no floor, the row's time ÷ its baseline's (another row on
  the same stream), and only where it has neither, its absolute time (marked as
  such: a noisy comparison).
- The peers' rows and the floors are the references, not guarded: a peer that
  got slower is not a regression of streamcalls.
- ``encode_turn``: its time ÷ its floor (the arguments alone encoded to JSON),
  per provider and size.  The check before a tool call: streamcalls' step ÷
  pydantic TypeAdapter's, timed in the same rounds.
- Memory: traced bytes (tracemalloc counts Python's allocations, the same on
  any machine with the same Python and packages).  The open-call rows (10 000
  parsers each holding an open call) also have a budget: ``MEMORY_BUDGET_MB``.

A row is flagged when its quantity grew by more than ``THRESHOLD`` (15 %) over
the committed run's, when it is missing from this run (or no longer measured),
or when it is over its budget.  Nothing here is timed and nothing fails: the
guard prints a block at the end of the bench output, a list of flagged rows or
"no regression".  Everything it reads is in the results file itself
(``results``: each row's median, reads and baseline; ``memory``; ...), so any two
results files can be compared: ``python -m benchmarks --guard FILE``.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .memory import BUDGET_MB as MEMORY_BUDGET_MB

__all__ = (
    "MEMORY_BUDGET_MB",
    "THRESHOLD",
    "Quantity",
    "Verdict",
    "committed_results",
    "compare",
    "markdown_guard",
    "quantities",
)

THRESHOLD = 0.15  # a row whose quantity grew more than this (relative) is flagged


@dataclass(frozen=True)
class Quantity:
    """What a row is compared on: ``value`` (lower is better) and ``per``, what it is measured
    against (``÷ floor``, ``MB`` ...); ``budget``: a bound of its own, in the same unit."""

    value: float
    per: str
    budget: float | None = None

    def shown(self) -> str:
        if self.per == "MB":
            return f"{self.value:.2f} MB"
        if self.per.startswith("absolute"):
            return f"{self.value * 1e3:.3g} ms"
        return f"{self.value:.3f}×"


@dataclass(frozen=True)
class Verdict:
    """One row's comparison: ``status`` is ``ok``, ``slower``, ``missing``, ``over budget``,
    ``new`` (no committed value) or ``changed reference`` (not comparable)."""

    row: str
    status: str
    then: Quantity | None
    now: Quantity | None

    @property
    def flagged(self) -> bool:
        return self.status in ("slower", "missing", "over budget")

    @property
    def change(self) -> float | None:
        if self.then is None or self.now is None or self.then.per != self.now.per or not self.then.value:
            return None
        return self.now.value / self.then.value - 1


# -- the quantity of each row ----------------------------------------------------------------------


def _is_streamcalls(row: Mapping[str, Any]) -> bool:
    return str(row.get("label", "")).startswith("streamcalls")


def _is_floor(row: Mapping[str, Any]) -> bool:
    return str(row.get("contender", "")).startswith("floor")


def _result_quantities(results: Iterable[Mapping[str, Any]]) -> dict[str, Quantity | None]:
    rows = list(results)
    by_stream: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        by_stream.setdefault(row["stream"], []).append(row)
    out: dict[str, Quantity | None] = {}
    for row in rows:
        if not _is_streamcalls(row):
            continue
        key = f"{row['stream']} / {row['contender']}"
        median = row.get("median_s")
        if not median:
            out[key] = None  # not measured in this run: reported as missing if it was before
            continue
        same = by_stream[row["stream"]]
        floor = next(
            (r for r in same if _is_floor(r) and r.get("reads") == row.get("reads") and r.get("median_s")),
            None,
        )
        if floor is not None:
            out[key] = Quantity(median / floor["median_s"], f"÷ {floor['contender']}")
            continue
        base = next(
            (
                r
                for r in same
                if r["contender"] == row.get("baseline") != row["contender"] and r.get("median_s")
            ),
            None,
        )
        if base is not None:
            out[key] = Quantity(median / base["median_s"], f"÷ {base['contender']}")
        else:
            out[key] = Quantity(median, "absolute s")
    return out


def _memory_quantities(memory: Mapping[str, Any] | None) -> dict[str, Quantity | None]:
    out: dict[str, Quantity | None] = {}
    if not memory:
        return out
    for row in memory.get("open_calls", ()):
        key = f"memory: {row['parsers']:,} {row['provider']} parsers each holding an open call"
        budget = row.get("budget_mb", MEMORY_BUDGET_MB * row["parsers"] / 10_000)
        out[key] = Quantity(row["bytes"] / 1e6, "MB", budget)
    for row in memory.get("idle", ()):
        key = f"memory: {row['parsers']:,} idle {row['provider']} parsers"
        out[key] = Quantity(row["bytes"] / 1e6, "MB")
    for row in memory.get("open_call", ()):
        key = f"memory: one parser inside the last fragment of {row['stream']}"
        out[key] = Quantity(row["bytes"] / 1e6, "MB")
    return out


def _encoding_quantities(encoding: Iterable[Mapping[str, Any]] | None) -> dict[str, Quantity | None]:
    out: dict[str, Quantity | None] = {}
    for row in encoding or ():
        key = f"encode_turn, {row['provider']}, {row['bytes'] / 1000:,.0f} KB"
        out[key] = Quantity(row["encode_s"] / row["floor_s"], "÷ floor") if row.get("floor_s") else None
    return out


_PYDANTIC = "pydantic TypeAdapter"


def _validation_quantities(validation: Mapping[str, Any] | None) -> dict[str, Quantity | None]:
    out: dict[str, Quantity | None] = {}
    for row in (validation or {}).get("rows", ()):
        steps = row.get("us_per_call", {})
        if "streamcalls" in steps and steps.get(_PYDANTIC):
            out[f"tool arguments check, {row['case']}"] = Quantity(
                steps["streamcalls"] / steps[_PYDANTIC], f"÷ {_PYDANTIC}"
            )
    return out


def quantities(payload: Mapping[str, Any]) -> dict[str, Quantity | None]:
    """Every guarded row of a results file (``latest.json``'s shape) and the quantity it is
    compared on; None for a row that this run did not measure."""
    return {
        **_result_quantities(payload.get("results", ())),
        **_encoding_quantities(payload.get("turn_encoding")),
        **_validation_quantities(payload.get("validation")),
        **_memory_quantities(payload.get("memory")),
    }


# -- the comparison --------------------------------------------------------------------------------


def compare(
    now: Mapping[str, Any], then: Mapping[str, Any] | None, threshold: float = THRESHOLD
) -> list[Verdict]:
    """Each row of ``now`` against the committed run ``then``, and the committed rows ``now``
    lacks.  A quick run (``now["quick"]``) has fewer and smaller streams: the committed rows it
    did not run are left out, not reported missing."""
    current = quantities(now)
    committed = quantities(then) if then is not None else {}
    quick = bool(now.get("quick")) and not (then or {}).get("quick")
    verdicts = []
    for row, value in current.items():
        before = committed.get(row)
        if value is None:
            if before is not None:
                verdicts.append(Verdict(row, "missing", before, None))
            continue
        if value.budget is not None and value.value > value.budget:
            verdicts.append(Verdict(row, "over budget", before, value))
        elif before is None:
            verdicts.append(Verdict(row, "new", None, value))
        elif before.per != value.per:
            verdicts.append(Verdict(row, "changed reference", before, value))
        elif value.value > before.value * (1 + threshold):
            verdicts.append(Verdict(row, "slower", before, value))
        else:
            verdicts.append(Verdict(row, "ok", before, value))
    if not quick:
        verdicts += [
            Verdict(row, "missing", before, None)
            for row, before in committed.items()
            if before is not None and row not in current
        ]
    return verdicts


def _cell(value: Quantity | None) -> str:
    return "-" if value is None else value.shown()


def markdown_guard(
    verdicts: list[Verdict], against: str, threshold: float = THRESHOLD, *, quick: bool = False
) -> str:
    """The guard's block: how rows are compared, the flagged rows (or "no regression"), a count."""
    flagged = [v for v in verdicts if v.flagged]
    compared = [v for v in verdicts if v.status in ("ok", "slower", "over budget") and v.then is not None]
    lines = [
        f"Against {against}. Each streamcalls row is compared on its time ÷ its floor (same stream, same "
        f"reads, same rounds); memory on traced bytes and its budget ({MEMORY_BUDGET_MB:.0f} MB for "
        f"10 000 parsers each holding an open call). Flagged: more than {threshold:.0%} above the "
        "committed value, missing, or over budget.",
        "",
    ]
    if flagged:
        lines += [
            f"**REGRESSION: {len(flagged)} row{'s' if len(flagged) != 1 else ''} flagged**",
            "",
            "| row | compared on | committed | now | change | why |",
            "|---|---|--:|--:|--:|---|",
        ]
        for v in flagged:
            change = v.change
            shown = "-" if change is None else f"{change:+.0%}"
            either = v.now or v.then
            per = either.per if either is not None else "-"
            why = v.status
            if v.status == "over budget" and v.now is not None:
                why = f"over budget ({v.now.budget:g} {v.now.per})"
            lines.append(f"| {v.row} | {per} | {_cell(v.then)} | {_cell(v.now)} | {shown} | {why} |")
    else:
        lines.append("**no regression**")
    if quick:
        lines += [
            "",
            "A quick run takes 2 to 5 samples of each row and times sub-millisecond streams: its verdicts "
            "are a hint, make bench's are the guard's.",
        ]
    new = sum(v.status == "new" for v in verdicts)
    moved = sum(v.status == "changed reference" for v in verdicts)
    lines += [
        "",
        f"{len(compared)} rows compared, {len(flagged)} flagged"
        + (f", {new} new (no committed value)" if new else "")
        + (f", {moved} with a reference the committed run did not have (not compared)" if moved else "")
        + ".",
    ]
    return "\n".join(lines)


# -- the committed run -----------------------------------------------------------------------------


def committed_results(path: Path) -> tuple[dict[str, Any] | None, str]:
    """The committed run: ``path`` as git's HEAD holds it (a run written since and not committed
    is not the reference), else the file as it is on disk.  Returns it with where it came from."""
    try:
        shown = subprocess.run(
            ["git", "show", f"HEAD:./{path.name}"],
            cwd=path.parent,
            capture_output=True,
            check=True,
            timeout=30,
        ).stdout
        return json.loads(shown), f"{path.name} as committed (git HEAD)"
    except (OSError, subprocess.SubprocessError, ValueError):
        pass
    try:
        return json.loads(path.read_text()), f"{path} (not in git: the file on disk)"
    except (OSError, ValueError):
        return None, f"nothing: no {path}"
