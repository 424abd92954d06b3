"""The regression guard of ``make bench`` (benchmarks/guard.py) on made-up results files.

Nothing is timed: the results are written by hand, shaped as ``latest.json``
holds them, and the guard's verdicts are checked: a row 20 % slower (as a
ratio to its floor) is flagged, 10 % is not, a missing row is reported, the
memory budget is kept; and the committed file is what it compares with.
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from benchmarks import guard

ROOT = Path(__file__).resolve().parent.parent.parent


def row(
    stream: str, contender: str, median: float, *, reads: int = 100, baseline: str = "streamcalls"
) -> dict[str, Any]:
    label = {"floor": "floor: split + msgspec decode", "openai-sdk": "openai SDK"}.get(contender, contender)
    return {
        "stream": stream,
        "contender": contender,
        "label": label,
        "baseline": baseline,
        "reads": reads,
        "median_s": median,
    }


def results(**overrides: float) -> dict[str, Any]:
    """A committed run: two streams, streamcalls twice the floor's time, a peer, memory."""
    times = {
        "openai/streamcalls": 0.002,
        "openai/floor": 0.001,
        "openai/openai-sdk": 0.06,
        "anthropic/streamcalls": 0.003,
        "anthropic/floor": 0.001,
        "anthropic/streamcalls-1-4k": 0.0025,
        "anthropic/floor-1-4k": 0.001,
        **overrides,
    }
    rows = []
    for key, seconds in times.items():
        stream, contender = key.split("/")
        coalesced = contender.endswith("1-4k")
        rows.append(
            row(
                f"{stream}-4x2KB",
                contender,
                seconds,
                reads=40 if coalesced else 1500,
                baseline="streamcalls-1-4k" if coalesced else "streamcalls",
            )
        )
    return {
        "quick": False,
        "results": rows,
        "memory": {
            "idle": [{"provider": "openai", "parsers": 10_000, "bytes": 22_000_000}],
            "open_calls": [{"provider": "openai", "parsers": 10_000, "bytes": 28_000_000, "budget_mb": 30.0}],
            "open_call": [],
        },
    }


def verdicts(now: dict[str, Any], then: dict[str, Any]) -> dict[str, str]:
    return {v.row: v.status for v in guard.compare(now, then)}


def test_each_streamcalls_row_is_compared_on_its_time_over_its_floor() -> None:
    got = guard.quantities(results())
    assert got["openai-4x2KB / streamcalls"] == guard.Quantity(2.0, "÷ floor")
    # the coalesced rows against the floor fed the same reads
    assert got["anthropic-4x2KB / streamcalls-1-4k"] == guard.Quantity(2.5, "÷ floor-1-4k")
    # the peers and the floors are the references, not guarded rows
    assert not any("openai-sdk" in key or key.endswith("/ floor") for key in got)
    assert got["memory: 10,000 openai parsers each holding an open call"] == guard.Quantity(28.0, "MB", 30.0)


def test_a_row_20_percent_slower_is_flagged_and_10_percent_is_not() -> None:
    then = results()
    now = results(**{"openai/streamcalls": 0.0024, "anthropic/streamcalls": 0.0033})
    got = verdicts(now, then)
    assert got["openai-4x2KB / streamcalls"] == "slower"  # 2.4 / 2.0 = +20 %
    assert got["anthropic-4x2KB / streamcalls"] == "ok"  # 3.3 / 3.0 = +10 %
    block = guard.markdown_guard(guard.compare(now, then), "the committed run")
    assert "REGRESSION: 1 row flagged" in block
    assert "| openai-4x2KB / streamcalls | ÷ floor | 2.000× | 2.400× | +20% | slower |" in block
    assert "anthropic-4x2KB / streamcalls |" not in block


def test_the_comparison_is_the_ratio_not_the_time() -> None:
    """A machine twice as slow (every row, floor included) is no regression; a floor that got
    faster while streamcalls did not is."""
    then = results()
    slower_machine = results(**{key: 2 * value for key, value in _times(then).items()})
    assert set(verdicts(slower_machine, then).values()) == {"ok"}
    faster_floor = results(**{"openai/floor": 0.0008})
    assert verdicts(faster_floor, then)["openai-4x2KB / streamcalls"] == "slower"


def _times(payload: dict[str, Any]) -> dict[str, float]:
    return {f"{r['stream'].split('-')[0]}/{r['contender']}": r["median_s"] for r in payload["results"]}


def test_a_missing_row_is_reported() -> None:
    then = results()
    now = copy.deepcopy(then)
    now["results"] = [r for r in now["results"] if r["stream"] != "anthropic-4x2KB"]
    got = verdicts(now, then)
    assert got["anthropic-4x2KB / streamcalls"] == "missing"
    assert got["anthropic-4x2KB / streamcalls-1-4k"] == "missing"
    # a row that is there but was not measured this time (skipped) is missing too
    unmeasured = copy.deepcopy(then)
    del unmeasured["results"][0]["median_s"]
    assert verdicts(unmeasured, then)["openai-4x2KB / streamcalls"] == "missing"
    block = guard.markdown_guard(guard.compare(now, then), "x")
    assert "| anthropic-4x2KB / streamcalls | ÷ floor | 3.000× | - | - | missing |" in block


def test_a_quick_run_reports_no_missing_rows_of_the_full_one() -> None:
    then = results()
    now = copy.deepcopy(then)
    now["quick"] = True
    now["results"] = [r for r in now["results"] if r["stream"] == "openai-4x2KB"]
    assert "missing" not in verdicts(now, then).values()


def test_the_memory_budget() -> None:
    then = results()
    over = copy.deepcopy(then)
    over["memory"]["open_calls"][0]["bytes"] = 31_000_000  # +11 %: not slower, but over 30 MB
    got = verdicts(over, then)
    assert got["memory: 10,000 openai parsers each holding an open call"] == "over budget"
    assert "over budget (30 MB)" in guard.markdown_guard(guard.compare(over, then), "x")
    # over budget even when the committed run was too: it is flagged until it is fixed
    assert verdicts(over, over)["memory: 10,000 openai parsers each holding an open call"] == "over budget"
    grown = copy.deepcopy(then)
    grown["memory"]["idle"][0]["bytes"] = 26_000_000  # +18 %, no budget: slower
    assert verdicts(grown, then)["memory: 10,000 idle openai parsers"] == "slower"


def test_no_regression_is_said_so() -> None:
    then = results()
    block = guard.markdown_guard(guard.compare(results(), then), "the committed run")
    assert "**no regression**" in block
    assert "REGRESSION" not in block
    assert "5 rows compared, 0 flagged." in block  # 3 timed rows, 2 memory rows


def test_rows_without_a_committed_value_or_with_another_reference_are_not_flagged() -> None:
    then = results()
    now = results()
    now["results"].append(row("ollama-1x1KB", "streamcalls", 0.001))  # no floor on that stream: absolute
    now["results"] = [r for r in now["results"] if r["contender"] != "floor-1-4k"]
    got = verdicts(now, then)
    assert got["ollama-1x1KB / streamcalls"] == "new"
    assert guard.quantities(now)["ollama-1x1KB / streamcalls"] == guard.Quantity(0.001, "absolute s")
    # the coalesced row lost its floor: now against its baseline, itself -- absolute, not comparable
    assert got["anthropic-4x2KB / streamcalls-1-4k"] == "changed reference"
    assert not any(v.flagged for v in guard.compare(now, then))


def test_the_committed_file_is_read_from_git_not_from_a_run_written_since(tmp_path: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    path = tmp_path / "latest.json"
    path.write_text(json.dumps({"results": [], "quick": False, "marker": "committed"}))
    git("add", "latest.json")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "run")
    path.write_text(json.dumps({"results": [], "quick": False, "marker": "written since"}))
    committed, where = guard.committed_results(path)
    assert committed is not None
    assert committed["marker"] == "committed"
    assert "as committed" in where
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "latest.json").write_text(json.dumps({"marker": "on disk"}))
    committed, where = guard.committed_results(outside / "latest.json")
    assert committed is not None
    assert committed["marker"] == "on disk"
    assert guard.committed_results(tmp_path / "none" / "latest.json")[0] is None


def test_the_committed_results_file_has_what_the_guard_needs() -> None:
    committed = json.loads((ROOT / "benchmarks" / "results" / "latest.json").read_text())
    rows = guard.quantities(committed)
    assert rows["openai-4x2KB / streamcalls"] is not None
    assert rows["openai-4x2KB / streamcalls"].per == "÷ floor"
    assert not [v for v in guard.compare(committed, committed) if v.flagged and v.status != "over budget"]


@pytest.mark.parametrize("threshold", [0.05, 0.25])
def test_the_threshold_is_a_parameter(threshold: float) -> None:
    now = results(**{"openai/streamcalls": 0.0024})
    flagged = [v.row for v in guard.compare(now, results(), threshold) if v.flagged]
    assert flagged == (["openai-4x2KB / streamcalls"] if threshold < 0.2 else [])
