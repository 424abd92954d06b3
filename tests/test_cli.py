"""The command line replays a recorded stream and prints its events."""

from __future__ import annotations

import io
import subprocess
import sys

import msgspec

from streamcalls import Event, StreamParser
from streamcalls._cli import main, replay
from tests.partial_rules import folded_patches
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


def test_replay_partial_prints_each_path_and_its_growing_value() -> None:
    path = DATA / "openai" / "one_call.sse"
    out = io.StringIO()
    assert (
        replay(path.read_bytes(), provider="openai", chunk=7, delay=0, as_json=False, partial=True, out=out)
        == 0
    )
    lines = [line.split("s  ", 1)[1] for line in out.getvalue().splitlines()]
    assert "call #0 add       (root) {}" in lines
    assert 'call #0 add       /location = "" (0 chars)' in lines
    assert 'call #0 append    /location = "Zürich, \\"CH\\"" (12 chars)' in lines
    assert 'call #0 append    /unit = "celsius" (7 chars)' in lines
    plain = io.StringIO()
    replay(path.read_bytes(), provider="openai", chunk=7, delay=0, as_json=False, out=plain)
    assert "(root)" not in plain.getvalue()  # patches only with --partial


def test_replay_partial_shows_the_end_of_a_long_string() -> None:
    from tests.streams import openai_args, openai_call_start, openai_finish

    content = "".join(f"line {n}\\n" for n in range(200))
    data = openai_call_start(0, "c", "write_file") + openai_args(0, '{"content": "')
    data += b"".join(openai_args(0, content[i : i + 40]) for i in range(0, len(content), 40))
    data += openai_args(0, '"}') + openai_finish()
    out = io.StringIO()
    replay(data, provider="openai", chunk=0, delay=0, as_json=False, partial=True, out=out)
    last = [line for line in out.getvalue().splitlines() if "append" in line][-1]
    # a long value shows its length and its last 60 characters, not all of it
    assert last.endswith(
        '/content = …"e 193\\nline 194\\nline 195\\nline 196\\nline 197\\nline 198\\nline 199\\n" (1690 chars)'
    )


def test_replay_partial_json_lines_decode_to_the_events() -> None:
    path = DATA / "anthropic" / "parallel_calls.sse"
    out = io.StringIO()
    replay(path.read_bytes(), provider="auto", chunk=5, delay=0, as_json=True, partial=True, out=out)
    printed = [msgspec.json.decode(line, type=Event) for line in out.getvalue().splitlines()]
    parser = StreamParser("anthropic", partial_arguments=True)
    expected = parser.feed(path.read_bytes()) + parser.close()
    assert [e for e in printed if type(e).__name__ == "ToolCallPatch"]
    assert folded_patches(printed) == folded_patches(expected)
    assert main(["replay", str(path), "--partial", "--json"]) == 0
