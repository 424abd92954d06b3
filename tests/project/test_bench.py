"""``streamcalls bench``, the floors it measures against, and the timing code it shares with make bench.

No timing is asserted: only what was measured (which runs, how many
samples, which calls, where each one ended) and the shape of the output.
"""

from __future__ import annotations

import importlib.resources
import math
import re
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from streamcalls import ProviderName, StreamParser, ToolCallCompleted
from streamcalls.cli import _bench as bench_module
from streamcalls.cli import _floors as floors
from streamcalls.cli._bench import bench_file
from streamcalls.cli._main import main
from streamcalls.cli._timing import Rate, Settings, Timing, measure
from tests.support import DATA, read_events

BUNDLED = importlib.resources.files("streamcalls.replay") / "demo_streams" / "openai_parallel_calls.sse"
QUICK = Settings(min_runs=2, min_runs_fast=2, max_runs=3, budget_s=0.0)


def completed_at(data: bytes, chunk: int, provider: ProviderName = "auto") -> list[tuple[str, int]]:
    """(call name, end offset of the first prefix that completes it), each prefix fed whole.

    A prefix that ends on a chunk boundary and already completes the call is
    where ``bench`` must say the call completed: how the bench counts bytes is
    checked against the parser fed differently.
    """
    ends: list[tuple[str, int]] = []
    for end in [*range(chunk, len(data), chunk), len(data)]:
        parser = StreamParser(provider)
        events = parser.feed(data[:end])
        if end == len(data):
            events += parser.close()
        calls = [e.call for e in events if isinstance(e, ToolCallCompleted)]
        for call in calls[len(ends) :]:
            ends.append((call.name, end))
    return ends


# -- the command -----------------------------------------------------------------------------------


def test_bench_on_a_bundled_recording_prints_rates_ratio_and_call_ends(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "openai_parallel_calls.sse"
    data = BUNDLED.read_bytes()
    path.write_bytes(data)
    assert main(["bench", str(path), "--chunk", "100"]) == 0
    lines = capsys.readouterr().out.splitlines()
    chunks = math.ceil(len(data) / 100)
    assert lines[0] == f"{path}: openai, SSE, {len(data):,} bytes in {chunks} chunks of 100 bytes"
    assert lines[1].split() == ["chunks/s", "MB/s", "µs/chunk"]
    assert lines[2].split()[0] == "streamcalls"
    assert lines[2].endswith("   the parser, its set-up aside")
    assert len(lines[2].split()) == 4 + 5
    assert lines[3].split()[0] == "floor"
    assert lines[3].endswith("split lines + msgspec decode of each data payload")
    assert re.fullmatch(r"  streamcalls takes [0-9.]+× the floor's time, set-up aside", lines[4]), lines[4]
    assert re.fullmatch(
        r"  set-up: [0-9.]+ µs once per stream \(StreamParser\(\.\.\.\) and close\(\)\): [0-9]+% of "
        r"[0-9,.]+ µs, [0-9.]+× the floor's with it",
        lines[5],
    ), lines[5]
    expected = completed_at(data, 100)
    assert expected  # the recording has calls
    assert [line.split()[2:] for line in lines[6:]] == [
        [
            name,
            "completed",
            "at",
            "byte",
            f"{end:,}",
            "of",
            f"{len(data):,}",
            f"({100 * end / len(data):.0f}%)",
        ]
        for name, end in expected
    ]


@pytest.mark.parametrize(
    ("relative", "provider", "framing", "detect"),
    [
        ("openai/parallel_calls.sse", "openai", "sse", None),
        ("anthropic/parallel_calls.sse", "anthropic", "sse", None),
        ("ollama/parallel_calls_one_line.ndjson", "ollama", "ndjson", None),
        ("gemini/parallel_calls.json", "gemini", "json-array", None),
        ("gemini/parallel_calls.sse", "gemini", "sse", None),
        ("bedrock/parallel_calls.bin", "bedrock", "eventstream", None),
        ("text/hermes_two_calls.txt", "text", "text", "hermes"),
    ],
)
def test_bench_json_on_every_framing(
    capsys: pytest.CaptureFixture[str],
    relative: str,
    provider: ProviderName,
    framing: str,
    detect: str | None,
) -> None:
    path = DATA / relative
    data = path.read_bytes()
    argv = ["bench", str(path), "--json", "--chunk", "64", *(["--detect", detect] if detect else [])]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1  # one object per file, on one line
    report = msgspec.json.decode(out)
    assert report["file"] == str(path)
    assert report["provider"] == provider
    assert report["framing"] == framing
    assert (report["bytes"], report["chunk_bytes"], report["chunks"]) == (
        len(data),
        64,
        math.ceil(len(data) / 64),
    )
    assert report["problems"] == 0
    assert "samples_s" not in report  # the runs only with --samples
    ours, floor = report["streamcalls"], report["floor"]
    assert isinstance(floor["what"], str)
    steady = max(ours["median_s"] - ours["setup_s"], 1e-9)
    for numbers, seconds in ((ours, steady), (floor, floor["median_s"])):
        rate = Rate(seconds, report["chunks"], report["bytes"])
        assert numbers["chunks_per_s"] == pytest.approx(rate.chunks_per_s)
        assert numbers["mb_per_s"] == pytest.approx(rate.mb_per_s)
        assert numbers["us_per_chunk"] == pytest.approx(rate.us_per_chunk)
    assert report["ratio_to_floor"] == pytest.approx(steady / floor["median_s"])
    assert report["ratio_to_floor_with_setup"] == pytest.approx(ours["median_s"] / floor["median_s"])
    options = {"detect": (detect,)} if detect else {}
    calls = [
        e.call for e in read_events(path.with_suffix(".events.jsonl")) if isinstance(e, ToolCallCompleted)
    ]
    assert [(c["index"], c["name"], c["status"]) for c in report["calls"]] == [
        (call.index, call.name, "completed") for call in calls
    ]
    if not options:
        assert [(c["name"], c["at_byte"]) for c in report["calls"]] == completed_at(data, 64, provider)
    assert all(c["of_bytes"] == len(data) for c in report["calls"])


def test_bench_several_files_and_a_stream_with_problems(capsys: pytest.CaptureFixture[str]) -> None:
    clean, broken = DATA / "anthropic" / "one_call.sse", DATA / "openai" / "truncated.sse"
    assert main(["bench", str(clean), str(broken), "--json"]) == 1  # like replay: the stream had problems
    reports = [msgspec.json.decode(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["file"] for r in reports] == [str(clean), str(broken)]
    assert reports[0]["problems"] == 0
    assert reports[1]["problems"] >= 1
    assert [c["status"] for c in reports[1]["calls"]] == ["failed"]
    assert main(["bench", str(broken)]) == 1
    out = capsys.readouterr().out
    assert "problem events (ParseError, ProviderError, ToolCallFailed)" in out
    assert "failed at byte" in out


def test_samples_are_behind_a_flag(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(DATA / "anthropic" / "one_call.sse")
    assert main(["bench", path, "--json", "--samples"]) == 0
    report = msgspec.json.decode(capsys.readouterr().out)
    samples = report["samples_s"]
    assert set(samples) == {"streamcalls", "setup", "floor"}
    for runs in samples.values():
        assert len(runs) >= 7
        assert all(isinstance(run, float) and run >= 0 for run in runs)
    assert report["streamcalls"]["median_s"] == statistics.median(samples["streamcalls"])
    assert report["streamcalls"]["setup_s"] == statistics.median(samples["setup"])
    assert report["floor"]["median_s"] == statistics.median(samples["floor"])
    assert main(["bench", path, "--samples"]) == 2
    assert capsys.readouterr().err == (
        "streamcalls bench: --samples adds each run's time to --json's output: add --json\n"
    )


def test_the_set_up_run_makes_a_parser_and_closes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[tuple[str, int]] = []  # (provider, bytes fed) of every parser closed

    class Counting(StreamParser):
        __slots__ = ("_fed",)

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._fed = 0

        def feed(self, data: Any) -> Any:
            self._fed += len(data)
            return super().feed(data)

        def close(self) -> Any:
            made.append((str(self.provider), self._fed))
            return super().close()

    monkeypatch.setattr(bench_module, "StreamParser", Counting)
    data = (DATA / "openai" / "one_call.sse").read_bytes()
    measured = bench_file("x", data, provider="openai", settings=QUICK)
    # The untimed pass, then each run's warm-up and samples; the set-up's parsers are fed nothing.
    assert sorted(made) == sorted(
        [("openai", len(data))] * (1 + 1 + len(measured.parser.runs))
        + [("openai", 0)] * (1 + len(measured.setup.runs))
    )


def test_bench_without_calls(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", str(DATA / "openai" / "text_only.sse")]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "  no tool calls"


def test_bench_file_measures_the_given_settings() -> None:
    data = (DATA / "cohere" / "one_call.sse").read_bytes()
    measured = bench_file("x", data, provider="cohere", chunk=1, settings=QUICK)
    assert measured.reads == len(data)
    assert 2 <= len(measured.parser.runs) <= 3
    assert 2 <= len(measured.setup.runs) <= 3
    assert 2 <= len(measured.floor.runs) <= 3


# -- the floors --------------------------------------------------------------------------------------


def counting(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every payload a floor decodes."""
    seen: list[bytes] = []
    decode = msgspec.json.decode

    def spy(data: Any) -> Any:
        seen.append(bytes(data))
        return decode(data)

    monkeypatch.setattr(floors, "_decode", spy)
    return seen


def _reads(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


@pytest.mark.parametrize("size", [1, 7, 4096])
def test_sse_floor_decodes_each_data_payload_once(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    data = (DATA / "anthropic" / "parallel_calls.sse").read_bytes()
    seen = counting(monkeypatch)
    floors.floor("sse", _reads(data, size))()
    expected = [line[6:] for line in data.split(b"\n") if line.startswith(b"data: ")]
    assert seen == expected


@pytest.mark.parametrize("size", [1, 64])
def test_eventstream_floor_decodes_each_payload(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    path = DATA / "bedrock" / "parallel_calls.frames.jsonl"
    expected = [
        msgspec.json.encode(msgspec.json.decode(line)["payload"])
        for line in path.read_bytes().splitlines()
        if line
    ]
    seen = counting(monkeypatch)
    floors.floor("eventstream", _reads(path.with_suffix("").with_suffix(".bin").read_bytes(), size))()
    assert seen == expected


@pytest.mark.parametrize(
    ("framing", "path"),
    [
        ("ndjson", DATA / "ollama" / "text_then_calls.ndjson"),
        ("json-array", DATA / "gemini" / "parallel_calls.json"),
        ("text", DATA / "text" / "plain.txt"),
        ("sse", DATA / "openai" / "truncated.sse"),  # a cut-off payload is skipped, not raised
        ("eventstream", DATA / "openai" / "one_call.sse"),  # not an event stream: stops at once
    ],
)
def test_every_floor_runs_over_any_chunking(framing: str, path: Path) -> None:
    data = path.read_bytes()
    for size in (1, 13, len(data)):
        assert floors.floor(framing, _reads(data, size))() is None
    assert set(floors.FLOOR_WORK) == {"sse", "ndjson", "eventstream", "json-array", "text"}


# -- the shared timing code ---------------------------------------------------------------------------


def test_measure_interleaves_shuffled_rounds_and_checks_every_run() -> None:
    order: list[str] = []

    def run(name: str) -> Callable[[], str]:
        def go() -> str:
            order.append(name)
            return name

        return go

    names = "abcdef"
    timings = [Timing(run(name)) for name in names]
    checked: list[tuple[int, str]] = []
    rounds = 12
    settings = Settings(min_runs_fast=rounds, max_runs=rounds, budget_s=0.0)
    measure(timings, settings, lambda i, out: checked.append((i, out)))
    assert order[:6] == list(names)  # the warm-up, in order
    timed = [order[6 + 6 * n : 12 + 6 * n] for n in range(rounds)]
    assert all(sorted(each) == list(names) for each in timed)  # every run once a round
    assert len({"".join(each) for each in timed}) > rounds // 2  # the order changes
    # No run always follows the same one: after a heavy run, another run each time.
    after = {name: {each[each.index(name) + 1] for each in timed if each[-1] != name} for name in names}
    assert all(len(followers) > 1 for followers in after.values())
    assert checked == [(names.index(name), name) for name in order]
    assert [len(t.runs) for t in timings] == [rounds] * 6
    assert all(not t.first_kept for t in timings)
    again: list[str] = []
    order, kept = again, order
    measure([Timing(run(name)) for name in names], settings)
    assert again == kept  # the same seeds: the same order


def test_a_check_that_fails_stops_the_measurement() -> None:
    def check(number: int, out: Any) -> None:
        raise AssertionError("wrong result")

    with pytest.raises(AssertionError, match="wrong result"):
        measure([Timing(lambda: None)], Settings(), check)


def test_repeats_follow_the_budget() -> None:
    settings = Settings(min_runs=3, min_runs_fast=7, max_runs=21, budget_s=0.4, fast_s=0.1)
    assert settings.repeats(0.000001) == 21
    assert settings.repeats(0.05) == 8
    assert settings.repeats(0.2) == 3
    assert Rate(2.0, 10, 4_000_000).chunks_per_s == 5.0
    assert Rate(2.0, 10, 4_000_000).mb_per_s == 2.0
    assert Rate(2.0, 10, 4_000_000).us_per_chunk == 200_000.0


def test_a_fast_run_is_repeated_within_a_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    # A clock that advances one millisecond per run: the runs' own time, nothing else.
    clock = [0.0]
    outputs: list[int] = []

    def run() -> int:
        clock[0] += 0.005 if not outputs else 0.001  # the first run is slow
        outputs.append(len(outputs))
        return outputs[-1]

    monkeypatch.setattr("streamcalls.cli._timing.time.thread_time", lambda: clock[0])
    settings = Settings(min_runs_fast=3, max_runs=3, budget_s=0.0, sample_s=0.0095)
    assert (settings.loops(0.001), settings.loops(0.0095), settings.loops(0.5)) == (10, 1, 1)
    assert Settings().loops(0.000001) == 1  # (by default a sample is one run)
    timing = Timing(run)
    seen: list[int] = []
    measure([timing], settings, lambda number, out: seen.append(out))
    # The warm-up (5 ms: two runs a sample), two runs to take the pace again, then three samples
    # of ten runs each.
    assert timing.loops == 10
    assert len(outputs) == 1 + 2 + 3 * 10
    assert timing.runs == pytest.approx([0.001] * 3)  # a sample's time over its runs
    assert seen == [0, 2, 12, 22, 32]  # each sample's last run is checked
