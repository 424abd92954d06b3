"""The command line replays a recorded stream and prints its events."""

from __future__ import annotations

import io
import subprocess
import sys

import msgspec

from streamcalls import Event, StreamParser
from streamcalls._cli import main, replay
from tests.support import DATA, normalize


def test_replay_prints_json_lines_that_decode_to_the_events() -> None:
    path = DATA / "openai" / "parallel_calls.sse"
    out = io.StringIO()
    status = replay(path.read_bytes(), provider="auto", chunk=7, delay=0, as_json=True, out=out)
    assert status == 0
    printed = [msgspec.json.decode(line, type=Event) for line in out.getvalue().splitlines()]
    parser = StreamParser("openai")
    expected = parser.feed(path.read_bytes()) + parser.close()
    assert normalize(printed) == normalize(expected)


def test_replay_exit_status_reports_problems() -> None:
    out = io.StringIO()
    data = (DATA / "openai" / "truncated.sse").read_bytes()
    assert replay(data, provider="openai", chunk=0, delay=0, as_json=False, out=out) == 1
    assert "FAILED" in out.getvalue()


def test_module_entry_point_runs() -> None:
    path = DATA / "anthropic" / "one_call.sse"
    result = subprocess.run(
        [sys.executable, "-m", "streamcalls", "replay", str(path), "--chunk", "16"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "COMPLETED get_weather" in result.stdout


def test_main_with_arguments(capsys: object) -> None:
    path = DATA / "text" / "plain.txt"
    assert main(["replay", str(path), "--json"]) == 0
