"""The command line replays a recorded stream and prints its events."""

from __future__ import annotations

import io
import socket
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

import streamcalls
from streamcalls import Event, ParseError, ProviderError, StreamParser, ToolCallFailed
from streamcalls.cli._main import main
from streamcalls.cli._replay import replay
from tests.support import DATA, normalize
from tests.support.partial_rules import folded_patches


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


# -- a user's mistake: one line on stderr, exit status 2, no traceback ----------------------------------


def _one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str], *expected: str) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.endswith("\n")
    assert err.startswith(f"streamcalls {argv[0]}: ")
    assert "Traceback" not in err
    for text in expected:
        assert text in err
    return err


ONE_CALL = str(DATA / "openai" / "one_call.sse")


@pytest.mark.parametrize("command", ["replay", "bench"])
def test_a_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str) -> None:
    _one_line_error(capsys, [command, str(tmp_path / "nope.sse")], "nope.sse", "No such file or directory")


@pytest.mark.parametrize("command", ["replay", "bench"])
def test_a_directory(capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str) -> None:
    _one_line_error(capsys, [command, str(tmp_path)], "Is a directory")


def test_an_unreadable_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "secret.sse"
    path.write_bytes(b"data: {}\n\n")

    def refuse(self: Path) -> bytes:  # chmod 000 does not stop root, who runs CI containers
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", refuse)
    _one_line_error(capsys, ["replay", str(path)], "secret.sse", "Permission denied")


def test_bench_reads_every_file_before_timing_any(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _one_line_error(capsys, ["bench", ONE_CALL, str(tmp_path / "missing.sse")], "missing.sse")
    assert "chunks/s" not in capsys.readouterr().out


@pytest.mark.parametrize("command", ["replay", "bench"])
@pytest.mark.parametrize("value", ["0", "-1", "ten", "1.5"])
def test_chunk_must_be_a_positive_whole_number(
    capsys: pytest.CaptureFixture[str], command: str, value: str
) -> None:
    _one_line_error(capsys, [command, ONE_CALL, f"--chunk={value}"], "--chunk", "--help")


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["replay", ONE_CALL, "--provider", "openia"], "unknown provider 'openia' (did you mean 'openai'?)"),
        (["bench", ONE_CALL, "--provider", "nope"], "unknown provider 'nope'; expected one of 'openai', "),
        (["replay", ONE_CALL, "--detect", "fence,hermit"], "unknown detector 'hermit'"),
        (["bench", ONE_CALL, "--detect", "xml"], "unknown detector 'xml'"),
        (["replay", ONE_CALL, "--delay", "-1"], "--delay"),
        (["serve", "--port", "70000"], "--port"),
        (["serve", "--port", "http"], "--port"),
        (["serve", "--max-chunk", "0"], "--max-chunk"),
        (["serve", "--max-delay", "nan"], "--max-delay"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
    ],
)
def test_bad_option_values(capsys: pytest.CaptureFixture[str], argv: list[str], named: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert named in err
    assert "Traceback" not in err


def test_missing_recordings_folder(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _one_line_error(capsys, ["serve", "--recordings", str(tmp_path / "none")], "No such file or directory")


def test_a_folder_without_recordings_names_the_layouts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "notes.md").write_text("a file that is not a recording")
    (tmp_path / "gpt").mkdir()  # not a provider's name
    (tmp_path / "gpt" / "plan_day.sse").write_bytes(b"data: {}\n\n")
    err = _one_line_error(capsys, ["serve", "--recordings", str(tmp_path)])
    assert err == (
        f"streamcalls serve: no recordings found in {tmp_path}: expected {tmp_path}/<provider>/<name>.<ext> or "
        f"{tmp_path}/<provider>_<name>.<ext> (and <name>.turn2.<ext> for a second turn), <provider> one of "
        "openai, openai-responses, anthropic, ollama, cohere, gemini, bedrock, bedrock-invoke, text, "
        "<ext> one of .sse, .ndjson, .json, .txt, .bin\n"
    )
    # Either layout it names is read.
    (tmp_path / "openai").mkdir()
    (tmp_path / "openai" / "plan_day.sse").write_bytes((DATA / "openai" / "one_call.sse").read_bytes())
    from streamcalls.testing import load_recordings

    assert list(load_recordings(tmp_path)) == ["openai/plan_day"]
    (tmp_path / "openai" / "plan_day.sse").rename(tmp_path / "anthropic_plan_day.sse")
    assert list(load_recordings(tmp_path)) == ["anthropic/plan_day"]


def test_a_later_turn_without_the_first(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "openai_plan_day.turn2.sse").write_bytes(b"data: [DONE]\n\n")
    _one_line_error(
        capsys,
        ["serve", "--recordings", str(tmp_path)],
        f"streamcalls serve: {tmp_path}: recording openai/plan_day: turn 2 is recorded but not turn 1",
    )


def test_a_port_in_use(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        _one_line_error(capsys, ["serve", "--port", str(port)], f"cannot serve on 127.0.0.1:{port}")


@pytest.mark.parametrize(("command", "purpose"), [("replay", "replay"), ("bench", "measure")])
def test_an_empty_recording_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    command: str,
    purpose: str,
) -> None:
    # The guide: "2 the command could not run as given -- a missing, unreadable or empty file".
    path = tmp_path / "empty.sse"
    path.write_bytes(b"")
    err = _one_line_error(capsys, [command, str(path)])
    assert err == f"streamcalls {command}: {path} is empty: nothing to {purpose}\n"
    assert capsys.readouterr().out == ""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    err = _one_line_error(capsys, [command, "-"])
    assert err == f"streamcalls {command}: stdin is empty: nothing to {purpose}\n"


def test_delay_without_chunk_says_it_would_do_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    err = _one_line_error(capsys, ["replay", ONE_CALL, "--delay", "0.5"])
    assert err == (
        "streamcalls replay: --delay waits between chunks, and without --chunk the file is fed as one chunk: "
        "it would do nothing (add --chunk N)\n"
    )
    assert capsys.readouterr().out == ""  # nothing replayed
    assert main(["replay", ONE_CALL, "--delay", "0.001", "--chunk", "512"]) == 0
    assert "COMPLETED get_weather" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("given", "meant"),
    [("OpenAI", "openai"), ("claude", "anthropic"), ("Anthropic", "anthropic"), ("gemeni", "gemini")],
)
@pytest.mark.parametrize("command", ["replay", "bench"])
def test_a_misspelt_provider_is_told_the_name_it_meant(
    capsys: pytest.CaptureFixture[str], command: str, given: str, meant: str
) -> None:
    assert main([command, ONE_CALL, "--provider", given]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        f"streamcalls {command}: argument --provider: unknown provider {given!r} (did you mean {meant!r}?); "
        "expected one of 'openai', 'openai-responses', 'anthropic', "
    )
    assert err.count("\n") == 1


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"streamcalls {streamcalls.__version__}\n"
    result = subprocess.run(
        [sys.executable, "-m", "streamcalls", "--version"], capture_output=True, text=True, check=False
    )
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        f"streamcalls {streamcalls.__version__}\n",
        "",
    )


def test_a_mistake_in_a_real_process_prints_no_traceback(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "streamcalls", "replay", str(tmp_path / "absent.sse")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert (
        result.stderr
        == f"streamcalls replay: cannot read {tmp_path / 'absent.sse'}: No such file or directory\n"
    )


# -- exit status: 1 for a stream with problems, 0 when clean -------------------------------------------


@pytest.mark.parametrize(
    ("path", "status"),
    [
        (DATA / "openai" / "parallel_calls.sse", 0),
        (DATA / "openai" / "truncated.sse", 1),  # a call cut off: ToolCallFailed, ParseError
        (DATA / "openai" / "error_midstream.sse", 1),  # ProviderError
        (DATA / "gemini" / "garbage_between_elements.json", 1),  # ParseError only
    ],
)
def test_exit_status_says_whether_the_stream_was_clean(
    capsys: pytest.CaptureFixture[str], path: Path, status: int
) -> None:
    assert main(["replay", str(path), "--chunk", "5"]) == status
    lines = capsys.readouterr().out.splitlines()
    assert lines
    assert all(line.startswith("+") for line in lines)  # human output: "+0.001s  text ..."
    assert main(["replay", str(path), "--json"]) == status
    printed = [msgspec.json.decode(line, type=Event) for line in capsys.readouterr().out.splitlines()]
    problems = [e for e in printed if isinstance(e, (ParseError, ProviderError, ToolCallFailed))]
    assert bool(problems) == (status == 1)


def test_help_documents_the_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--help"], ["replay", "--help"], ["bench", "--help"], ["serve", "--help"]):
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert "exit status:\n  0  done, and every stream was clean\n  1  a stream had problems" in out
        assert "  2  the command could not run as given" in out


def test_replay_takes_detectors(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(DATA / "text" / "hermes_two_calls.txt")
    assert main(["replay", path, "--json", "--detect", "hermes"]) == 0
    assert "tool_call_completed" in capsys.readouterr().out
    assert main(["replay", path, "--json", "--detect", "none"]) == 0
    assert "tool_call_completed" not in capsys.readouterr().out


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
    from tests.support.streams import openai_args, openai_call_start, openai_finish

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
